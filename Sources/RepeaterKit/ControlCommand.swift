import Foundation
import RepeaterEngine
/// A command from the keyboard or from a line on stdin.
public enum ControlCommand: Equatable, Sendable {
    case play, pause, toggle
    case seek(TimeSpec)
    /// Seek relative to the audible position, in seconds.
    case seekBy(Double)
    case jumpToA
    /// Set A or B at a time, or (nil) at the frame heard now.
    case setA(TimeSpec?)
    case setB(TimeSpec?)
    /// Move A or B by this many seconds.
    case nudgeA(Double)
    case nudgeB(Double)
    case loop(LoopSpec)
    case loopOn(Bool)
    case toggleLoop
    case gap(TimeSpec)
    /// Strike the minute repeater for a time of day, or for the local time now.
    case chime(hour: Int, minute: Int)
    case chimeNow
    /// Speed (0.25 … 4), pitch (semitones, −24 … 24), relative changes, reset to 1 / 0.
    case rate(Double)
    case pitch(Double)
    case rateBy(Double)
    case pitchBy(Double)
    case resetRatePitch
    /// Volume as a linear gain; a step in dB (keys); pan −1 … 1; a pan step (keys).
    case volume(Double)
    case volumeBy(Double)
    case pan(Double)
    case panBy(Double)
    /// Sessions: save now; save the current A/B under a name; make a named loop the loop; delete one;
    /// list them; select the n-th (keys 1–9, 0-based here).
    case save
    case loopSave(String)
    /// Save the current A/B as a new loop named "loop N" (the `n` key).
    case loopSaveNew
    case loopSelect(String)
    case loopSelectIndex(Int)
    case loopDelete(String)
    case listLoops
    /// The speed trainer: start one, or stop it (nil).
    case trainer(TrainerSpec?)
    case status
    case quit
    case help

    /// The commands of the stdin protocol, for error messages and the README.
    public static let protocolSummary = "play, pause, toggle, seek TIME, a [TIME], b [TIME], loop A-B, loop on, loop off, gap TIME, rate R, pitch S, volume V, pan P, chime [HH:MM], save, loop save NAME, loop NAME, loop delete NAME, loops, trainer FROM:STEP:EVERY:TO | off, status, quit"

