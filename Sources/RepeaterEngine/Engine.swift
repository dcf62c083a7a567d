/// The real-time engine: pulls tagged source frames from the disk reader's `BlockRing`, follows the
/// control thread's commands, and writes one output buffer per channel.
///
/// Everything in `render` runs on the audio thread (JACK's process callback, or the offline renderer
/// standing in for it): it never allocates, locks, blocks or prints. All memory is set up in `init`.
/// Thread roles of the members:
/// - `blocks`: produced by the disk reader, consumed here;
/// - `commands`: produced by the control thread, consumed here;
/// - `readerRequests`: produced here, consumed by the disk reader;
/// - `events`, `status`: produced here, read by the control thread.
public final class Engine: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var channelCount: Int
        /// The source frame playback starts at (the disk reader must start there too, generation 0).
        public var startFrame: Int
        public var blockFrames: Int
        /// A power of two.
        public var blockCount: Int
        /// Length of the fade used for pause, resume, seek and recovery from an underrun.
        public var declickFrames: Int

        public init(channelCount: Int, startFrame: Int = 0, blockFrames: Int = 2048, blockCount: Int = 64,
                    declickFrames: Int = 256) {
            self.channelCount = channelCount
            self.startFrame = startFrame
            self.blockFrames = blockFrames
            self.blockCount = blockCount
            self.declickFrames = declickFrames
        }
    }

    public let configuration: Configuration
    public let channelCount: Int
    public let blocks: BlockRing
    public let commands = SPSCRing<EngineCommand>(capacity: 256)
    public let readerRequests = SPSCRing<ReaderRequest>(capacity: 64)
    public let events = SPSCRing<EngineEvent>(capacity: 1024)
    public let status: EngineStatus

    // ---- audio-thread state ----
    private var playhead: Int
    private var generation: UInt32 = 0
    /// Storage slot of the block being read, or -1.
    private var currentSlot = -1
    private var currentTag = BlockTag(startFrame: 0, frameCount: 0, generation: 0)
    private var offsetInBlock = 0
    private var sourceEnded = false
    /// A seek was passed to the reader and its first block has not arrived: silence, not an underrun.
    private var awaitingSeekData = false
    private var finishedReported = false
    private var wantPlaying = true
    private var pendingSeek = -1
    /// Gain of the declick ramp, in steps of 1/declickFrames: 0 = silent, declickFrames = unity.
    private var rampPosition: Int
    private var cycle = 0
    private var renderedFrames = 0

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        channelCount = configuration.channelCount
        blocks = BlockRing(channelCount: configuration.channelCount, blockFrames: configuration.blockFrames,
                           blockCount: configuration.blockCount)
        playhead = configuration.startFrame
        status = EngineStatus(startFrame: configuration.startFrame)
        rampPosition = configuration.declickFrames
    }

    #if REPEATER_PERFORMANCE_CHECKS
    /// Real-time thread. Renders `frameCount` frames into `outputs[0..<channelCount]`.
    ///
    /// At unity gain (no fade in progress) every output frame is a source frame copied bit for bit.
    ///
    /// `@_noLocks`: the compiler proves that nothing reachable from here locks, allocates through
    /// reference counting, or calls unspecialized generics. It can only see through calls when it
    /// compiles the whole module at once, which SwiftPM does in release builds; the debug build
    /// relies on the run-time allocation/lock counter tests instead.
    @_noLocks
    public func render(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        renderCycle(frameCount: frameCount, outputs: outputs)
    }
    #else
    /// Real-time thread. Renders `frameCount` frames into `outputs[0..<channelCount]`.
    /// (The release build carries the compiler-checked `@_noLocks` variant.)
    public func render(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        renderCycle(frameCount: frameCount, outputs: outputs)
    }
    #endif

    @inline(__always)
    private func renderCycle(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        takeCommands()
        var done = 0
        while done < frameCount {
            let up = rampingUp
            if rampPosition == 0, !up {
                if pendingSeek >= 0 {
                    performSeek(to: pendingSeek)
                    continue
                }
                silence(outputs, from: done, count: frameCount - done)
                done = frameCount
                break
            }
            var wanted = frameCount - done
            if !up { wanted = min(wanted, rampPosition) }  // stop consuming once faded out
            let got = pull(into: outputs, at: done, count: wanted)
            if got > 0 {
                applyRamp(outputs, from: done, count: got)
                done += got
            }
            if got < wanted {
                silence(outputs, from: done, count: frameCount - done)
                if sourceEnded {
                    if !finishedReported {
                        finishedReported = true
                        status.finishedCycle.store(cycle, ordering: .relaxed)
                        post(.finished(frame: playhead, cycle: cycle, outputFrame: renderedFrames &+ done))
                    }
                } else if awaitingSeekData {
                    rampPosition = 0
                } else {
                    status.underruns.add(1, ordering: .relaxed)
                    post(.underrun(frame: playhead))
                    rampPosition = 0  // fade back in when the data arrives
                }
                done = frameCount
            }
        }
        renderedFrames &+= frameCount
        status.playheadFrame.store(playhead, ordering: .relaxed)
        status.renderedFrames.store(renderedFrames, ordering: .relaxed)
        cycle &+= 1
        status.cycles.store(cycle, ordering: .relaxed)
    }

    /// Fading (or faded) in: playing and no seek waiting for the fade out.
    private var rampingUp: Bool {
        if !wantPlaying { return false }
        return pendingSeek < 0
    }

    private func takeCommands() {
        while let command = commands.pop() {
            switch command {
            case .play: wantPlaying = true
            case .pause: wantPlaying = false
            case .toggle: wantPlaying.toggle()
            case .seek(let frame): pendingSeek = max(0, frame)
            }
        }
        status.playing.store(wantPlaying, ordering: .relaxed)
    }

    private func performSeek(to frame: Int) {
        pendingSeek = -1
        generation &+= 1
        playhead = frame
        if currentSlot >= 0 {
            blocks.release()
            currentSlot = -1
        }
        sourceEnded = false
        awaitingSeekData = true
        finishedReported = false
        status.finishedCycle.store(-1, ordering: .relaxed)
        if !readerRequests.push(.seek(frame: frame, generation: generation)) {
            status.lostRequests.add(1, ordering: .relaxed)
        }
        post(.seeked(frame: frame))
    }

    /// Copies up to `count` source frames in order into the outputs at `offset`; returns how many.
    /// Fewer means the ring ran dry (or the source ended: `sourceEnded`).
    private func pull(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        var got = 0
        while got < count {
            if currentSlot < 0 {
                guard let slot = blocks.readableSlot() else { break }
                let tag = blocks.tag(ofSlot: slot)
                if tag.generation != generation {
                    blocks.release()
                    status.staleBlocks.add(1, ordering: .relaxed)
                    continue
                }
                if tag.isEnd {
                    blocks.release()
                    sourceEnded = true
                    break
                }
                currentSlot = slot
                currentTag = tag
                awaitingSeekData = false
                let offset = playhead - tag.startFrame  // 0 unless the reader started mid-block
                offsetInBlock = offset
                if !(0..<tag.frameCount).contains(offset) {
                    blocks.release()
                    currentSlot = -1
                    status.staleBlocks.add(1, ordering: .relaxed)
                    continue
                }
            }
            let take = min(count - got, currentTag.frameCount - offsetInBlock)
            for channel in 0..<channelCount {
                let source = blocks.channel(channel, ofSlot: currentSlot) + offsetInBlock
                UnsafeMutableRawPointer(outputs[channel] + offset + got)
                    .copyMemory(from: source, byteCount: take * MemoryLayout<Float>.stride)
            }
            got += take
            playhead += take
            offsetInBlock += take
            if offsetInBlock == currentTag.frameCount {
                blocks.release()
                currentSlot = -1
            }
        }
        return got
    }

    /// Applies the declick ramp to frames just written, advancing it one step per frame.
    private func applyRamp(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count: Int) {
        let length = configuration.declickFrames
        let up = rampingUp
        if up, rampPosition == length { return }  // unity: leave the frames bit-exact
        let scale = 1 / Float(length)
        for i in 0..<count {
            if up { rampPosition = min(length, rampPosition + 1) } else { rampPosition = max(0, rampPosition - 1) }
            let gain = Float(rampPosition) * scale
            for channel in 0..<channelCount { outputs[channel][offset + i] *= gain }
        }
    }

    private func silence(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count: Int) {
        guard count > 0 else { return }
        for channel in 0..<channelCount {
            let output = outputs[channel] + offset
            for i in 0..<count { output[i] = 0 }
        }
    }

    private func post(_ event: EngineEvent) {
        if !events.push(event) { status.lostEvents.add(1, ordering: .relaxed) }
    }
}
