import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterLines
import RepeaterWeb

/// Parses the command line (against `CommandTable`) and runs the command; returns the exit code.
func runMain(_ argv: [String]) -> Int32 {
    let arguments = Array(argv.dropFirst())
    if arguments.isEmpty {
        Console.writeErr(HelpText.main + "\n")
        return 2
    }
    do throws(RepeaterError) {
        switch try Invocation.parse(arguments) {
        case .print(let text):
            Console.writeOut(text.hasSuffix("\n") ? text : text + "\n")
            return 0
        case .play(let options):
            let player = try Player(options: options)
            player.surfaces = try PracticePage.surfaces(for: options)  // a port in use fails before JACK
            return try player.run()
        case .info(let path):
            return try info(path)
        case .render(var options):
            options.progress = isatty(2) == 1
            let frames = try OfflineRenderer(options: options).run()
            if isatty(2) == 1 { Console.note("wrote \(frames) frames to '\(options.outputPath)'") }
            return 0
        case .chime(let runner, let renderPath):
            if let renderPath {
                try runner.render(to: renderPath)
                return 0
            }
            return try runner.play()
        case .analyze(let path, let json, let useCache):
            _ = try AudioFile(path: path)  // a one-line error for what is not audio, before any hashing
            var bar = ProgressBar(label: "analysing", enabled: isatty(2) == 1, total: 1000, sampleRate: 0)
            let result: (grid: BeatGrid, cached: Bool)
            if useCache {
                result = try MapAnalysis.grid(path: path, progress: { bar.update(fraction: $0) }, warn: { Console.warning($0) })
            } else {
                let grid = try MapAnalysis.analyse(path: path, progress: { bar.update(fraction: $0) })
                MapCache.save(grid, to: try MapCache.entryPath(forAudio: path))
                result = (grid, false)
            }
            if !result.cached { bar.finish() }
            Console.writeOut((json ? MapReport.json(result.grid, cached: result.cached) : MapReport.text(result.grid, path: path, cached: result.cached)) + "\n")
            return 0
        case .phrases(let path, let format, let output):
            let lines = try RecordingLines.phrases(path: path)
            let info = try AudioFile(path: path).info
            let named: [String: LineFormat] = ["srt": .subRip, "vtt": .webVTT, "labels": .audacityLabels, "json": .json]
            let lineFormat = format.flatMap { named[$0] } ?? output.flatMap { LineFormat(path: $0) } ?? .subRip
            let text = LineFileWriter.text(of: lines.textLines(sampleRate: info.sampleRate), format: lineFormat)
            if let output {
                do { try text.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                    throw .input("cannot write '\(output)': \(error.localizedDescription)")
                }
                Console.note("wrote \(lines.lines.count) phrases to '\(output)'")
            } else {
                Console.writeOut(text)
            }
            return 0
        case .doctor(let options):
            let report = Doctor(options: options).run()
            Console.writeOut((options.json ? Doctor.json(report) : Doctor.text(report)) + "\n")
            return report.playbackWorks ? 0 : 1
        }
    } catch {
        Console.error(error.message)
        return error.exitCode
    }
}

func info(_ path: String) throws(RepeaterError) -> Int32 {
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

// A file size limit reached (a take, a session) is a failed write to report, not a death.
signal(SIGXFSZ, SIG_IGN)
exit(runMain(CommandLine.arguments))
