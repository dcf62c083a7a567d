/// Storage for the loop-head cache: a few slots, each holding up to `slotFrames` planar frames of
/// the source from some loop start A onward, so that the wrap from B to A never waits for the disk.
///
/// Ownership is handed over by messages, never shared: the engine picks a slot it is not reading and
/// asks the disk reader to fill it (`ReaderRequest.loadHead`); the reader fills it and answers with a
/// `HeadLoaded` message; only then does the engine read it. All memory is allocated and touched in
/// `init`.
public struct LoopHeadCache: ~Copyable, @unchecked Sendable {
    public let slotCount: Int
    public let slotFrames: Int
    public let channelCount: Int
    private let samples: UnsafeMutablePointer<Float>

    public init(slotCount: Int, slotFrames: Int, channelCount: Int) {
        self.slotCount = slotCount
        self.slotFrames = max(1, slotFrames)
        self.channelCount = channelCount
        let total = slotCount * self.slotFrames * channelCount
        samples = .allocate(capacity: total)
        samples.initialize(repeating: 0, count: total)
    }

    deinit { samples.deallocate() }

    /// Either side, following the hand-over protocol above. The first sample of `channel` in `slot`.
    @inline(__always)
    public func channel(_ channel: Int, ofSlot slot: Int) -> UnsafeMutablePointer<Float> {
        samples + (slot * channelCount + channel) * slotFrames
    }
}

/// Disk reader → audio: a head slot has been filled.
public struct HeadLoaded: BitwiseCopyable, Sendable, Equatable {
    public var slot: Int
    /// The source frame of the slot's first frame (the loop start A it was asked for).
    public var frame: Int
    /// Frames present (fewer than asked near the end of the file).
    public var frameCount: Int

    public init(slot: Int, frame: Int, frameCount: Int) {
        self.slot = slot
        self.frame = frame
        self.frameCount = frameCount
    }
}
