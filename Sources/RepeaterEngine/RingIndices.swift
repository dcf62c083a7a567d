import Synchronization

/// The two free-running counters of a single-producer/single-consumer ring.
///
/// `written` counts elements ever published by the producer, `read` elements ever released by the
/// consumer. Both only grow (wrapping at `Int.max`, which `&+`/`&-` make harmless), so
/// `written &- read` is always the fill level and `counter & mask` the storage index. The capacity is
/// a power of two so that the mask works across the wrap of the counters too.
///
/// Orderings: the producer writes element memory, then *releases* `written`; the consumer *acquires*
/// `written` before reading that memory. Symmetrically the consumer *releases* `read` after it has
/// finished with a slot, and the producer *acquires* `read` before reusing it. Each side loads its
/// own counter relaxed: only it ever stores to it.
public struct RingIndices: ~Copyable, @unchecked Sendable {
    public let capacity: Int
    public let mask: Int
    @usableFromInline let written: Atomic<Int>
    @usableFromInline let read: Atomic<Int>

    /// `capacity` must be a power of two. `startingAt` lets white-box tests put the counters anywhere,
    /// for example just below `Int.max`.
    public init(capacity: Int, startingAt start: Int = 0) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "ring capacity must be a power of two")
        self.capacity = capacity
        self.mask = capacity - 1
        self.written = Atomic(start)
        self.read = Atomic(start)
    }

    // MARK: producer side

    /// Producer. The counter of the next element to write.
    @inline(__always)
    public func producerPosition() -> Int { written.load(ordering: .relaxed) }

    /// Producer. How many elements can be written now.
    @inline(__always)
    public func writableCount() -> Int {
        let w = written.load(ordering: .relaxed)
        // Acquire: the consumer is done with every slot below `read`.
        let r = read.load(ordering: .acquiring)
        return capacity - (w &- r)
    }

    /// Producer. Publishes `count` elements written at the producer position.
    @inline(__always)
    public func commitWrite(_ count: Int) {
        let w = written.load(ordering: .relaxed)
        // Release: the element memory written before this store is visible to a consumer that
        // acquires the new counter.
        written.store(w &+ count, ordering: .releasing)
    }

    // MARK: consumer side

    /// Consumer. The counter of the next element to read.
    @inline(__always)
    public func consumerPosition() -> Int { read.load(ordering: .relaxed) }

    /// Consumer. How many elements can be read now.
    @inline(__always)
    public func readableCount() -> Int {
        let r = read.load(ordering: .relaxed)
        // Acquire: pairs with the producer's release in `commitWrite`.
        let w = written.load(ordering: .acquiring)
        return w &- r
    }

    /// Consumer. Releases `count` elements back to the producer.
    @inline(__always)
    public func commitRead(_ count: Int) {
        let r = read.load(ordering: .relaxed)
        // Release: our reads of the slots happen before the producer may overwrite them.
        read.store(r &+ count, ordering: .releasing)
    }
}
