import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// A value each option's placeholder accepts, to parse every option of the table.
private func sample(for value: ValueKind) -> String {
    switch value {
    case .choice(_, let values, _): return values[0]
    case .file(_, let kind): return kind == .session ? "s.json" : "x.wav"
    case .text(let placeholder):
        switch placeholder {
        case "TIME": return "1.5"
        case "A-B": return "1-2"
        case "N", "MS", "X", "R": return "1"
        case "L,M,H": return "-24,0,3"
        case "S", "P": return "0"
        case "V": return "-6dB"
        case "PORT", "[HOST:]PORT": return "9000"
        case "LIST": return "192.168.1.0/24"
        case "HZ": return "10"
        case "F:S:E:T": return "0.6:0.05:3:1.0"
        case "N[xK]": return "3x1.5"
        case "HH:MM": return "3:47"
        default: return "x"
        }
    }
}

/// The operand a command needs for its options to be parsed.
private func operands(for command: CommandSpec) -> [String] {
    switch command.name {
    case "play", "info", "analyze", "phrases": return ["x.wav"]
    case "render": return ["x.wav", "-o", "y.wav"]
    case "completions": return ["bash"]
    default: return []
    }
}

/// Runs `script` in bash and returns its stdout lines.
private func bash(_ script: String, in directory: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

@Suite("The command line: one table for --help, the parser, the completions and the manuals")
struct CommandLineTests {
    @Test("every option in the table parses, by its long name and its aliases, with and without =VALUE")
    func everyOptionParses() throws {
        for command in CommandTable.commands {
            for option in command.options where option.name != "--help" {
                for name in option.names {
                    var words = [command.name] + operands(for: command) + [name]
                    if let value = option.value { words.append(sample(for: value)) }
                    do {
                        _ = try Invocation.parse(words)
                    } catch {
                        Issue.record("repeater \(words.joined(separator: " ")): \(error.message)")
                    }
                }
                if let value = option.value {
                    let words = [command.name] + operands(for: command) + ["\(option.name)=\(sample(for: value))"]
                    do { _ = try Invocation.parse(words) } catch { Issue.record("repeater \(words.joined(separator: " ")): \(error.message)") }
                }
            }
        }
    }

    @Test("an option the table does not list is refused in one line naming it; a flag refuses a value")
    func unknownOptions() throws {
        #expect(throws: RepeaterError.input("unknown option '--bogus' for `repeater play`; see `repeater play --help`")) {
            _ = try Invocation.parse(["play", "x.wav", "--bogus"])
        }
        #expect(throws: RepeaterError.input("unknown option '--rate' for `repeater info`; see `repeater info --help`")) {
            _ = try Invocation.parse(["info", "x.wav", "--rate", "1"])
        }
        #expect(throws: RepeaterError.input("--fresh takes no value; see `repeater play --help`")) {
            _ = try Invocation.parse(["play", "x.wav", "--fresh=yes"])
        }
        #expect(throws: RepeaterError.input("completions takes bash, zsh or fish, not 'tcsh'")) {
            _ = try Invocation.parse(["completions", "tcsh"])
        }
        #expect(throws: RepeaterError.input("--loop-cache takes on or off, not 'maybe'")) {
            _ = try Invocation.parse(["play", "x.wav", "--loop-cache", "maybe"])
        }
    }

    @Test("--version prints the version; each command's --help lists each of its options")
    func helpListsTheTable() throws {
        guard case .print(let version) = try Invocation.parse(["--version"]) else { Issue.record("no --version text"); return }
        #expect(version == "repeater \(CommandTable.version)")
        guard case .print(let main) = try Invocation.parse(["--help"]) else { Issue.record("no --help text"); return }
        for command in CommandTable.commands { #expect(main.contains("repeater \(command.name)"), "\(command.name)") }
        for command in CommandTable.commands {
            guard case .print(let help) = try Invocation.parse([command.name, "--help"]) else { Issue.record("\(command.name) --help"); continue }
            for option in command.options {
                let head = option.names.joined(separator: ", ") + (option.value.map { " " + $0.placeholder } ?? "")
                #expect(help.contains("  " + head), "\(command.name) --help lacks \(head)")
            }
        }
    }

    /// The options and subcommands `--help` prints: what the manuals must name.
    private var documentedNames: [String] {
        CommandTable.commands.map(\.name) + CommandTable.commands.flatMap { $0.options.flatMap(\.names) } + ["--version"]
    }

    @Test("docs/manual.md names every subcommand and option of every --help")
    func manualCoversOptions() throws {
        let manual = try String(contentsOfFile: repositoryRoot + "/docs/manual.md", encoding: .utf8)
        for name in Set(documentedNames) { #expect(manual.contains("`\(name)") || manual.contains(" \(name) ") || manual.contains("`repeater \(name)"), "docs/manual.md does not name \(name)") }
    }

    @Test("the manual page (man/repeater.1.scd through scdoc) reads with man -l and names every subcommand and option")
    func manualPageCoversOptions() throws {
        let scratch = ScratchDirectory()
        let lines = try bash("scdoc < '\(repositoryRoot)/man/repeater.1.scd' > repeater.1 && MANWIDTH=1000 man -l repeater.1 2>&1", in: scratch.path)
        let page = lines.joined(separator: "\n")
        #expect(page.contains("NAME") && page.contains("repeater - a practice player for the JACK audio graph"), "\(page.prefix(400))")
        for name in Set(documentedNames) {
            let pattern = "(^|[^A-Za-z0-9-])" + NSRegularExpression.escapedPattern(for: name) + "($|[^A-Za-z0-9-])"
            #expect(page.range(of: pattern, options: .regularExpression) != nil, "the manual page does not name \(name)")
        }
    }

    @Test("bash completion (driven through compgen): subcommands, options, fixed values, audio and session files")
    func bashCompletion() throws {
        let scratch = ScratchDirectory()
        for name in ["song.flac", "talk.MP3", "notes.txt", "practice.json", "take.wav"] {
            FileManager.default.createFile(atPath: scratch.file(name), contents: Data())
        }
        try FileManager.default.createDirectory(atPath: scratch.file("albums"), withIntermediateDirectories: true)
        try Completions.script(for: .bash).write(toFile: scratch.file("repeater.bash"), atomically: true, encoding: .utf8)
        let cases: [([String], [String])] = [
            (["repeater", ""], ["albums", "analyze", "chime", "completions", "doctor", "info", "phrases", "play", "practice.json", "render", "song.flac", "take.wav", "talk.MP3"]),
            (["repeater", "--v"], ["--version"]),
            (["repeater", "play", "--eng"], ["--engine"]),
            (["repeater", "play", "--engine", ""], ["faster", "finer"]),
            (["repeater", "play", "--connect", ""], ["auto", "none"]),
            (["repeater", "play", "--transport", ""], ["drive", "follow", "off"]),
            (["repeater", "play", "--status", ""], ["auto", "json", "lines", "none"]),
            (["repeater", "play", "--session", ""], ["albums", "practice.json"]),
            (["repeater", "play", ""], ["albums", "practice.json", "song.flac", "take.wav", "talk.MP3"]),
            (["repeater", "song.flac", "--ra"], ["--rate"]),
            (["repeater", "play", "--rate", ""], []),
            (["repeater", "info", "t"], ["take.wav", "talk.MP3"]),
            (["repeater", "render", "song.flac", "-o", "n"], ["notes.txt"]),
            (["repeater", "render", "song.flac", "--format", "wav"], ["wav", "wav16", "wav24"]),
            (["repeater", "completions", ""], ["bash", "fish", "zsh"]),
        ]
        for (words, expected) in cases {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script = "source repeater.bash; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _repeater; printf '%s\\n' \"${COMPREPLY[@]}\""
            let offered = try bash(script, in: scratch.path).filter { !$0.isEmpty }.sorted()
            #expect(offered == expected, "\(words.joined(separator: " ")) offers \(offered)")
        }
    }

    @Test("fish completion offers the same values (fish's complete -C); the zsh script parses (zsh -n)")
    func fishAndZsh() throws {
        let scratch = ScratchDirectory()
        FileManager.default.createFile(atPath: scratch.file("song.flac"), contents: Data())
        try Completions.script(for: .fish).write(toFile: scratch.file("repeater.fish"), atomically: true, encoding: .utf8)
        try Completions.script(for: .zsh).write(toFile: scratch.file("_repeater"), atomically: true, encoding: .utf8)
        let fish = try bash("fish -c 'source repeater.fish; complete -C \"repeater play --engine \"; complete -C \"repeater \"; complete -C \"repeater play --tr\"'", in: scratch.path)
        let words = fish.map { String($0.split(separator: "\t").first ?? "") }
        for expected in ["finer", "faster", "play", "doctor", "song.flac", "--transport", "--trainer"] {
            #expect(words.contains(expected), "fish does not offer \(expected): \(words)")
        }
        let zsh = try bash("zsh -n _repeater && echo parsed", in: scratch.path)
        #expect(zsh == ["parsed"])
    }

    @Test("scripts/install puts the binary, man page and completions under a prefix; it runs from any folder; scripts/uninstall removes exactly those")
    func installAndUninstall() throws {
        let release = repositoryRoot + "/.build/release/repeater"
        try #require(FileManager.default.isExecutableFile(atPath: release), "no release build: run `swift build -c release` first (scripts/test does)")
        let scratch = ScratchDirectory()
        let prefix = scratch.file("prefix")
        let installed = try bash("'\(repositoryRoot)/scripts/install' --prefix '\(prefix)' --no-build >/dev/null && echo installed", in: scratch.path)
        #expect(installed == ["installed"])
        let files = [
            "bin/repeater", "share/man/man1/repeater.1", "share/bash-completion/completions/repeater",
            "share/zsh/site-functions/_repeater", "share/fish/vendor_completions.d/repeater.fish",
        ]
        let found = try bash("cd '\(prefix)' && find . -type f | sed 's|^./||' | sort", in: scratch.path)
        #expect(found == files.sorted())
        // From another folder, through PATH: the version, the manual page, the completion.
        let check = try bash("""
            cd / && export PATH='\(prefix)/bin':"$PATH" && repeater --version \
            && MANWIDTH=80 man -l '\(prefix)/share/man/man1/repeater.1' 2>/dev/null | head -4 | tail -1 \
            && source '\(prefix)/share/bash-completion/completions/repeater' && COMP_WORDS=(repeater doc) COMP_CWORD=1 && _repeater && echo "${COMPREPLY[@]}"
            """, in: scratch.path)
        #expect(check == ["repeater \(CommandTable.version)", "       repeater - a practice player for the JACK audio graph", "doctor"], "\(check)")
        // A file of the user's under the prefix stays.
        FileManager.default.createFile(atPath: prefix + "/bin/other-tool", contents: Data())
        let removed = try bash("'\(repositoryRoot)/scripts/uninstall' --prefix '\(prefix)' | tail -1", in: scratch.path)
        #expect(removed == ["removed 5 file(s) of repeater from \(prefix)"])
        let left = try bash("cd '\(prefix)' && find . -type f | sed 's|^./||'", in: scratch.path)
        #expect(left == ["bin/other-tool"])
    }
}
