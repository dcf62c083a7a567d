import Foundation
import RepeaterEngine
import RepeaterKit

/// Parses the command line and runs a command; returns the exit code.
func runMain(_ argv: [String]) -> Int32 {
    var words = Array(argv.dropFirst())
    guard let first = words.first else {
        Console.writeErr(mainHelp + "\n")
        return 2
    }
    do throws(RepeaterError) {
        switch first {
        case "--help", "-h", "help":
            Console.writeOut(mainHelp + "\n")
            return 0
        case "--version":
            Console.writeOut("repeater \(version)\n")
            return 0
        case "play", "info", "render", "chime":
            words.removeFirst()
            return try run(command: first, Arguments(command: first, words))
        default:
            if first.hasPrefix("-") { throw RepeaterError.input("unknown option '\(first)'; see `repeater --help`") }
            // `repeater FILE …` is `repeater play FILE …`, as with other players.
            return try run(command: "play", Arguments(command: "play", words))
        }
    } catch {
        Console.error(error.message)
        return error.exitCode
    }
}

func run(command: String, _ arguments: Arguments) throws(RepeaterError) -> Int32 {
    var arguments = arguments
    switch command {
    case "play": return try play(&arguments)
    case "info": return try info(&arguments)
    case "chime": return try chime(&arguments)
    default: return try render(&arguments)
    }
}

func play(_ arguments: inout Arguments) throws(RepeaterError) -> Int32 {
    var path: String?
    var options = PlayOptions(path: "")
    while let (name, inline) = arguments.next() {
        switch name {
        case "--help", "-h":
            Console.writeOut(playHelp + "\n")
            return 0
        case "--server": options.serverName = try arguments.value(for: name, inline: inline)
        case "--name": options.clientName = try arguments.value(for: name, inline: inline)
        case "--connect": options.connect = ConnectMode(parsing: try arguments.value(for: name, inline: inline))
        case "--start-server": options.startServer = true
        case "--chime-tempo", "--gong-low", "--gong-high":
            try parseChimeOption(name, inline: inline, &arguments, into: &options.chime)
        case "--verbose", "-v": options.verbose = true
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
        case "--osc":
            let text = try arguments.value(for: name, inline: inline)
            guard let port = Int(text), (1...65535).contains(port) else { throw .input("--osc takes a UDP port number (1 to 65535), not '\(text)'") }
            options.oscPort = port
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
        default:
            if try parseSoundOption(name, inline: inline, &arguments, into: &options.sound) {
                options.givenSoundOptions.insert(name)
                continue
            }
            guard path == nil, !name.hasPrefix("-") || name == "-" else { throw arguments.unknown(name) }
            path = name
        }
    }
    guard let path else { throw .input("play needs a FILE; see `repeater play --help`") }
    options.path = path
    let player = try Player(options: options)
    return try player.run()
}

func info(_ arguments: inout Arguments) throws(RepeaterError) -> Int32 {
    var path: String?
    while let (name, _) = arguments.next() {
        if name == "--help" || name == "-h" {
            Console.writeOut(infoHelp + "\n")
            return 0
        }
        guard path == nil, !name.hasPrefix("-") else { throw arguments.unknown(name) }
        path = name
    }
    guard let path else { throw .input("info needs a FILE; see `repeater info --help`") }
    let info = try AudioFile(path: path).info
    let rate = info.sampleRate
    var text = """
    file:        \(info.path)
    format:      \(info.formatName), \(info.encodingName)
    sample rate: \(rate) Hz
    channels:    \(info.channelCount)
    frames:      \(info.frameCount)
    duration:    \(formatTime(frame: info.frameCount, sampleRate: rate))

    """
    if let promised = info.headerFrameCount {
        text += "truncated:   yes: the header promises \(promised) frames (\(formatTime(frame: promised, sampleRate: rate))), \(info.frameCount) are present\n"
    }
    Console.writeOut(text)
    return 0
}

func render(_ arguments: inout Arguments) throws(RepeaterError) -> Int32 {
    var input: String?
    var output: String?
    var format: OutputFormat?
    var sound = SoundOptions()
    var duration: TimeSpec?
    while let (name, inline) = arguments.next() {
        switch name {
        case "--help", "-h":
            Console.writeOut(renderHelp + "\n")
            return 0
        case "-o", "--output": output = try arguments.value(for: name, inline: inline)
        case "--format":
            let text = try arguments.value(for: name, inline: inline)
            guard let value = OutputFormat(rawValue: text) else {
                throw .input("--format takes \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            format = value
        case "--duration": duration = try parseTime(try arguments.value(for: name, inline: inline), option: name)
        default:
            if try parseSoundOption(name, inline: inline, &arguments, into: &sound) { continue }
            guard input == nil, !name.hasPrefix("-") else { throw arguments.unknown(name) }
            input = name
        }
    }
    guard let input else { throw .input("render needs a FILE; see `repeater render --help`") }
    guard let output else { throw .input("render needs -o OUT (the file to write)") }
    var options = RenderOptions(inputPath: input, outputPath: output)
    options.format = format
    options.sound = sound
    options.duration = duration
    options.progress = isatty(2) == 1
    let frames = try OfflineRenderer(options: options).run()
    if isatty(2) == 1 { Console.note("wrote \(frames) frames to '\(output)'") }
    return 0
}

func chime(_ arguments: inout Arguments) throws(RepeaterError) -> Int32 {
    var at: (hour: Int, minute: Int)?
    var renderPath: String?
    var options = ChimeOptions()
    var runner = ChimeRunner(hour: 0, minute: 0)
    while let (name, inline) = arguments.next() {
        switch name {
        case "--help", "-h":
            Console.writeOut(chimeHelp + "\n")
            return 0
        case "--at": at = try ChimeOptions.parseTime(try arguments.value(for: name, inline: inline))
        case "--render": renderPath = try arguments.value(for: name, inline: inline)
        case "--chime-tempo", "--gong-low", "--gong-high": try parseChimeOption(name, inline: inline, &arguments, into: &options)
        case "--server": runner.serverName = try arguments.value(for: name, inline: inline)
        case "--name": runner.clientName = try arguments.value(for: name, inline: inline)
        case "--connect": runner.connect = ConnectMode(parsing: try arguments.value(for: name, inline: inline))
        case "--start-server": runner.startServer = true
        case "--verbose", "-v": runner.verbose = true
        default: throw arguments.unknown(name)
        }
    }
    let time = at ?? ChimeOptions.now()
    runner.hour = time.hour
    runner.minute = time.minute
    runner.chime = options
    if let renderPath {
        try runner.render(to: renderPath)
        return 0
    }
    return try runner.play()
}

exit(runMain(CommandLine.arguments))
