import Foundation

/// Shell completion scripts, generated from `CommandTable` (the table `--help` prints), so that
/// they offer exactly the subcommands, options and fixed values the parser takes.
public enum Completions {
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    public static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: return bash()
        case .zsh: return zsh()
        case .fish: return fish()
        }
    }

    static var commandNames: [String] { CommandTable.commands.map(\.name) }

    /// The first line of an option's help, for the shells that show descriptions.
    static func summary(_ help: String) -> String {
        String(help.split(separator: "\n").first ?? "")
    }

    // MARK: bash

    static func bash() -> String {
        var text = """
        # bash completion for repeater (made by `repeater completions bash` from its option table)
        _repeater_files() {
            # $1: extensions separated by spaces (none: any file). Folders are always offered.
            local word ext lower
            local -a extensions
            read -ra extensions <<< "$1"
            local IFS=$'\\n'
            for word in $(compgen -f -- "$cur"); do
                if [[ -d $word ]]; then COMPREPLY+=("$word"); continue; fi
                [[ -z $1 ]] && { COMPREPLY+=("$word"); continue; }
                lower=${word,,}
                for ext in "${extensions[@]}"; do
                    [[ $lower == *."$ext" ]] && { COMPREPLY+=("$word"); break; }
                done
            done
        }

        _repeater() {
            local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i
            COMPREPLY=()
            for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                    \(commandNames.joined(separator: "|"))) cmd=${COMP_WORDS[i]}; break ;;
                    -*) ;;
                    *) cmd=play; break ;;
                esac
            done
            if [[ -z $cmd ]]; then
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "\(CommandTable.topLevel.options.flatMap(\.names).joined(separator: " "))" -- "$cur"))
                else
                    COMPREPLY=($(compgen -W "\(commandNames.joined(separator: " "))" -- "$cur"))
                    _repeater_files "\(FileKind.audioOrSession.extensions.joined(separator: " "))"
                fi
                return
            fi
            case $cmd in

        """
        for command in CommandTable.commands {
            text += "        \(command.name))\n"
            text += "            case $prev in\n"
            for option in command.options {
                guard let value = option.value else { continue }
                text += "                \(option.names.joined(separator: "|"))) \(bashValue(value)); return ;;\n"
            }
            text += "            esac\n"
            let names = command.options.flatMap(\.names).joined(separator: " ")
            text += "            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"\(names)\" -- \"$cur\")); return; fi\n"
            if let operand = command.operand { text += "            \(bashValue(operand))\n" }
            text += "            ;;\n"
        }
        text += """
            esac
        }
        complete -o filenames -F _repeater repeater

        """
        return text
    }

    private static func bashValue(_ value: ValueKind) -> String {
        switch value {
        case .text: return ":"  // free text: nothing to offer
        case .choice(_, let values, _): return "COMPREPLY=($(compgen -W \"\(values.joined(separator: " "))\" -- \"$cur\"))"
        case .file(_, let kind):
            return kind == .directory ? "COMPREPLY=($(compgen -d -- \"$cur\"))" : "_repeater_files \"\(kind.extensions.joined(separator: " "))\""
        }
    }

    // MARK: zsh

    static func zsh() -> String {
        var text = """
        #compdef repeater
        # zsh completion for repeater (made by `repeater completions zsh` from its option table)

        _repeater() {
            local -a commands
            commands=(

        """
        for command in CommandTable.commands {
            text += "        '\(command.name):\(zshEscape(command.summary))'\n"
        }
        text += """
            )
            if (( CURRENT == 2 )); then
                _describe -t commands 'repeater command' commands
                _files -g '\(zshGlob(.audioOrSession))'
                _arguments '(- *)--help[show the help]' '(- *)--version[print the version]'
                return
            fi
            local cmd=$words[2]
            if (( ${commands[(I)$cmd:*]} )); then
                shift words
                (( CURRENT-- ))
            else
                cmd=play
            fi
            case $cmd in

        """
        for command in CommandTable.commands {
            text += "        \(command.name))\n            _arguments -s \\\n"
            for option in command.options {
                let description = zshEscape(summary(option.help))
                let names = option.names.count > 1 ? "{\(option.names.joined(separator: ","))}" : option.names[0]
                var spec = "[\(description)]"
                if let value = option.value { spec += ":\(zshEscape(value.placeholder)):\(zshAction(value))" }
                text += "                \(names)'\(spec)' \\\n"
            }
            if let operand = command.operand {
                text += "                '*:\(zshEscape(operand.placeholder)):\(zshAction(operand))'\n"
            } else {
                text += "                \n"
            }
            text += "            ;;\n"
        }
        text += """
            esac
        }

        _repeater "$@"

        """
        return text
    }

    private static func zshAction(_ value: ValueKind) -> String {
        switch value {
        case .text: return " "
        case .choice(_, let values, _): return "(\(values.joined(separator: " ")))"
        case .file(_, let kind):
            if kind == .directory { return "_files -/" }
            return kind.extensions.isEmpty ? "_files" : "_files -g \"\(zshGlob(kind))\""
        }
    }

    /// `*.(wav|flac|…)(-.)`, matching either case.
    private static func zshGlob(_ kind: FileKind) -> String {
        "(#i)*.(\(kind.extensions.joined(separator: "|")))(-.)"
    }

    /// Text inside an `_arguments` spec: no brackets, colons or single quotes.
    private static func zshEscape(_ text: String) -> String {
        String(text.map { character -> Character in
            switch character {
            case "[": return "("
            case "]": return ")"
            case ":": return " "
            case "'": return "`"
            default: return character
            }
        })
    }

    // MARK: fish

    static func fish() -> String {
        var lines = [
            "# fish completion for repeater (made by `repeater completions fish` from its option table)",
            "complete -c repeater -f",
        ]
        let others = commandNames.filter { $0 != "play" }.joined(separator: " ")
        for command in CommandTable.commands {
            lines.append("complete -c repeater -n __fish_use_subcommand -a \(command.name) -d \(fishQuote(command.summary))")
        }
        for option in CommandTable.topLevel.options {
            lines.append("complete -c repeater -n __fish_use_subcommand -l \(option.name.dropFirst(2)) -d \(fishQuote(option.help))")
        }
        lines.append("complete -c repeater -n __fish_use_subcommand -k -a \(fishFiles(.audioOrSession))")
        for command in CommandTable.commands {
            // `repeater FILE …` is play: its options follow a file as well as `play`.
            let condition = command.name == "play"
                ? "'not __fish_use_subcommand; and not __fish_seen_subcommand_from \(others)'"
                : "'__fish_seen_subcommand_from \(command.name)'"
            for option in command.options {
                var line = "complete -c repeater -n \(condition)"
                for name in option.names {
                    line += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst())"
                }
                if let value = option.value {
                    switch value {
                    case .text: line += " -x"
                    case .choice(_, let values, _): line += " -x -a \(fishQuote(values.joined(separator: " ")))"
                    case .file(_, let kind): line += " -r -k -a \(fishFiles(kind))"
                    }
                }
                line += " -d \(fishQuote(summary(option.help)))"
                lines.append(line)
            }
            if let operand = command.operand {
                switch operand {
                case .choice(_, let values, _): lines.append("complete -c repeater -n \(condition) -x -a \(fishQuote(values.joined(separator: " ")))")
                case .file(_, let kind): lines.append("complete -c repeater -n \(condition) -k -a \(fishFiles(kind))")
                case .text: break
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func fishFiles(_ kind: FileKind) -> String {
        if kind == .directory { return "'(__fish_complete_directories)'" }
        if kind.extensions.isEmpty { return "'(__fish_complete_path (commandline -ct))'" }
        return "'(__fish_complete_suffix \(kind.extensions.map { "." + $0 }.joined(separator: " ")))'"
    }

    private static func fishQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