    /// Parses one line of the stdin protocol. Throws a one-line error for anything unknown or malformed.
    public init(line: String) throws(RepeaterError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first?.lowercased() else { throw .input("empty command") }
        let arguments = Array(words.dropFirst())
        func noArguments(_ command: ControlCommand) throws(RepeaterError) -> ControlCommand {
            guard arguments.isEmpty else { throw .input("'\(verb)' takes no argument") }
            return command
        }
        func oneArgument(_ usage: String) throws(RepeaterError) -> String {
            guard arguments.count == 1 else { throw .input("usage: \(usage)") }
            return arguments[0]
        }
        switch verb {
        case "play": self = try noArguments(.play)
        case "pause": self = try noArguments(.pause)
        case "toggle": self = try noArguments(.toggle)
        case "status": self = try noArguments(.status)
        case "quit", "exit": self = try noArguments(.quit)
        case "help": self = try noArguments(.help)
        case "seek":
            let text = try oneArgument("seek TIME (e.g. seek 1:23.5, seek +5, seek -5)")
            if text.hasPrefix("+") || text.hasPrefix("-"), let delta = Double(text) {
                self = .seekBy(delta)
            } else {
                self = .seek(try TimeSpec(parsing: text))
            }
        case "a", "b":
            guard arguments.count <= 1 else { throw .input("usage: \(verb) [TIME] (no TIME: the frame heard now)") }
            let time = try arguments.first.map { (text: String) throws(RepeaterError) in try TimeSpec(parsing: text) }
            self = verb == "a" ? .setA(time) : .setB(time)
        case "loop":
            let usage = "usage: loop A-B | loop on | loop off | loop NAME | loop save NAME | loop delete NAME"
            guard let first = arguments.first else { throw .input(usage) }
            let rest = arguments.dropFirst().joined(separator: " ")
            switch first.lowercased() {
            case "on" where arguments.count == 1: self = .loopOn(true)
            case "off" where arguments.count == 1: self = .loopOn(false)
            case "save", "delete":
                guard !rest.isEmpty else { throw .input("usage: loop \(first.lowercased()) NAME") }
                self = first.lowercased() == "save" ? .loopSave(rest) : .loopDelete(rest)
            default:
                // A-B is a loop by times; anything else names a saved loop.
                if arguments.count == 1 && first.contains("-") && first.first.map({ $0.isNumber || $0 == "." }) == true {
                    self = .loop(try LoopSpec(parsing: first))
                } else {
                    self = .loopSelect(arguments.joined(separator: " "))
                }
            }
        case "loops": self = try noArguments(.listLoops)
        case "save": self = try noArguments(.save)
        case "trainer":
            let text = try oneArgument("trainer FROM:STEP:EVERY:TO (e.g. 0.6:0.05:3:1.0) | trainer off")
            self = .trainer(text.lowercased() == "off" ? nil : try TrainerSpec(parsing: text))
        case "gap": self = .gap(try TimeSpec(parsing: try oneArgument("gap TIME (0 for none)")))
        case "rate", "speed":
            let text = try oneArgument("rate R (0.25 to 4; 0.8 plays at 80 %)")
            guard let value = Double(text), (0.25...4).contains(value) else { throw .input("rate takes 0.25 to 4, not '\(text)'") }
            self = .rate(value)
        case "pitch":
            let text = try oneArgument("pitch S (semitones, -24 to 24)")
            guard let value = Double(text), (-24...24).contains(value) else { throw .input("pitch takes -24 to 24 semitones, not '\(text)'") }
            self = .pitch(value)
        case "volume", "vol":
            self = .volume(try Volume.parse(try oneArgument("volume V (-6dB, +3dB, or a linear gain such as 0.5)")))
        case "pan":
            self = .pan(try Volume.parsePan(try oneArgument("pan P (-1 left, 0 centre, 1 right)")))
        case "chime":
            guard arguments.count <= 1 else { throw .input("usage: chime [HH:MM]") }
            if let text = arguments.first {
                let time = try ChimeOptions.parseTime(text)
                self = .chime(hour: time.hour, minute: time.minute)
            } else {
                self = .chimeNow
            }
        default:
            throw .input("unknown command '\(verb)'; try: \(ControlCommand.protocolSummary)")
        }
    }
}

/// Builds one JSON object as a line, keys in the order they are added.
public struct JSONLine {
    private var fields: [String] = []

    public init() {}

    public mutating func add(_ key: String, _ value: String) { fields.append("\(Self.quote(key)):\(Self.quote(value))") }
    public mutating func add(_ key: String, _ value: Int) { fields.append("\(Self.quote(key)):\(value)") }
    public mutating func add(_ key: String, _ value: Bool) { fields.append("\(Self.quote(key)):\(value)") }
    public mutating func add(_ key: String, _ value: Double) {
        fields.append("\(Self.quote(key)):" + (value.isFinite ? Self.number(value) : "null"))
    }

    /// A number with `digits` decimals (small figures such as the audio thread's load).
    public mutating func add(_ key: String, _ value: Double, digits: Int) {
        let scale = pow(10, Double(digits))
        fields.append("\(Self.quote(key)):" + (value.isFinite ? String((value * scale).rounded() / scale) : "null"))
    }

    /// Adds an already-encoded JSON value (an array or object built by the caller).
    public mutating func addRaw(_ key: String, _ json: String) { fields.append("\(Self.quote(key)):\(json)") }

    public var text: String { "{" + fields.joined(separator: ",") + "}" }

    static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

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
