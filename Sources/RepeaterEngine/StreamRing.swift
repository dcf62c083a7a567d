/// Audio thread only: the pulled stream (source frames after the loop's wraps and gaps), planar, by
/// stream index, kept while a stretcher runs or is being prepared.
///
/// It holds what stretchers are fed from (the running one, and a fresh one pre-rolled with the
/// frames before the switch point), the frames pulled ahead of a bypass that plays through it, and
/// the raw frames a stretcher has been fed but not yet played, so that leaving the stretcher can
/// continue with exactly those. A fixed power-of-two capacity, allocated and touched in `init`.
struct StreamRing: ~Copyable {
    let channelCount: Int
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Planar pointers into `storage` handed out for one contiguous run.
    let run: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// The stream index after the last frame written (kept behind a pointer so that the ring, held
    /// by the engine as a `let`, needs no exclusive access on the audio thread).
    private let endStorage: UnsafeMutablePointer<Int>
    var end: Int { endStorage.pointee }

    init(channelCount: Int, capacity: Int) {
        self.channelCount = channelCount
        self.capacity = capacity
        mask = capacity - 1
        precondition(capacity & mask == 0, "a power of two")
        storage = .allocate(capacity: capacity * channelCount)
        storage.initialize(repeating: 0, count: capacity * channelCount)
        run = .allocate(capacity: channelCount)
        run.initialize(repeating: storage, count: channelCount)
        endStorage = .allocate(capacity: 1)
        endStorage.initialize(to: 0)
    }

    deinit {
        storage.deallocate()
        run.deallocate()
        endStorage.deallocate()
    }

    /// The oldest stream index still held.
    var start: Int { max(0, end - capacity) }

    /// Starts over at `index` (nothing held).
    func reset(at index: Int) { endStorage.pointee = index }

    /// Appends `count` frames from planar `source` at `offset`; the stream's end moves on.
    func append(_ source: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, count: Int) {
        var done = 0
        while done < count {
            let slot = (end + done) & mask
            let n = min(count - done, capacity - slot)
            for channel in 0..<channelCount {
                UnsafeMutableRawPointer(storage + channel * capacity + slot)
                    .copyMemory(from: source[channel] + offset + done, byteCount: n * MemoryLayout<Float>.stride)
            }
            done += n
        }
        endStorage.pointee += count
    }

    /// Points `run` at the frames from `index` on; returns how many are contiguous (at most `limit`).
    func contiguous(from index: Int, limit: Int) -> Int {
        let slot = index & mask
        for channel in 0..<channelCount { run[channel] = storage + channel * capacity + slot }
        return min(min(limit, capacity - slot), end - index)
    }

    /// Copies `count` frames from stream index `index` into planar `destination` at `offset`.
    func copy(from index: Int, count: Int, into destination: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int) {
        var done = 0
        while done < count {
            let slot = (index + done) & mask
            let n = min(count - done, capacity - slot)
            for channel in 0..<channelCount {
                UnsafeMutableRawPointer(destination[channel] + offset + done)
                    .copyMemory(from: storage + channel * capacity + slot, byteCount: n * MemoryLayout<Float>.stride)
            }
            done += n
        }
    }
}
