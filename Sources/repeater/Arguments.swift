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
