/// Audio → analysis: a mono copy of what is heard (after the stretcher and the isolation, before
/// volume and pan), for the note view. A single-producer/single-consumer ring of Floats; the audio
/// thread writes each cycle what fits and drops the rest (counted): the view is lossy by design,
/// it never holds the audio thread up.
public struct TapRing: ~Copyable, @unchecked Sendable {
    let indices: RingIndices
    let storage: UnsafeMutablePointer<Float>
    /// Frames the audio thread had to drop because the reader was behind.
    public let dropped = Atomic<Int>(0)

    /// `capacity`: a power of two.
    public init(capacity: Int) {
        indices = RingIndices(capacity: capacity)
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Real-time thread. Writes the mean of `channelCount` planar buffers, `frameCount` frames.
    @inline(__always)
    func write(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        let room = indices.writableCount()
        let n = min(room, frameCount)
        if n < frameCount { dropped.add(frameCount - n, ordering: .relaxed) }
        if n == 0 { return }
        let position = indices.producerPosition()
        let scale = 1 / Float(max(1, channelCount))
        for i in 0..<n {
            var sum: Float = 0
            for channel in 0..<channelCount { sum += buffers[channel][i] }
            storage[(position &+ i) & indices.mask] = sum * scale
        }
        indices.commitWrite(n)
    }

    /// Analysis thread. Everything written since the last call (oldest first), appended to `into`.
    public func drain(into frames: inout [Float]) {
        let n = indices.readableCount()
        guard n > 0 else { return }
        let position = indices.consumerPosition()
        frames.reserveCapacity(frames.count + n)
        for i in 0..<n { frames.append(storage[(position &+ i) & indices.mask]) }
        indices.commitRead(n)
    }
}

import Synchronization
