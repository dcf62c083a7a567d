import RepeaterEngine
import Synchronization

/// The input side of the process callback (`--record`): what arrives on `in_1…in_N` is metered
/// every cycle and, while recording is armed or a calibration probe runs, copied into a lock-free
/// ring of blocks, each tagged with the engine output frame the ports carried at that instant.
/// A probe for calibration replaces what leaves the outputs for its length.
///
/// The tag is the whole alignment story on the audio side: a block tagged X holds the input of the
/// cycle whose outputs carried engine output frame X (the render-ahead FIFO's read position when
/// rendering ahead, else the engine's rendered-frame count before the cycle). Input sample i of it
/// was played against output frame X + i − R, R the round trip out → … → in. Everything else
/// (which frames make a take, R itself) is the control side's business.
///
/// That sum holds while the ports carry engine frames back to back in the server's time. A cycle
/// that breaks it (the render-ahead helper was late and silence went out, or the server skipped
/// this client and its frame time jumped) is a *disturbance*: the blocks from it on carry the next
/// `generation`, and the take writer drops a take whose input it could have misplaced (a take is
/// whole and aligned, or absent). An xrun the server reports is one too, but it comes late (on
/// JACK's notification thread, a cycle or more after it happened) and says nothing of where: a
/// loop through another client, or a converter's input, may have lost a period there although
/// this client ran every cycle. It is published apart (`reportedDisturbance`), dated
/// `reportLatencyFrames` before the cycle that saw it.
///
/// Real-time thread: `process` only copies, measures and stores atomics; everything is allocated in
/// `init`. A full ring drops whole blocks (counted); the take that needed them is dropped later.
public final class InputCapture: @unchecked Sendable {
    public let channelCount: Int
    /// Input blocks for the take writer (1024 frames each; 512 blocks: 10.9 s at 48 kHz).
    public let blocks: BlockRing
    /// The input level, one record per cycle (the "pre" stage: the inputs; no "post").
    public let meters: MeterRing
    /// Copy the input into `blocks` (recording armed). The probe copies regardless.
    public let armed = Atomic<Bool>(false)
    /// Blocks the ring had no room for (the writer is behind).
    public let droppedBlocks = Atomic<Int>(0)
    /// Output frames (the tag's count) of the last cycle: the writer's "now".
    public let lastTag = Atomic<Int>(-1)
    /// Xruns the server reported, counted by the cycles that saw them (the take writer compares),
    /// and the tag from which the last one may have misplaced input.
    public let reportedDisturbances = Atomic<Int>(0)
    public let reportedDisturbanceTag = Atomic<Int>(0)
    /// How far back an xrun report may have come from (170 ms at 48 kHz).
    public static let reportLatencyFrames = 8192

    /// The probe: written over every output from the cycle after `probeRequested` rises; its first
    /// frame's tag is published in `probeStartTag` (−1 until it started), then `probeRequested`
    /// falls when it has all been played.
    public let probe: UnsafeMutablePointer<Float>
    public let probeFrameCount: Int
    public let probeRequested = Atomic<Bool>(false)
    public let probeStartTag = Atomic<Int>(-1)
    private var probePosition = -1
    /// Disturbances so far (the real-time thread's own count; the blocks' generation).
    private var disturbances: UInt32 = 0

    public init(channelCount: Int, probe signal: [Float]) {
        self.channelCount = channelCount
        blocks = BlockRing(channelCount: channelCount, blockFrames: 1024, blockCount: 512)
        meters = MeterRing(preChannels: channelCount, postChannels: 0)
        probeFrameCount = signal.count
        probe = .allocate(capacity: max(1, signal.count))
        probe.initialize(repeating: 0, count: max(1, signal.count))
        for (index, value) in signal.enumerated() { probe[index] = value }
    }

    deinit { probe.deallocate() }

    /// Real-time thread, after the outputs are written. `tag`: the engine output frame the outputs'
    /// first frame carries this cycle. `disturbed`: this cycle broke the outputs' continuity in the
    /// server's time (silence for want of frames, or cycles the server skipped before it).
    @inline(__always)
    public func process(inputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputs: UnsafePointer<UnsafeMutablePointer<Float>>,
                 outputCount: Int, frameCount: Int, tag: Int, disturbed: Bool = false, reported: Bool = false) {
        if disturbed { disturbances &+= 1 }
        if reported {
            reportedDisturbanceTag.store(tag &- Self.reportLatencyFrames, ordering: .relaxed)
            reportedDisturbances.add(1, ordering: .releasing)
        }
        playProbe(outputs, outputCount: outputCount, frameCount: frameCount, tag: tag)
        meters.measure(inputs, channels: channelCount, first: 0, frameCount: frameCount)
        _ = meters.publish(frameCount: frameCount)
        var copy = armed.load(ordering: .relaxed)
        if probePosition >= 0 { copy = true }
        if probeStartTag.load(ordering: .relaxed) >= 0 { copy = true }  // until the calibrator has seen the probe come back
        if copy { store(inputs, frameCount: frameCount, tag: tag) }
        lastTag.store(tag &+ frameCount, ordering: .releasing)
    }

    @inline(__always)
    private func playProbe(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, frameCount: Int, tag: Int) {
        if probePosition < 0 {
            guard probeRequested.load(ordering: .acquiring), probeStartTag.load(ordering: .relaxed) < 0 else { return }
            probePosition = 0
            probeStartTag.store(tag, ordering: .releasing)
        }
        let n = min(frameCount, probeFrameCount - probePosition)
        for channel in 0..<outputCount {
            for i in 0..<n { outputs[channel][i] = probe[probePosition + i] }
            for i in n..<frameCount { outputs[channel][i] = 0 }
        }
        probePosition += n
        if probePosition >= probeFrameCount {
            probePosition = -1
            probeRequested.store(false, ordering: .releasing)
        }
    }

    @inline(__always)
    private func store(_ inputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, tag: Int) {
        var done = 0
        while done < frameCount {
            guard let slot = blocks.writableSlot() else {
                droppedBlocks.add(1, ordering: .relaxed)
                return
            }
            let n = min(blocks.blockFrames, frameCount - done)
            for channel in 0..<channelCount {
                let destination = blocks.channel(channel, ofSlot: slot)
                for i in 0..<n { destination[i] = inputs[channel][done + i] }
            }
            blocks.publish(BlockTag(startFrame: tag &+ done, frameCount: n, generation: disturbances))
            done += n
        }
    }
}
