import RepeaterEngine

/// `FROM:STEP:EVERY:TO` as the user writes it: `0.6:0.05:3:1.0` starts at 60 %, adds 5 % every 3
/// passes of the loop, and stops at 100 %.
public struct TrainerSpec: Equatable, Sendable {
    public var from: Double
    public var step: Double
    public var every: Int
    public var to: Double

    public init(from: Double, step: Double, every: Int, to: Double) {
        self.from = from
        self.step = step
        self.every = every
        self.to = to
    }

    public init(parsing text: String) throws(RepeaterError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { String($0) }
        let usage = "'\(text)' is not a trainer: write FROM:STEP:EVERY:TO, e.g. 0.6:0.05:3:1.0 (60 %, +5 % every 3 passes, up to 100 %)"
        guard parts.count == 4, let from = Double(parts[0]), let step = Double(parts[1]), let every = Int(parts[2]),
              let to = Double(parts[3]) else { throw .input(usage) }
        guard (0.25...4).contains(from), (0.25...4).contains(to) else { throw .input("trainer speeds stay between 0.25 and 4: '\(text)'") }
        guard every >= 1 else { throw .input("trainer: EVERY is a number of passes, 1 or more: '\(text)'") }
        guard step != 0, (to - from) * step >= 0 else { throw .input("trainer: a STEP of \(parts[1]) never takes \(parts[0]) to \(parts[3])") }
        self.init(from: from, step: step, every: every, to: to)
    }

    public var trainer: SpeedTrainer { SpeedTrainer(from: from, step: step, every: every, to: to) }
}
