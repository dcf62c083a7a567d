import Foundation
import RepeaterEngine

/// What a command line asks for, parsed against `CommandTable` and checked; nothing runs yet.
public enum Invocation {
    /// Print this text on stdout and exit 0 (`--help`, `--version`, `completions`).
    case print(String)
    case play(PlayOptions)
    case info(path: String)
    case render(RenderOptions)
    /// Strike the chime through JACK, or (`renderPath`) into a file.
    case chime(ChimeRunner, renderPath: String?)
    case doctor(DoctorOptions)
    case analyze(path: String, json: Bool, useCache: Bool)
    case phrases(path: String, format: String?, output: String?)

    /// Parses `arguments` (without the program name). Empty arguments are an error: the help goes
    /// to stderr and the exit code is 2.
    public static func parse(_ arguments: [String]) throws(RepeaterError) -> Invocation {
        guard let first = arguments.first else { throw RepeaterError(.input, HelpText.main) }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h", "help": return .print(HelpText.main)
        case "--version": return .print("repeater \(CommandTable.version)")
        case "play": return try parsePlay(Arguments(CommandTable.play, rest))
        case "info": return try parseInfo(Arguments(CommandTable.info, rest))
        case "analyze": return try parseAnalyze(Arguments(CommandTable.analyze, rest))
        case "phrases": return try parsePhrases(Arguments(CommandTable.phrases, rest))
        case "render": return try parseRender(Arguments(CommandTable.render, rest))
        case "chime": return try parseChime(Arguments(CommandTable.chime, rest))
        case "doctor": return try parseDoctor(Arguments(CommandTable.doctor, rest))
        case "completions": return try parseCompletions(Arguments(CommandTable.completions, rest))
        default:
            if first.hasPrefix("-") && first != "-" { throw .input("unknown option '\(first)'; see `repeater --help`") }
            // `repeater FILE …` is `repeater play FILE …`, as with other players.
            return try parsePlay(Arguments(CommandTable.play, arguments))
        }
    }

    static func parsePlay(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var path: String?
        var options = PlayOptions(path: "")
        while let (name, inline) = try arguments.next() {
            switch name {
            case "--help": return .print(HelpText.command(CommandTable.play))
            case "--server": options.serverName = try arguments.value(for: name, inline: inline)
            case "--name": options.clientName = try arguments.value(for: name, inline: inline)
            case "--connect": options.connect = ConnectMode(parsing: try arguments.value(for: name, inline: inline))
            case "--start-server": options.startServer = true
            case "--chime-tempo", "--gong-low", "--gong-high":
                try parseChimeOption(name, inline: inline, &arguments, into: &options.chime)
            case "--verbose": options.verbose = true
            case "--quit-on-eof": options.quitOnEOF = true
            case "--status":
                let text = try arguments.value(for: name, inline: inline)
                guard let mode = StatusMode(rawValue: text) else {
                    throw .input("--status takes auto, json, lines or none, not '\(text)'")
                }
                options.status = mode
            case "--transport":
                let text = try arguments.value(for: name, inline: inline)
                guard let mode = TransportMode(name: text) else { throw .input("--transport takes off, follow or drive, not '\(text)'") }
                options.transport = mode
            case "--midi": options.midi = true
            case "--reconnect": options.reconnect = true
            case "--midi-connect":
                options.midi = true
                options.midiConnect = try arguments.value(for: name, inline: inline)
            case "--osc": options.osc = try ListenAddress(parsing: try arguments.value(for: name, inline: inline))
            case "--osc-allow": options.oscAllow = try AllowList(parsing: try arguments.value(for: name, inline: inline))
            case "--web": options.web = try ListenAddress(parsing: try arguments.value(for: name, inline: inline), option: name, transport: "TCP")
            case "--web-allow": options.webAllow = try AllowList(parsing: try arguments.value(for: name, inline: inline), option: name)
            case "--render-ahead":
                let text = try arguments.value(for: name, inline: inline)
                if text == "auto" {
                    options.renderAhead = nil
                } else {
                    guard let periods = Int(text), (0...4).contains(periods) else {
                        throw .input("--render-ahead takes auto or a number of periods from 0 (in the process callback) to 4, not '\(text)'")
                    }
                    options.renderAhead = periods
                }
            case "--session": options.session = .file(try arguments.value(for: name, inline: inline))
            case "--no-session": options.session = .none
            case "--fresh": options.fresh = true
            case "--trainer":
                let text = try arguments.value(for: name, inline: inline)
                do { options.trainer = try TrainerSpec(parsing: text) } catch { throw .input("--trainer: " + error.message) }
            case "--meter":
                let text = try arguments.value(for: name, inline: inline)
                guard let stage = MeterStage(rawValue: text) else { throw .input("--meter takes pre or post, not '\(text)'") }
                options.meterStage = stage
            case "--status-hz":
                options.statusHz = try parseNumber(try arguments.value(for: name, inline: inline), option: name, range: 0.1...100)
            case "--snap":
                let text = try arguments.value(for: name, inline: inline)
                guard let mode = SnapMode(rawValue: text) else { throw .input("--snap takes beat, bar or off, not '\(text)'") }
                options.snap = mode
            case "--count-in":
                let text = try arguments.value(for: name, inline: inline)
                guard let beats = Int(text), (0...16).contains(beats) else { throw .input("--count-in takes 0 to 16 clicks, not '\(text)'") }
                options.countIn = beats
            case "--click": options.click = true
            case "--subs": options.subs = try arguments.value(for: name, inline: inline)
            case "--phrases":
                let text = try arguments.value(for: name, inline: inline)
                guard text == "auto" else { throw .input("--phrases takes auto (lines found at the pauses of the speech), not '\(text)'") }
                options.phrases = true
            case "--drill":
                do { options.drill = try DrillSpec(parsing: try arguments.value(for: name, inline: inline)) } catch { throw .input("--drill: " + error.message) }
            case "--click-connect": options.clickConnect = ConnectMode(parsing: try arguments.value(for: name, inline: inline))
            case "--click-mix": options.clickMix = true
            case "--record": options.record = ConnectMode(parsing: try arguments.value(for: name, inline: inline))
            case "--record-channels":
                let text = try arguments.value(for: name, inline: inline)
                guard let count = Int(text), (1...2).contains(count) else { throw .input("--record-channels takes 1 or 2, not '\(text)'") }
                options.recordChannels = count
            case "--compare":
                let text = try arguments.value(for: name, inline: inline)
                guard let mode = CompareMode(rawValue: text) else { throw .input("--compare takes alternate, both or take, not '\(text)'") }
                options.compare = mode
            case "--compare-pan":
                options.comparePan = try parseNumber(try arguments.value(for: name, inline: inline), option: name, range: 0...1)
            case "--takes-max":
                let text = try arguments.value(for: name, inline: inline)
                guard let count = Int(text), (1...10_000).contains(count) else { throw .input("--takes-max takes 1 to 10000, not '\(text)'") }
                options.takesMax = count
            default:
                if try parseSoundOption(name, inline: inline, &arguments, into: &options.sound) {
                    options.givenSoundOptions.insert(name)
                    continue
                }
                try arguments.operand(name, into: &path)
            }
        }
        guard let path else { throw .input("play needs a FILE; see `repeater play --help`") }
        options.path = path
        return .play(options)
    }

    static func parseInfo(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var path: String?
        while let (name, _) = try arguments.next() {
            if name == "--help" { return .print(HelpText.command(CommandTable.info)) }
            guard path == nil, !name.hasPrefix("-") || name == "-" else { throw arguments.unknown(name) }
            path = name
        }
        guard let path else { throw .input("info needs a FILE; see `repeater info --help`") }
        return .info(path: path)
    }

    static func parseAnalyze(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var path: String?
        var json = false
        var useCache = true
        while let (name, _) = try arguments.next() {
            switch name {
            case "--help": return .print(HelpText.command(CommandTable.analyze))
            case "--json": json = true
            case "--no-cache": useCache = false
            default:
                try arguments.operand(name, into: &path)
            }
        }
        guard let path else { throw .input("analyze needs a FILE; see `repeater analyze --help`") }
        return .analyze(path: path, json: json, useCache: useCache)
    }

    static func parsePhrases(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var path: String?
        var format: String?
        var output: String?
        while let (name, inline) = try arguments.next() {
            switch name {
            case "--help": return .print(HelpText.command(CommandTable.phrases))
            case "--format":
                let text = try arguments.value(for: name, inline: inline)
                guard ["srt", "vtt", "labels", "json"].contains(text) else { throw .input("--format takes srt, vtt, labels or json, not '\(text)'") }
                format = text
            case "--output": output = try arguments.value(for: name, inline: inline)
            default:
                try arguments.operand(name, into: &path)
            }
        }
        guard let path else { throw .input("phrases needs a FILE; see `repeater phrases --help`") }
        return .phrases(path: path, format: format, output: output)
    }

    static func parseRender(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var input: String?
        var output: String?
        var format: OutputFormat?
        var sound = SoundOptions()
        var duration: TimeSpec?
        while let (name, inline) = try arguments.next() {
            switch name {
            case "--help": return .print(HelpText.command(CommandTable.render))
            case "--output": output = try arguments.value(for: name, inline: inline)
            case "--format":
                let text = try arguments.value(for: name, inline: inline)
                guard let value = OutputFormat(rawValue: text) else {
                    throw .input("--format takes \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
                }
                format = value
            case "--duration": duration = try parseTime(try arguments.value(for: name, inline: inline), option: name)
            default:
                if try parseSoundOption(name, inline: inline, &arguments, into: &sound) { continue }
                try arguments.operand(name, into: &input)
            }
        }
        guard let input else { throw .input("render needs a FILE; see `repeater render --help`") }
        guard let output else { throw .input("render needs -o OUT (the file to write)") }
        var options = RenderOptions(inputPath: input, outputPath: output)
        options.format = format
        options.sound = sound
        options.duration = duration
        return .render(options)
    }

    static func parseChime(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var at: (hour: Int, minute: Int)?
        var renderPath: String?
        var options = ChimeOptions()
        var runner = ChimeRunner(hour: 0, minute: 0)
        while let (name, inline) = try arguments.next() {
            switch name {
            case "--help": return .print(HelpText.command(CommandTable.chime))
            case "--at": at = try ChimeOptions.parseTime(try arguments.value(for: name, inline: inline))
            case "--render": renderPath = try arguments.value(for: name, inline: inline)
            case "--chime-tempo", "--gong-low", "--gong-high": try parseChimeOption(name, inline: inline, &arguments, into: &options)
            case "--server": runner.serverName = try arguments.value(for: name, inline: inline)
            case "--name": runner.clientName = try arguments.value(for: name, inline: inline)
            case "--connect": runner.connect = ConnectMode(parsing: try arguments.value(for: name, inline: inline))
            case "--start-server": runner.startServer = true
            case "--verbose": runner.verbose = true
            default:
                if name.hasPrefix("-") && name != "-" { throw arguments.unhandled(name) }
                throw arguments.unknown(name)
            }
        }
        let time = at ?? ChimeOptions.now()
        runner.hour = time.hour
        runner.minute = time.minute
        runner.chime = options
        return .chime(runner, renderPath: renderPath)
    }

    static func parseDoctor(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var options = DoctorOptions()
        while let (name, inline) = try arguments.next() {
            switch name {
            case "--help": return .print(HelpText.command(CommandTable.doctor))
            case "--server": options.serverName = try arguments.value(for: name, inline: inline)
            case "--json": options.json = true
            default:
                if name.hasPrefix("-") && name != "-" { throw arguments.unhandled(name) }
                throw arguments.unknown(name)
            }
        }
        return .doctor(options)
    }

    static func parseCompletions(_ arguments: Arguments) throws(RepeaterError) -> Invocation {
        var arguments = arguments
        var shell: Completions.Shell?
        while let (name, _) = try arguments.next() {
            if name == "--help" { return .print(HelpText.command(CommandTable.completions)) }
            guard shell == nil, let value = Completions.Shell(rawValue: name) else {
                throw .input("completions takes bash, zsh or fish, not '\(name)'")
            }
            shell = value
        }
        guard let shell else { throw .input("completions needs a shell: bash, zsh or fish") }
        return .print(Completions.script(for: shell))
    }
}
