/// A lock-free single-producer/single-consumer queue of plain values (commands, events, requests).
///
/// One thread may push and one other thread may pop; nothing allocates after `init`. Elements are
/// copied one by one (not with bulk `update(from:)`), which keeps the thread sanitizer able to see
/// every access.
///
/// A non-copyable struct so that its owner (the `Engine`) holds it inline: the audio thread reaches it
/// without reference counting.
public struct SPSCRing<Element: BitwiseCopyable>: ~Copyable, @unchecked Sendable {
    public let indices: RingIndices
    @usableFromInline let storage: UnsafeMutablePointer<Element>

    /// `capacity` is rounded up to a power of two.
    public init(capacity: Int, startingAt start: Int = 0) {
        let size = capacity <= 1 ? 1 : 1 << (Int.bitWidth - (capacity - 1).leadingZeroBitCount)
        indices = RingIndices(capacity: size, startingAt: start)
        storage = UnsafeMutablePointer<Element>.allocate(capacity: size)
    }

    deinit { storage.deallocate() }

    public var capacity: Int { indices.capacity }

    /// Producer. Appends `value`; returns false (and changes nothing) when the ring is full.
    @_transparent
    @discardableResult
    public func push(_ value: Element) -> Bool {
        guard indices.writableCount() > 0 else { return false }
        (storage + (indices.producerPosition() & indices.mask)).initialize(to: value)
        indices.commitWrite(1)
        return true
    }

    /// Consumer. Removes and returns the oldest value, or nil when the ring is empty.
    @_transparent
    public func pop() -> Element? {
        guard indices.readableCount() > 0 else { return nil }
        let value = storage[indices.consumerPosition() & indices.mask]
        indices.commitRead(1)
        return value
    }

    /// Consumer. The number of values waiting.
    public var count: Int { indices.readableCount() }

    /// Consumer. Reads up to `count` values into `destination` in order, as two contiguous segments
    /// of the storage (before and after the physical end), element by element.
    public func pop(into destination: UnsafeMutablePointer<Element>, count: Int) -> Int {
        let n = min(count, indices.readableCount())
        if n == 0 { return 0 }
        let start = indices.consumerPosition() & indices.mask
        let first = min(n, indices.capacity - start)
        for i in 0..<first { (destination + i).initialize(to: storage[start + i]) }
        for i in 0..<(n - first) { (destination + first + i).initialize(to: storage[i]) }
        indices.commitRead(n)
        return n
    }
}
