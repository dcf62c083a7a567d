/// Audio thread only. Which source frame each output frame carried, as runs: the answer to "what
/// does the listener hear now?" when the output reaching the speakers left the engine a few periods
/// ago, possibly before a wrap, a gap or a seek.
///
/// A fixed ring of runs; a run is extended while output and source both continue. Silence (gap,
/// pause, underrun) is a run whose source does not advance: it maps to the frame that plays next.
struct OutputLog: ~Copyable {
    private let outputStarts: UnsafeMutablePointer<Int>
    private let sourceStarts: UnsafeMutablePointer<Int>
    private let silent: UnsafeMutablePointer<Bool>
    private let capacity: Int
    private var count = 0
    private var newest = -1
    private var nextOutput = 0

    init(capacity: Int) {
        self.capacity = capacity
        outputStarts = .allocate(capacity: capacity)
        outputStarts.initialize(repeating: 0, count: capacity)
        sourceStarts = .allocate(capacity: capacity)
        sourceStarts.initialize(repeating: 0, count: capacity)
        silent = .allocate(capacity: capacity)
        silent.initialize(repeating: false, count: capacity)
    }

    deinit {
        outputStarts.deallocate()
        sourceStarts.deallocate()
        silent.deallocate()
    }

    /// Records that output frames [outputFrame, outputFrame + frameCount) carried source frames from
    /// `sourceFrame` on (or silence before `sourceFrame`, when `isSilence`).
    mutating func append(outputFrame: Int, sourceFrame: Int, frameCount: Int, isSilence: Bool) {
        guard frameCount > 0 else { return }
        if newest >= 0, outputFrame == nextOutput, silent[newest] == isSilence {
            let expected = isSilence ? sourceStarts[newest] : sourceStarts[newest] + (outputFrame - outputStarts[newest])
            if expected == sourceFrame {
                nextOutput = outputFrame + frameCount
                return
            }
        }
        newest = (newest + 1) % capacity
        count = min(count + 1, capacity)
        outputStarts[newest] = outputFrame
        sourceStarts[newest] = sourceFrame
        silent[newest] = isSilence
        nextOutput = outputFrame + frameCount
    }

    /// The run holding `key`: the source frame `key` carried, whether it is silence, and how many
    /// keys from `key` on the run still covers (`Int.max` for the newest run); nil when the log does
    /// not reach back that far.
    func run(at key: Int) -> (sourceFrame: Int, isSilence: Bool, remaining: Int)? {
        guard newest >= 0 else { return nil }
        var index = newest
        var nextStart = Int.max
        for _ in 0..<count {
            let start = outputStarts[index]
            if start <= key {
                let source = silent[index] ? sourceStarts[index] : sourceStarts[index] + (key - start)
                return (source, silent[index], nextStart == Int.max ? Int.max : nextStart - key)
            }
            nextStart = start
            index = (index - 1 + capacity) % capacity
        }
        return nil
    }

    /// The source frame output frame `outputFrame` carried (or `fallback` when the log does not reach
    /// back that far or has nothing yet).
    func sourceFrame(atOutput outputFrame: Int, fallback: Int) -> Int {
        guard newest >= 0 else { return fallback }
        var index = newest
        for _ in 0..<count {
            let start = outputStarts[index]
            if start <= outputFrame {
                return silent[index] ? sourceStarts[index] : sourceStarts[index] + (outputFrame - start)
            }
            index = (index - 1 + capacity) % capacity
        }
        return fallback
    }
}
