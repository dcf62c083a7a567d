import Foundation
import RepeaterEngine

/// Hearing the part: the isolation, the equalizer and the note view.
public enum HearingCommand: Equatable, Sendable {
    case isolate(IsolationMode)
    /// The next isolation: off → centre → sides → bass → left → right → off (stereo), off → bass
    /// → off (other layouts). A key and a pedal.
    case isolateNext
    /// The equalizer's gains in dB: low shelf, mid, high shelf.
    case equalize(lowDB: Double, midDB: Double, highDB: Double)
    /// The note view: at the playhead, or over the whole loop (nil: the other one, a key).
    case notes(NoteViewMode?)

    /// Parses the words after `isolate`, `eq` or `notes` on stdin.
    static func parse(verb: String, _ arguments: [String]) throws(RepeaterError) -> HearingCommand {
        switch verb {
        case "isolate":
            guard arguments.count == 1 else { throw .input("usage: isolate \(IsolationMode.syntax)") }
            return .isolate(try IsolationMode(parsing: arguments[0]))
        case "eq":
            let gains = try EqualizerGains(parsing: arguments.joined(separator: ","))
            return .equalize(lowDB: gains.lowDB, midDB: gains.midDB, highDB: gains.highDB)
        case "notes":
            guard arguments.count == 1, let mode = NoteViewMode(rawValue: arguments[0].lowercased()) else {
                throw .input("usage: notes playhead|loop")
            }
            return .notes(mode)
        default: throw .input("unknown command '\(verb)'")
        }
    }

    static let verbs: Set<String> = ["isolate", "eq", "notes"]
}

/// What the note view shows: the notes at the playhead (the last ~170 ms heard), or averaged over
/// the whole loop as it plays (as Transcribe! does for a selection).
public enum NoteViewMode: String, Sendable, CaseIterable {
    case playhead, loop
}

extension IsolationMode {
    static let syntax = "off|centre|sides|left|right|bass|band:LO-HI"

    /// `off`, `centre` (or `center`), `sides`, `left`, `right`, `bass`, `band:200-2000` (Hz).
    public init(parsing text: String) throws(RepeaterError) {
        switch text.lowercased() {
        case "off": self = .off
        case "centre", "center": self = .centre
        case "sides", "karaoke": self = .sides
        case "left": self = .left
        case "right": self = .right
        case "bass": self = .bass
        default:
            let lower = text.lowercased()
            guard lower.hasPrefix("band:") else {
                throw .input("'\(text)' is not an isolation: use \(IsolationMode.syntax), e.g. band:200-2000")
            }
            let edges = lower.dropFirst(5).split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
            guard edges.count == 2, let low = edges[0], let high = edges[1], low.isFinite, high.isFinite, low >= 10, high <= 20_000, low < high else {
                throw .input("'\(text)' is not a band: write band:LO-HI in Hz, from 10 to 20000, LO below HI (e.g. band:200-2000)")
            }
            self = .band(lowHz: low, highHz: high)
        }
    }

    /// The name the options, sessions and JSON use.
    public var name: String {
        switch self {
        case .off: return "off"
        case .through: return "through"
        case .centre: return "centre"
        case .sides: return "sides"
        case .left: return "left"
        case .right: return "right"
        case .bass: return "bass"
        case .band(let low, let high): return "band:\(Self.hertz(low))-\(Self.hertz(high))"
        }
    }

    private static func hertz(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The equalizer's three gains as the user writes them: `LOW,MID,HIGH` in dB (`-24,0,3`).
public struct EqualizerGains: Equatable, Sendable {
    public var lowDB = 0.0, midDB = 0.0, highDB = 0.0

    public init(lowDB: Double = 0, midDB: Double = 0, highDB: Double = 0) {
        self.lowDB = lowDB
        self.midDB = midDB
        self.highDB = highDB
    }

    public init(parsing text: String) throws(RepeaterError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "dB", with: "")) }
        let range = Equalizer.gainRangeDB
        guard parts.count == 3, let low = parts[0], let mid = parts[1], let high = parts[2],
              [low, mid, high].allSatisfy({ range.contains($0) }) else {
            throw .input("'\(text)' is not an EQ: write LOW,MID,HIGH in dB from \(Int(range.lowerBound)) to +\(Int(range.upperBound)), e.g. -24,0,3")
        }
        self.init(lowDB: low, midDB: mid, highDB: high)
    }

    public var isFlat: Bool { lowDB == 0 && midDB == 0 && highDB == 0 }
    public var text: String { [lowDB, midDB, highDB].map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ",") }
}
