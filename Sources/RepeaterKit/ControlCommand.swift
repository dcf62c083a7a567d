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
    case status
    case quit
    case help

    /// The commands of the stdin protocol, for error messages and the README.
    public static let protocolSummary = "play, pause, toggle, seek TIME, a [TIME], b [TIME], loop A-B, loop on, loop off, gap TIME, rate R, pitch S, volume V, pan P, chime [HH:MM], status, quit"

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
            let text = try oneArgument("loop A-B | loop on | loop off")
            switch text {
            case "on": self = .loopOn(true)
            case "off": self = .loopOn(false)
            default: self = .loop(try LoopSpec(parsing: text))
            }
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
