/// The beats the metronome clicks on, in source frames, sorted, each marked when it starts a bar:
/// made on the control thread from the recording's map, handed to the audio thread by pointer
/// (`Engine.beatTables`), and handed back to be freed (`Engine.usedBeatTables`). The audio thread
/// only reads it; it never allocates or frees one.
public struct BeatTable: ~Copyable, @unchecked Sendable {
    public let count: Int
    let frames: UnsafeMutablePointer<Int>
    let accents: UnsafeMutablePointer<Bool>

    /// `frames` sorted ascending; `downbeats` a subset of them (the accented clicks).
    public init(frames: [Int], downbeats: Set<Int>) {
        count = frames.count
        self.frames = .allocate(capacity: max(1, frames.count))
        accents = .allocate(capacity: max(1, frames.count))
        for (index, frame) in frames.enumerated() {
            self.frames[index] = frame
            accents[index] = downbeats.contains(frame)
        }
    }

    deinit {
        frames.deallocate()
        accents.deallocate()
    }

    /// The index of the first beat at or after `frame` (`count` when none).
    func firstIndex(atOrAfter frame: Int) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if frames[middle] < frame { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The beat nearest `frame` (with `accented`, the nearest that starts a bar), or `frame` when
    /// there is none. Real-time thread: a binary search and a bounded walk.
    func nearest(to frame: Int, accented: Bool) -> Int {
        let after = firstIndex(atOrAfter: frame)
        var best = -1
        var below = after - 1
        var above = after
        // Walk outwards from the frame; with `accented`, a bar lies within 64 beats or is not there.
        for _ in 0..<64 {
            if below >= 0, !accented || accents[below] { best = below; break }
            below -= 1
        }
        for _ in 0..<64 {
            if above < count, !accented || accents[above] {
                if best < 0 || frames[above] - frame < frame - frames[best] { best = above }
                break
            }
            above += 1
        }
        return best >= 0 ? frames[best] : frame
    }

    /// Control thread: a table on the heap, as the engine takes it (its address, as bits).
    public static func handOver(_ table: consuming BeatTable) -> UInt {
        let pointer = UnsafeMutablePointer<BeatTable>.allocate(capacity: 1)
        pointer.initialize(to: table)
        return UInt(bitPattern: pointer)
    }

    /// Control thread: frees a table the engine handed back.
    public static func free(_ bits: UInt) {
        guard let pointer = UnsafeMutablePointer<BeatTable>(bitPattern: bits) else { return }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
