/// `--help` text, printed from the command table.
public enum HelpText {
    /// `repeater --help`.
    public static var main: String {
        var rows: [(String, String)] = []
        for command in CommandTable.commands {
            for (index, line) in command.usage.enumerated() {
                rows.append((line, index == 0 ? command.summary : command.usageSummaries[line] ?? ""))
            }
        }
        let width = rows.map(\.0.count).max() ?? 0
        var lines = ["repeater \(CommandTable.version): \(CommandTable.topLevel.summary).", "", "USAGE"]
        lines += rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
        lines += [
            "  repeater --help | --version", "",
            "Run `repeater COMMAND --help` for a command's options.",
            "TIME is 83.5 (seconds), 1:23.5, 1:02:03.25, or a frame count such as 3984000f.",
        ]
        return lines.joined(separator: "\n")
    }

    /// `repeater COMMAND --help`.
    public static func command(_ command: CommandSpec) -> String {
        var lines = ["USAGE: " + (command.usage.first ?? "repeater \(command.name)")]
        lines += command.usage.dropFirst().map { "       " + $0 }
        if let description = command.description { lines += ["", description] }
        if !command.options.isEmpty {
            lines += ["", "OPTIONS"]
            lines += command.options.flatMap(optionLines)
        }
        if let footer = command.footer { lines += ["", footer] }
        return lines.joined(separator: "\n")
    }

    /// `  --rate R          speed, pitch kept …`: the names and value in a column of 18, the help
    /// beside it (or below, when the names are longer), continuation lines under the help.
    static func optionLines(_ option: OptionSpec) -> [String] {
        let column = 18
        var head = option.names.joined(separator: ", ")
        if let value = option.value { head += " " + value.placeholder }
        let help = option.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var lines: [String] = []
        if head.count < column - 1 {
            lines.append("  " + head + String(repeating: " ", count: column - head.count) + help[0])
        } else {
            lines.append("  " + head)
            lines.append(String(repeating: " ", count: column + 2) + help[0])
        }
        lines += help.dropFirst().map { String(repeating: " ", count: column + 2) + $0 }
        return lines
    }
}
