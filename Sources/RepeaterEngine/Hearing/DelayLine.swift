/// The most recent `capacity` frames of a planar stream, addressed by absolute frame index (frames
/// written since the start): the isolator's input history, read back delayed by its latency and,
/// when a mode starts, for the frames that prime its filters and its overlap-add.
struct DelayLine: ~Copyable, @unchecked Sendable {
    let channelCount: Int
    /// A power of two.
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Float>
    /// The absolute index of the next frame to be written (frames written so far).
    private(set) var endFrame = 0

    /// Control thread. Holds at least `minimumFrames` frames; starts as silence.
    init(channelCount: Int, minimumFrames: Int) {
        self.channelCount = channelCount
        var capacity = 1
        while capacity < minimumFrames { capacity <<= 1 }
        self.capacity = capacity
        mask = capacity - 1
        storage = .allocate(capacity: capacity * channelCount)
        storage.initialize(repeating: 0, count: capacity * channelCount)
    }

    deinit { storage.deallocate() }

    /// Real-time thread. Appends `count` frames from `buffers[c][offset...]`.
    @inline(__always)
    mutating func write(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, count: Int) {
        let start = endFrame & mask
        let first = min(count, capacity - start)
        for channel in 0..<channelCount {
            let source = buffers[channel] + offset
            let line = storage + channel * capacity
            copySamples(source, to: line + start, count: first)
            if first < count { copySamples(source + first, to: line, count: count - first) }
        }
        endFrame &+= count
    }

    /// Real-time thread. Copies `count` frames of `channel` from absolute frame `start` into
    /// `destination`. The frames must still be held: `endFrame - capacity <= start` and
    /// `start + count <= endFrame` (frames before the first write read as silence).
    @inline(__always)
    func read(channel: Int, from start: Int, count: Int, into destination: UnsafeMutablePointer<Float>) {
        let line = storage + channel * capacity
        let first = start & mask
        let head = min(count, capacity - first)
        copySamples(line + first, to: destination, count: head)
        if head < count { copySamples(line, to: destination + head, count: count - head) }
    }
}
