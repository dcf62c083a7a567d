import RepeaterEngine

/// Walks a command's arguments: `--name value`, `--name=value`, flags, and operands. Every option
/// is looked up in the command's table (`CommandSpec`): an alias comes back as its long name, and a
/// name the table does not know is an error, so the parser accepts exactly what `--help` lists.
public struct Arguments {
    private var remaining: [String]
    public let spec: CommandSpec
    public var command: String { spec.name }

    public init(_ spec: CommandSpec, _ arguments: [String]) {
        self.spec = spec
        remaining = arguments
    }

    public var isEmpty: Bool { remaining.isEmpty }

    /// The next argument: an option by its long name (with an inline `=value`, if given), or an
    /// operand as it was written (`-` alone is an operand: stdin).
    public mutating func next() throws(RepeaterError) -> (name: String, inlineValue: String?)? {
        guard !remaining.isEmpty else { return nil }
        let argument = remaining.removeFirst()
        guard argument.hasPrefix("-"), argument != "-" else { return (argument, nil) }
        var name = argument
        var inline: String?
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inline = String(argument[argument.index(after: equals)...])
        }
        guard let option = spec.option(named: name) else { throw unknown(name) }
        if inline != nil, !option.takesValue { throw .input("\(name) takes no value; see `repeater \(command) --help`") }
        return (option.name, inline)
    }

    /// The value of option `name`: its inline `=value` or the next argument.
    public mutating func value(for name: String, inline: String?) throws(RepeaterError) -> String {
        if let inline { return inline }
        guard !remaining.isEmpty else { throw .input("\(name) needs a value; see `repeater \(command) --help`") }
        return remaining.removeFirst()
    }

    public func unknown(_ name: String) -> RepeaterError {
        name.hasPrefix("-")
            ? .input("unknown option '\(name)' for `repeater \(command)`; see `repeater \(command) --help`")
            : .input("unexpected argument '\(name)'; see `repeater \(command) --help`")
    }

    /// An option the table lists that the command's parser does not handle: a programming error,
    /// reported rather than ignored (a test parses every option of the table).
    /// The command's one operand (a file): `name` goes into `slot`, unless it looks like an option
    /// (one this command does not take) or the operand is given already.
    public func operand(_ name: String, into slot: inout String?) throws(RepeaterError) {
        if name.hasPrefix("-") && name != "-" { throw unhandled(name) }
        guard slot == nil else { throw unknown(name) }
        slot = name
    }

    public func unhandled(_ name: String) -> RepeaterError {
        RepeaterError(.failure, "internal: option \(name) of `repeater \(command)` is listed but not handled")
    }
}

public func parseTime(_ text: String, option: String) throws(RepeaterError) -> TimeSpec {
    do { return try TimeSpec(parsing: text) } catch { throw .input("\(option): \(error.message)") }
}

public func parseNumber(_ text: String, option: String, range: ClosedRange<Double>) throws(RepeaterError) -> Double {
    guard let value = Double(text), range.contains(value) else {
        throw .input("\(option) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    }
    return value
}

/// Parses one of the options that shape the sound (shared by `play` and `render`); returns false
/// when `name` is not one of them.
public func parseSoundOption(_ name: String, inline: String?, _ arguments: inout Arguments, into sound: inout SoundOptions) throws(RepeaterError) -> Bool {
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
    case "--loop-cache":
        let text = try arguments.value(for: name, inline: inline)
        guard text == "on" || text == "off" else { throw .input("--loop-cache takes on or off, not '\(text)'") }
        sound.loopCache = text == "on"
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
    case "--isolate":
        do { sound.isolation = try IsolationMode(parsing: try arguments.value(for: name, inline: inline)) } catch { throw .input("--isolate: " + error.message) }
    case "--eq":
        do { sound.equalizer = try EqualizerGains(parsing: try arguments.value(for: name, inline: inline)) } catch { throw .input("--eq: " + error.message) }
    default:
        return false
    }
    return true
}

/// Parses `--chime-tempo`, `--gong-low` and `--gong-high` (shared by `play` and `chime`).
public func parseChimeOption(_ name: String, inline: String?, _ arguments: inout Arguments, into chime: inout ChimeOptions) throws(RepeaterError) {
    let value = try arguments.value(for: name, inline: inline)
    switch name {
    case "--chime-tempo": chime.tempo = try parseNumber(value, option: name, range: 0.25...4)
    case "--gong-low": chime.lowPath = value
    default: chime.highPath = value
    }
}
