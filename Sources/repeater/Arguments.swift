import RepeaterEngine
import RepeaterKit

/// Walks the command line: `--name value`, `--name=value`, flags, and positional arguments.
struct Arguments {
    private var remaining: [String]
    let command: String

    init(command: String, _ arguments: [String]) {
        self.command = command
        remaining = arguments
    }

    var isEmpty: Bool { remaining.isEmpty }

    /// The next argument, split into an option name and an inline `=value` when it is an option.
    mutating func next() -> (name: String, inlineValue: String?)? {
        guard !remaining.isEmpty else { return nil }
        let argument = remaining.removeFirst()
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        return (argument, nil)
    }

    /// The value of option `name`: its inline `=value` or the next argument.
    mutating func value(for name: String, inline: String?) throws(RepeaterError) -> String {
        if let inline { return inline }
        guard !remaining.isEmpty else { throw .input("\(name) needs a value; see `repeater \(command) --help`") }
        return remaining.removeFirst()
    }

    func unknown(_ name: String) -> RepeaterError {
        name.hasPrefix("-")
            ? .input("unknown option '\(name)' for `repeater \(command)`; see `repeater \(command) --help`")
            : .input("unexpected argument '\(name)'; see `repeater \(command) --help`")
    }
}

func parseTime(_ text: String, option: String) throws(RepeaterError) -> TimeSpec {
    do { return try TimeSpec(parsing: text) } catch { throw .input("\(option): \(error.message)") }
}

func parseNumber(_ text: String, option: String, range: ClosedRange<Double>) throws(RepeaterError) -> Double {
    guard let value = Double(text), range.contains(value) else {
        throw .input("\(option) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    }
    return value
}

/// Parses one of the options that shape the sound (shared by `play` and `render`); returns false
/// when `name` is not one of them.
func parseSoundOption(_ name: String, inline: String?, _ arguments: inout Arguments, into sound: inout SoundOptions) throws(RepeaterError) -> Bool {
    switch name {
    case "--from": sound.from = try parseTime(try arguments.value(for: name, inline: inline), option: name)
    case "--loop":
        let text = try arguments.value(for: name, inline: inline)
        do { sound.loop = try LoopSpec(parsing: text) } catch { throw .input("--loop: \(error.message)") }
    case "--loops":
        let text = try arguments.value(for: name, inline: inline)
        guard let count = Int(text), count >= 1 else { throw .input("--loops takes a whole number of passes (1 or more), not '\(text)'") }
        sound.loops = count
    case "--gap": sound.gap = try parseTime(try arguments.value(for: name, inline: inline), option: name)
    case "--rate": sound.speed = try parseNumber(try arguments.value(for: name, inline: inline), option: name, range: 0.25...4)
    case "--pitch": sound.pitch = try parseNumber(try arguments.value(for: name, inline: inline), option: name, range: -24...24)
    case "--engine":
        let text = try arguments.value(for: name, inline: inline)
        guard let kind = Stretcher.Kind(rawValue: text) else { throw .input("--engine takes finer (R3) or faster (R2), not '\(text)'") }
        sound.stretcher = kind
    case "--volume":
        let text = try arguments.value(for: name, inline: inline)
        do { sound.volume = try Volume.parse(text) } catch { throw .input("--" + error.message) }
    case "--pan":
        let text = try arguments.value(for: name, inline: inline)
        do { sound.pan = try Volume.parsePan(text) } catch { throw .input("--" + error.message) }
    case "--declick":
        sound.declickMilliseconds = try parseNumber(try arguments.value(for: name, inline: inline), option: name, range: 0...500)
    default:
        return false
    }
    return true
}

/// Parses `--chime-tempo`, `--gong-low` and `--gong-high` (shared by `play` and `chime`).
func parseChimeOption(_ name: String, inline: String?, _ arguments: inout Arguments, into chime: inout ChimeOptions) throws(RepeaterError) {
    let value = try arguments.value(for: name, inline: inline)
    switch name {
    case "--chime-tempo": chime.tempo = try parseNumber(value, option: name, range: 0.25...4)
    case "--gong-low": chime.lowPath = value
    default: chime.highPath = value
    }
}
