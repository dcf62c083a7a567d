/// What a block of source frames in the `BlockRing` is.
public struct BlockTag: BitwiseCopyable, Equatable, Sendable {
    /// The source (file) frame of the block's first frame.
    public var startFrame: Int
    /// How many frames the block holds (0 for an end marker).
    public var frameCount: Int
    /// The read generation the block belongs to; the engine skips blocks of an older generation.
    public var generation: UInt32
    /// The source ends at `startFrame`: nothing follows in this generation.
    public var isEnd: Bool

    public init(startFrame: Int, frameCount: Int, generation: UInt32, isEnd: Bool = false) {
        self.startFrame = startFrame
        self.frameCount = frameCount
        self.generation = generation
        self.isEnd = isEnd
    }
}

/// The disk → audio hand-off: a single-producer/single-consumer ring of fixed-size blocks of
/// planar (one buffer per channel) frames, each tagged with its source position and generation.
///
/// The producer (disk reader) fills the slot `writableSlot()` returns and then `publish`es it with
/// its tag; the consumer (audio thread) reads `readableSlot()` and `release()`s it. All memory is
/// allocated and touched in `init`; nothing allocates afterwards.
public struct BlockRing: ~Copyable, @unchecked Sendable {
    public let channelCount: Int
    public let blockFrames: Int
    public let indices: RingIndices
    private let samples: UnsafeMutablePointer<Float>
    private let tags: UnsafeMutablePointer<BlockTag>

    /// `blockCount` must be a power of two.
    public init(channelCount: Int, blockFrames: Int, blockCount: Int, startingAt start: Int = 0) {
        precondition(channelCount > 0 && blockFrames > 0)
        self.channelCount = channelCount
        self.blockFrames = blockFrames
        indices = RingIndices(capacity: blockCount, startingAt: start)
        let total = blockCount * channelCount * blockFrames
        samples = UnsafeMutablePointer<Float>.allocate(capacity: total)
        samples.initialize(repeating: 0, count: total)  // touch every page before real-time use
        tags = UnsafeMutablePointer<BlockTag>.allocate(capacity: blockCount)
        tags.initialize(repeating: BlockTag(startFrame: 0, frameCount: 0, generation: 0), count: blockCount)
    }

    deinit {
        samples.deallocate()
        tags.deallocate()
    }

    public var blockCount: Int { indices.capacity }

    /// Either side. The first sample of `channel` in storage slot `slot`.
    @inline(__always)
    public func channel(_ channel: Int, ofSlot slot: Int) -> UnsafeMutablePointer<Float> {
        samples + (slot * channelCount + channel) * blockFrames
    }

    // MARK: producer

    /// Producer. The storage slot to fill next, or nil when the ring is full.
    @inline(__always)
    public func writableSlot() -> Int? {
        indices.writableCount() > 0 ? indices.producerPosition() & indices.mask : nil
    }

    /// Producer. Publishes the slot returned by `writableSlot()` with its tag.
    @inline(__always)
    public func publish(_ tag: BlockTag) {
        tags[indices.producerPosition() & indices.mask] = tag
        indices.commitWrite(1)
    }

    /// Producer. How many blocks may be written now.
    public var writableCount: Int { indices.writableCount() }

    // MARK: consumer

    /// Consumer. The storage slot of the oldest published block, or nil when none is waiting.
    @inline(__always)
    public func readableSlot() -> Int? {
        indices.readableCount() > 0 ? indices.consumerPosition() & indices.mask : nil
    }

    /// Consumer. The tag of a slot returned by `readableSlot()`.
    @inline(__always)
    public func tag(ofSlot slot: Int) -> BlockTag { tags[slot] }

    /// Consumer. Gives the oldest block back to the producer.
    @inline(__always)
    public func release() { indices.commitRead(1) }

    /// Consumer. The storage slot of the `index`-th waiting block (0 is the oldest), or nil.
    @inline(__always)
    public func readableSlot(at index: Int) -> Int? {
        index < indices.readableCount() ? (indices.consumerPosition() &+ index) & indices.mask : nil
    }

    /// Consumer. How many blocks are waiting.
    public var readableCount: Int { indices.readableCount() }
}
