import Foundation

/// Playing by lines (subtitles, lyrics, automatic phrases) and drilling them.
public enum LineCommand: Equatable, Sendable {
    /// The first line that starts after the position heard.
    case next
    /// The line before the one heard.
    case previous
    /// Line N (1-based).
    case number(Int)
    /// The line heard again, from its start.
    case again
    /// The line heard as the loop: on, off, or (nil) the other way.
    case loop(Bool?)
    /// A drill through the lines from the line heard (or where the last drill stopped), or off (nil).
    case drill(DrillSpec?)

    static func parse(verb: String, _ arguments: [String]) throws(RepeaterError) -> LineCommand {
        if verb == "drill" {
            guard arguments.count == 1 else { throw .input("usage: drill N[xK] | drill off (e.g. drill 3x1.2)") }
            if arguments[0].lowercased() == "off" { return .drill(nil) }
            return .drill(try DrillSpec(parsing: arguments[0]))
        }
        let usage = "usage: line next | line prev | line N | line again | line loop on|off"
        guard let first = arguments.first?.lowercased() else { throw .input(usage) }
        switch (first, arguments.count) {
        case ("next", 1): return .next
        case ("prev", 1), ("previous", 1): return .previous
        case ("again", 1): return .again
        case ("loop", 2):
            switch arguments[1].lowercased() {
            case "on": return .loop(true)
            case "off": return .loop(false)
            default: throw .input(usage)
            }
        case (_, 1):
            guard let number = Int(first), number >= 1 else { throw .input(usage) }
            return .number(number)
        default: throw .input(usage)
        }
    }

    static let verbs: Set<String> = ["line", "drill"]
}

/// A drill: each line `passes` times, each pass followed by a gap of `gapFactor` × the line's
/// length at the current speed (time to say it back), then the next line.
public struct DrillSpec: Equatable, Sendable {
    public var passes: Int
    public var gapFactor: Double
    public static let defaultGapFactor = 1.2

    public init(passes: Int, gapFactor: Double = DrillSpec.defaultGapFactor) {
        self.passes = passes
        self.gapFactor = gapFactor
    }

    /// `N` or `NxK`: `3` (three passes, a gap of 1.2 × the line), `2x1.5`.
    public init(parsing text: String) throws(RepeaterError) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let bad = RepeaterError.input("'\(text)' is not a drill: write N (passes of each line, 1 to 100) or NxK (K: the gap after each pass as a multiple of the line, 0 to 10), e.g. 3 or 2x1.5")
        guard (1...2).contains(parts.count), let passes = Int(parts[0]), (1...100).contains(passes) else { throw bad }
        var factor = DrillSpec.defaultGapFactor
        if parts.count == 2 {
            guard let value = Double(parts[1]), value.isFinite, (0...10).contains(value) else { throw bad }
            factor = value
        }
        self.init(passes: passes, gapFactor: factor)
    }

    public var text: String { "\(passes)x\(gapFactor == gapFactor.rounded() ? String(Int(gapFactor)) : String(gapFactor))" }
}
