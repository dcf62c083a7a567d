import Foundation

/// Recording yourself: arming, calibrating, hearing a take back, housekeeping.
public enum TakeCommand: Equatable, Sendable {
    /// Recording armed (every pass a take; in a drill every answer), off, or (nil) the other way.
    case record(Bool?)
    /// Measure the round trip out → … → in with a probe.
    case calibrate
    /// Play take N (nil: the last) over its loop, compared as `compare` says.
    case play(Int?)
    /// Back to the recording alone.
    case stop
    /// `t`: the last take, or back to the recording when one plays.
    case playToggle
    case keep(Int)
    case delete(Int)
    case compare(CompareMode)

    static func parse(verb: String, _ arguments: [String]) throws(RepeaterError) -> TakeCommand {
        let lowered = arguments.map { $0.lowercased() }
        switch (verb, lowered.first, lowered.count) {
        case ("record", "on", 1): return .record(true)
        case ("record", "off", 1): return .record(false)
        case ("record", _, _): throw .input("usage: record on | record off")
        case ("calibrate", nil, 0): return .calibrate
        case ("calibrate", _, _): throw .input("usage: calibrate (no arguments)")
        case ("compare", let mode?, 1):
            guard let compare = CompareMode(rawValue: mode) else { throw .input("compare: '\(mode)' is not a mode: alternate, both or take") }
            return .compare(compare)
        case ("compare", _, _): throw .input("usage: compare alternate|both|take")
        default: break
        }
        let usage = "usage: take play [N] | take stop | take keep N | take delete N"
        func number(_ text: String) throws(RepeaterError) -> Int {
            guard let value = Int(text), value >= 1 else { throw .input("take: '\(text)' is not a take number (1, 2, …)") }
            return value
        }
        switch (lowered.first, lowered.count) {
        case ("play", 1): return .play(nil)
        case ("play", 2): return .play(try number(lowered[1]))
        case ("stop", 1): return .stop
        case ("keep", 2): return .keep(try number(lowered[1]))
        case ("delete", 2): return .delete(try number(lowered[1]))
        default: throw .input(usage)
        }
    }

    static let verbs: Set<String> = ["record", "calibrate", "take", "compare"]
}

/// How a take is heard back beside the original.
public enum CompareMode: String, Sendable, CaseIterable {
    /// The original pass, then the take pass, and so on (in a drill: the line, your answer, the line).
    case alternate
    /// Both at once: the original on the left and the take on the right by `--compare-pan`, or mixed.
    case both
    /// The take alone.
    case take
}
