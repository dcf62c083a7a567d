/// The speed trainer: start a loop slow and speed it up by `step` every `every` passes until `to`
/// (`0.6:0.05:3:1.0`: 60 %, +5 % every 3 passes, stop at 100 %). Pure and deterministic: the control
/// thread feeds it each completed pass of the loop (the engine's wrap events) and applies the
/// speed it returns.
///
/// Speeds are computed as `from + k × step` (rounded to 1/10 000), never by adding up, so step k
/// is exactly the same speed however long the session ran, and a saved trainer resumes on the step
/// it was on.
public struct SpeedTrainer: Equatable, Sendable {
    public let from: Double
    public let step: Double
    public let every: Int
    public let to: Double
    /// Steps taken so far (speed = from + stepIndex × step, capped at `to`).
    public private(set) var stepIndex: Int
    /// Passes completed at the current speed.
    public private(set) var passes: Int

    /// `step` moves from `from` towards `to` (it may be negative to slow down); `every` ≥ 1.
    public init(from: Double, step: Double, every: Int, to: Double, stepIndex: Int = 0, passes: Int = 0) {
        precondition(every >= 1 && step != 0 && (to - from) * step >= 0, "a trainer steps from FROM towards TO")
        self.from = from
        self.step = step
        self.every = every
        self.to = to
        self.stepIndex = max(0, stepIndex)
        self.passes = max(0, min(passes, every - 1))
        let last = lastIndex
        if self.stepIndex >= last {
            self.stepIndex = last
            self.passes = 0
        }
    }

    /// Resumes at a saved speed (the nearest step) and pass count.
    public init(from: Double, step: Double, every: Int, to: Double, speed: Double, passes: Int) {
        self.init(from: from, step: step, every: every, to: to,
                  stepIndex: Int(((speed - from) / step).rounded()), passes: passes)
    }

    /// The number of steps from `from` to `to` (the last may be shorter).
    private var lastIndex: Int { Int(((to - from) / step - 1e-9).rounded(.up)) }

    /// The speed now.
    public var speed: Double {
        if stepIndex >= lastIndex { return to }
        return ((from + Double(stepIndex) * step) * 10_000).rounded() / 10_000
    }

    /// True once the speed has reached `to`.
    public var isDone: Bool { stepIndex >= lastIndex }

    /// A pass of the loop completed. Returns the new speed when this pass ends a step, else nil.
    public mutating func passCompleted() -> Double? {
        guard !isDone else { return nil }
        passes += 1
        guard passes >= every else { return nil }
        passes = 0
        stepIndex += 1
        return speed
    }
}
