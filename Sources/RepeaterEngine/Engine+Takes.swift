/// A take to hear back (`take play`): planar frames made on the control thread, handed to the
/// audio thread by pointer in an `EngineCommand.compare`, and handed back to be freed
/// (`Engine.usedTakes`). The audio thread only reads it.
public struct TakeAudio: ~Copyable, @unchecked Sendable {
    public let channelCount: Int
    public let frameCount: Int
    let samples: UnsafeMutablePointer<Float>

    /// `channels`: planar, all the same length.
    public init(channels: [[Float]]) {
        channelCount = max(1, channels.count)
        frameCount = channels.first?.count ?? 0
        samples = .allocate(capacity: max(1, channelCount * frameCount))
        samples.initialize(repeating: 0, count: max(1, channelCount * frameCount))
        for (channel, values) in channels.enumerated() {
            for (index, value) in values.prefix(frameCount).enumerated() { samples[channel * frameCount + index] = value }
        }
    }

    deinit { samples.deallocate() }

    @inline(__always)
    func sample(channel: Int, frame: Int) -> Float { samples[min(channel, channelCount - 1) * frameCount + frame] }

    /// Control thread: the take on the heap, as the engine takes it (its address, as bits).
    public static func handOver(_ take: consuming TakeAudio) -> UInt {
        let pointer = UnsafeMutablePointer<TakeAudio>.allocate(capacity: 1)
        pointer.initialize(to: take)
        return UInt(bitPattern: pointer)
    }

    /// Control thread: frees a take the engine handed back (or one never handed over).
    public static func free(_ bits: UInt) {
        guard let pointer = UnsafeMutablePointer<TakeAudio>(bitPattern: bits) else { return }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// How the engine plays a take against the recording (`EngineCommand.compare`).
public enum TakeCompare: Int, BitwiseCopyable, Sendable {
    /// A pass of the recording, then a pass of the take (the recording silent), and so on.
    case alternate = 0
    /// Every pass: the recording and the take together.
    case both = 1
    /// Every pass: the take alone.
    case take = 2
}

/// Hearing a take beside the recording. A take is in output time: its frame k goes with the output
/// frame k after its anchor as heard, the start of a pass (a take of a pass) or the start of the
/// gap after it (an answer in a drill). The anchors are the marks the engine already places for
/// wraps, so a take lines up with the stretched pass at any speed the take was made at. It is mixed
/// after the isolation and the EQ (the take is already what was heard), before volume and pan.
extension Engine {
    func takeCompare(bits: UInt, mode: TakeCompare, atGap: Bool, pan: Float) {
        dropTake()
        guard let take = UnsafeMutablePointer<TakeAudio>(bitPattern: bits) else { return }
        takeTrack = take
        takeMode = mode
        takeAtGap = atGap
        takePan = max(0, min(1, pan))
        takeStart = Int.min / 2
        earlierTakeStart = Int.min / 2
        takeHeardPasses = 0
    }

    /// Back to the recording alone; the take goes back to be freed.
    func dropTake() {
        guard let take = takeTrack else { return }
        if !usedTakes.push(UInt(bitPattern: take)) { status.lostRequests.add(1, ordering: .relaxed) }
        controlWorkPending = true
        takeTrack = nil
        takeStart = Int.min / 2
        earlierTakeStart = Int.min / 2
    }

    /// A new window for the take starts; the one before it may still have frames due in this cycle
    /// (the next pass's mark is reached while the cycle renders, before the take is mixed).
    private func startTakeWindow(at frame: Int, muting: Bool) {
        earlierTakeStart = takeStart
        earlierTakeMuting = takeMuting
        takeStart = frame
        takeMuting = muting
    }

    /// A pass starts being heard at engine output frame `outputFrame`: a take of passes starts there
    /// (every pass, or every other one when alternating).
    func takeAtPassStart(outputFrame: Int) {
        guard takeTrack != nil, !takeAtGap else { return }
        takeHeardPasses &+= 1
        var muting = takeMode == .take
        if takeMode == .alternate {
            if takeHeardPasses % 2 == 1 { return }  // the recording's pass first
            muting = true
        }
        startTakeWindow(at: outputFrame &+ isolationDelay, muting: muting)
    }

    /// A gap starts being heard at engine output frame `outputFrame`: an answer plays in it.
    func takeAtGapStart(outputFrame: Int) {
        guard takeTrack != nil, takeAtGap else { return }
        startTakeWindow(at: outputFrame &+ isolationDelay, muting: false)
    }

    /// Mixes (or, muting the recording, puts) the take's frames due in this cycle into the outputs.
    @inline(__always)
    func mixTake(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard let take = takeTrack else { return }
        mixTakeWindow(take, start: earlierTakeStart, muting: earlierTakeMuting, outputs, frameCount: frameCount)
        mixTakeWindow(take, start: takeStart, muting: takeMuting, outputs, frameCount: frameCount)
    }

    @inline(__always)
    private func mixTakeWindow(_ take: UnsafeMutablePointer<TakeAudio>, start: Int, muting: Bool,
                               _ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let length = take.pointee.frameCount
        let first = max(0, start &- renderedFrames)
        let last = min(frameCount, start &+ length &- renderedFrames)
        if first >= last { return }
        let recordingWeight: Float = muting ? 0 : 1
        let outputs2 = outputChannelCount
        for i in first..<last {
            let k = renderedFrames &+ i &- start
            for channel in 0..<outputs2 {
                let mine = take.pointee.sample(channel: channel, frame: k)
                var recording = outputs[channel][i] * recordingWeight
                var takeWeight: Float = 1
                if takeMode == .both, outputs2 == 2 {
                    // 0: both in both channels; 1: the recording left, the take right.
                    if channel == 0 { takeWeight = 1 - takePan } else { recording *= 1 - takePan }
                }
                outputs[channel][i] = recording + mine * takeWeight
            }
        }
    }
}
