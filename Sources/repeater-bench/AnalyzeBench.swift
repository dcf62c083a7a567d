import Foundation
import RepeaterAnalysis
import RepeaterTestSupport

/// `repeater-bench analyze`: the CPU cost of a recording's map (beats, bars, meter, key; nothing
/// cached) against aubio's beat tracker on the same file, in the same run.
///
/// The recording: the accuracy set's pieces back to back, rendered by FluidSynth to a stereo
/// 32-bit float WAV (`--minutes`, default 5; `--rate`, default 44100), or `--file F`. Each round
/// measures, as process CPU seconds (user + system, getrusage):
/// - reading the file alone through libsndfile in 64 Ki-frame blocks;
/// - reading and analysing it (`MusicAnalyzer.analyze`), and the final step alone (`finish()`:
///   tempo tracking, bars, key, after the blocks are in);
/// - `aubio beat FILE` (aubio-tools' Python command) and `aubiotrack -i FILE` (its C program), as
///   child processes (children's rusage).
/// Prints one line per round and the best of the rounds (`--rounds`, default 3).
/// `--corpus [N]`: instead, the real-music corpus (its first N tracks), see `runCorpusBench`.
public func runAnalyzeBench(arguments: [String]) {
    var minutes = 5.0, rate = 44_100, rounds = 3
    var file: String?
    if let index = arguments.firstIndex(of: "--corpus") {
        runCorpusBench(limit: arguments.dropFirst(index + 1).first.flatMap { Int($0) })
        return
    }
    var rest = arguments
    while !rest.isEmpty {
        let name = rest.removeFirst()
        let value = rest.isEmpty ? "" : rest.removeFirst()
        switch name {
        case "--minutes": minutes = Double(value) ?? minutes
        case "--rate": rate = Int(value) ?? rate
        case "--rounds": rounds = max(1, Int(value) ?? rounds)
        case "--file": file = value
        default:
            FileHandle.standardError.write(Data("repeater-bench analyze: unknown option \(name)\n".utf8))
            exit(2)
        }
    }
    let scratch = NSTemporaryDirectory() + "repeater-bench-analyze-\(getpid())"
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let path = file ?? scratch + "/medley.wav"
    do {
        if file == nil {
            FileHandle.standardError.write(Data("rendering \(minutes) min with FluidSynth…\n".utf8))
            try FluidSynth.render(AccuracySet.medley(seconds: minutes * 60), to: path, sampleRate: rate)
        }
        let info = try SoundFileReader(path: path)
        let seconds = Double(info.frameCount) / Double(info.sampleRate)
        print(String(format: "repeater-bench analyze: %.1f s, %d channels, %d Hz (%@)", seconds, info.channelCount, info.sampleRate,
                     (path as NSString).lastPathComponent))
        print("round | read only | read+analyse | of which finish() | analysis alone | aubio beat (Python) | aubiotrack (C)")
        var best = [Double](repeating: .infinity, count: 6)
        var analysis: MusicAnalysis?
        var heldBytes = 0
        for round in 1...rounds {
            let readOnly = try cpuSeconds { try readAll(path) }
            var finish = 0.0
            let whole = try cpuSeconds { (finish, analysis, heldBytes) = try analyse(path) }
            let aubio = childCPUSeconds("/usr/bin/aubio", ["beat", path])
            let aubioTrack = childCPUSeconds("/usr/bin/aubiotrack", ["-i", path])
            let figures = [readOnly, whole, finish, whole - readOnly, aubio, aubioTrack]
            for (index, value) in figures.enumerated() { best[index] = min(best[index], value) }
            print(String(format: "%5d | %7.3f s | %10.3f s | %15.3f s | %12.3f s | %17.3f s | %12.3f s", round,
                         figures[0], figures[1], figures[2], figures[3], figures[4], figures[5]))
        }
        print(String(format: " best | %7.3f s | %10.3f s | %15.3f s | %12.3f s | %17.3f s | %12.3f s",
                     best[0], best[1], best[2], best[3], best[4], best[5]))
        print(String(format: "analysis: %.0f× faster than real time (%.2f %% of the recording's duration; goal ≤ 2 s for 5 min)",
                     seconds / best[1], 100 * best[1] / seconds))
        if let analysis {
            print(String(format: "found: %d beats, %d bars of %d, %.1f BPM (a tempo map of %d entries), key %@",
                         analysis.beatFrames.count, analysis.downbeatFrames.count, analysis.beatsPerBar, analysis.tempoBPM,
                         analysis.tempoChanges.count, analysis.key?.name ?? "none"))
        }
        print(String(format: "held by the analyzer at the end: %.2f MB (the samples: %.1f MB)", Double(heldBytes) / 1e6,
                     Double(info.frameCount * info.channelCount * 4) / 1e6))
    } catch {
        FileHandle.standardError.write(Data("repeater-bench analyze: \(error)\n".utf8))
        exit(1)
    }
}

func readAll(_ path: String) throws {
    let reader = try SoundFileReader(path: path)
    var block = [Float](repeating: 0, count: 65_536 * reader.channelCount)
    while block.withUnsafeMutableBufferPointer({ reader.read(into: $0) }) > 0 {}
}

/// CPU seconds of `finish()` alone, the analysis, and the bytes the analyzer held.
func analyse(_ path: String) throws -> (Double, MusicAnalysis, Int) {
    let analyzer = try SoundFileReader.musicAnalyzer(fedWith: path)
    var analysis: MusicAnalysis?
    let finish = try cpuSeconds { analysis = try analyzer.finish() }
    return (finish, analysis!, analyzer.heldByteCount)
}

private func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }

/// This process's CPU seconds (user + system, all threads) spent in `body`.
func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
    var before = rusage(), after = rusage()
    getrusage(RUSAGE_SELF.rawValue, &before)
    try body()
    getrusage(RUSAGE_SELF.rawValue, &after)
    return seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime)
}

/// A program's CPU seconds, run to its end as a child (children's rusage); -1 if it cannot run.
func childCPUSeconds(_ path: String, _ arguments: [String]) -> Double {
    guard FileManager.default.isExecutableFile(atPath: path) else { return -1 }
    var before = rusage(), after = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &before)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return -1 }
    process.waitUntilExit()
    getrusage(RUSAGE_CHILDREN.rawValue, &after)
    return seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime)
}
