import CRepeaterSupport
import Foundation
import RepeaterKit

/// `repeater-bench system`: whole programs, side by side in one run, on a private real-time jackd
/// (`jackd -R`, dummy backend, 48 kHz, 256 frames):
/// - CPU seconds of the whole process (children's rusage) for librubberband alone (a tight loop over
///   the file, with repeater's speed-only options and with PitchHighConsistency), `repeater play` at
///   speed 1 and at the test speed with R3 and R2, and mpv with its rubberband filter (if installed);
/// - the stretching's own cost: repeater at the test speed minus repeater at speed 1 scaled to the
///   same playing time, and its ratio to librubberband alone with the same options;
/// - the process callback's mean, p99.9 and worst share of a period, and xruns against an idle
///   client on the same server for the same time (`REPEATER_CALLBACK_STATS`);
/// - live edits: 200 rate/pitch/loop commands a second against the same run without them.
/// Rounds are interleaved; each cell gives the range over the rounds.
/// `--parts stretch,rates,loop` picks the parts (all by default): `stretch` is the above; `rates` is
/// a file at another rate at speed 1 (RatesBench.swift; `--rates-seconds`, `--before DIR`); `loop`
/// a 10 s loop at 0.75 replayed from the loop cache against live and mpv (LoopBench.swift;
/// `--loop-seconds`, `--loop-minutes` for a long run's late periods and xruns); `isolate` the
/// render's share with `--isolate off`, `centre` and `sides` (IsolateBench.swift; `--isolate-seconds`, `--before DIR`).
func runSystem(arguments: [String]) throws(RepeaterError) {
    var seconds = 60.0, rounds = 2, speed = 0.75, editSeconds = 10.0, ratesSeconds = 60.0, loopSeconds = 60.0, loopMinutes = 0.0
    var isolateSeconds = 25.0
    var file: String?, before: String?
    var parts: Set<String> = ["stretch", "rates", "loop", "isolate"]
    var rest = arguments
    while !rest.isEmpty {
        let name = rest.removeFirst()
        let value = rest.isEmpty ? "" : rest.removeFirst()
        switch name {
        case "--seconds": seconds = Double(value) ?? seconds
        case "--rounds": rounds = Int(value) ?? rounds
        case "--rate": speed = Double(value) ?? speed
        case "--file": file = value
        case "--edits-seconds": editSeconds = Double(value) ?? editSeconds
        case "--rates-seconds": ratesSeconds = Double(value) ?? ratesSeconds
        case "--loop-seconds": loopSeconds = Double(value) ?? loopSeconds
        case "--loop-minutes": loopMinutes = Double(value) ?? loopMinutes
        case "--isolate-seconds": isolateSeconds = Double(value) ?? isolateSeconds
        case "--before": before = value + "/repeater"
        case "--parts": parts = Set(value.split(separator: ",").map(String.init))
        default: throw .input("system: unknown option \(name)")
        }
    }
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    let repeater = products + "/repeater", capture = products + "/repeater-capture", bench = products + "/repeater-bench"
    guard FileManager.default.isExecutableFile(atPath: repeater) else { throw .input("build repeater first (swift build -c release)") }
    if let before, !FileManager.default.isExecutableFile(atPath: before) { throw .input("--before: no repeater in that folder") }
    let scratch = NSTemporaryDirectory() + "repeater-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let mpv = FileManager.default.isExecutableFile(atPath: "/usr/bin/mpv") ? "/usr/bin/mpv" : nil
    if parts.contains("stretch") {
        try runStretchPart(seconds: seconds, rounds: rounds, speed: speed, editSeconds: editSeconds, file: file,
                           repeater: repeater, capture: capture, bench: bench, mpv: mpv, scratch: scratch)
    }
    if parts.contains("rates") {
        try RatesBench(seconds: ratesSeconds, rounds: rounds, repeater: repeater, before: before, mpv: mpv, scratch: scratch).run()
    }
    if parts.contains("loop") {
        try LoopBench(seconds: loopSeconds, rounds: rounds, minutes: loopMinutes, repeater: repeater, capture: capture, mpv: mpv, scratch: scratch).run()
    }
    if parts.contains("isolate") {
        try IsolateBench(seconds: isolateSeconds, rounds: rounds, repeater: repeater, before: before, scratch: scratch).run()
    }
}

/// The stretching part: librubberband alone, repeater at 1 and at `speed`, mpv, live edits.
private func runStretchPart(seconds: Double, rounds: Int, speed: Double, editSeconds: Double, file: String?, repeater: String,
                            capture: String, bench: String, mpv: String?, scratch: String) throws(RepeaterError) {
    let path = file ?? scratch + "/music.wav"
    if file == nil { try writeMusic(path: path, seconds: seconds) }
    let audioSeconds = try AudioFile(path: path).info.frameCount
    let duration = Double(audioSeconds) / 48_000
    let server = try JackServerProcess(name: "repeater-bench", backend: .dummy(sampleRate: 48_000, period: 256), realtime: true)
    defer { server.stop() }
    stopOnSignal(server)
    let environment = ["JACK_NO_START_SERVER": "1", "JACK_DEFAULT_SERVER": server.name]
    print("repeater-bench system: \(String(format: "%.0f", duration)) s stereo 48 kHz, speed \(speed), \(rounds) round(s), on a private real-time jackd (jackd -R, dummy, 48 kHz, 256 frames)")
    var table: [String: [Double]] = [:]
    var stats: [String: [CallbackStats]] = [:]
    var idle: [Int] = []
    func note(_ key: String, _ value: Double) { table[key, default: []].append(value) }
    for round in 1...rounds {
        FileHandle.standardError.write(Data("round \(round): librubberband alone…\n".utf8))
        for engine in ["finer", "faster"] {
            note("bare \(engine)", measure(bench, ["bare", path, "--rate", "\(speed)", "--engine", engine], environment).cpu)
            note("bare+hc \(engine)", measure(bench, ["bare", path, "--rate", "\(speed)", "--engine", engine, "--consistent"], environment).cpu)
            note("bare paced \(engine)", measure(bench, ["bare", path, "--rate", "\(speed)", "--engine", engine, "--paced"], environment).cpu)
        }
        FileHandle.standardError.write(Data("round \(round): idle server, repeater, mpv (about \(Int(duration * (1 + 5 / speed + (mpv != nil ? 2 / speed : 0)))) s)…\n".utf8))
        let counted = measureOutput(capture, ["--count-xruns", "\(duration / speed)", "--name", "idle"], environment)
        idle.append(Int(counted.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "") ?? -1)
        for (label, extra) in [("speed 1", ["--rate", "1"]), ("finer", ["--rate", "\(speed)", "--engine", "finer"]),
                               ("faster", ["--rate", "\(speed)", "--engine", "faster"])] {
            let statsPath = scratch + "/stats.json"
            try? FileManager.default.removeItem(atPath: statsPath)
            var env = environment
            env["REPEATER_CALLBACK_STATS"] = statsPath
            note("repeater \(label)", measure(repeater, ["play", path, "--connect", "none", "--status", "none", "--no-session"] + extra, env).cpu)
            if let read = CallbackStats(path: statsPath) { stats["repeater \(label)", default: []].append(read) }
        }
        if let mpv {
            for engine in ["finer", "faster"] {
                note("mpv \(engine)", measure(mpv, ["--no-config", "--really-quiet", "--no-video", "--ao=jack", "--jack-autostart=no",
                                                    "--jack-connect=no", "--speed=\(speed)", "--af=rubberband=engine=\(engine)", path],
                                              environment).cpu)
            }
        }
    }
    // Live edits: the same run with and without 200 rate/pitch/loop commands a second.
    FileHandle.standardError.write(Data("live edits: 2 × \(Int(editSeconds)) s…\n".utf8))
    var edits: [String: CallbackStats] = [:]
    for withEdits in [false, true] {
        let statsPath = scratch + "/edits.json"
        try? FileManager.default.removeItem(atPath: statsPath)
        var env = environment
        env["REPEATER_CALLBACK_STATS"] = statsPath
        let commands = withEdits ? liveEdits(seconds: editSeconds, duration: duration) : []
        _ = measure(repeater, ["play", path, "--connect", "none", "--status", "none", "--no-session", "--rate", "0.8", "--quit-on-eof"], env,
                    input: commands, inputSeconds: editSeconds)
        if let read = CallbackStats(path: statsPath) { edits[withEdits ? "with" : "without"] = read }
    }
    printTable(table: table, stats: stats, idle: idle, edits: edits, speed: speed, duration: duration, mpv: mpv != nil, editSeconds: editSeconds)
}

/// Ctrl-C or SIGTERM: the private server is stopped cleanly (one SIGTERM and a wait), never left.
func stopOnSignal(_ server: JackServerProcess) {
    _ = repeater_signals_install()
    let watcher = Thread {
        var fd = pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)
        while poll(&fd, 1, -1) <= 0 || repeater_signal_take() == 0 {}
        FileHandle.standardError.write(Data("repeater-bench: stopping the private server\n".utf8))
        server.stop()
        exit(130)
    }
    watcher.start()
}

/// What `REPEATER_CALLBACK_STATS` holds.
struct CallbackStats {
    var mean: Double, p999: Double, worst: Double, xruns: Int, underruns: Int
    /// The render-ahead helper's job time and the cycles it left the callback short (absent: off).
    var renderMean: Double?, renderP999: Double?, renderWorst: Double?, late: Int?

    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        mean = object["mean"] as? Double ?? 0
        p999 = object["p999"] as? Double ?? 0
        worst = object["worst"] as? Double ?? 0
        xruns = object["xruns"] as? Int ?? 0
        underruns = object["underruns"] as? Int ?? 0
        renderMean = object["render_mean"] as? Double
        renderP999 = object["render_p999"] as? Double
        renderWorst = object["render_worst"] as? Double
        late = object["late"] as? Int
    }
}

/// Runs a program to its end; its CPU seconds (user + system, from the children's rusage).
@discardableResult
func measure(_ path: String, _ arguments: [String], _ environment: [String: String], input: [(Double, String)] = [],
             inputSeconds: Double = 0) -> (cpu: Double, wall: Double) {
    let before = childrenCPUSeconds()
    let started = Date()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let pipe = Pipe()
    process.standardInput = input.isEmpty ? FileHandle.nullDevice : pipe
    do { try process.run() } catch { return (-1, 0) }
    if !input.isEmpty {
        let writer = pipe.fileHandleForWriting
        for (at, line) in input {
            let wait = at - Date().timeIntervalSince(started)
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            writer.write(Data((line + "\n").utf8))
        }
        let rest = inputSeconds - Date().timeIntervalSince(started)
        if rest > 0 { usleep(UInt32(rest * 1_000_000)) }
        writer.write(Data("quit\n".utf8))
        try? writer.close()
    }
    process.waitUntilExit()
    let cpu = childrenCPUSeconds() - before
    return (cpu, Date().timeIntervalSince(started))
}

/// Runs a program to its end and returns its standard output.
func measureOutput(_ path: String, _ arguments: [String], _ environment: [String: String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return "" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// 200 commands a second for `seconds`: rate steps, pitch steps across 0, and loop moves, in turn.
func liveEdits(seconds: Double, duration: Double) -> [(Double, String)] {
    var commands: [(Double, String)] = []
    let count = Int(seconds * 200)
    for index in 0..<count {
        let at = 0.5 + Double(index) / 200
        switch index % 3 {
        case 0: commands.append((at, "rate \(0.7 + Double(index % 7) * 0.05)"))
        case 1: commands.append((at, "pitch \(Double(index % 5) - 2)"))
        default:
            let a = 1 + Double(index % 11) * 0.3
            commands.append((at, "loop \(String(format: "%.2f", a))-\(String(format: "%.2f", min(duration - 0.1, a + 2 + Double(index % 3))))"))
        }
    }
    return commands
}

/// A music-like stereo WAV: harmonic voices changing note every 250 ms, plus a little noise.
func writeMusic(path: String, seconds: Double) throws(RepeaterError) {
    let signal = musicLike(frames: Int(seconds * 48_000))
    let writer = try AudioFileWriter(path: path, format: .wav16, sampleRate: 48_000, channelCount: 2)
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: signal[0].count * 2)
    defer { scratch.deallocate() }
    var left = signal[0], right = signal[1]
    try left.withUnsafeMutableBufferPointer { (l: inout UnsafeMutableBufferPointer<Float>) throws(RepeaterError) in
        try right.withUnsafeMutableBufferPointer { (r: inout UnsafeMutableBufferPointer<Float>) throws(RepeaterError) in
            try writer.write(planar: [l.baseAddress!, r.baseAddress!], frameCount: l.count, scratch: scratch)
        }
    }
    writer.close()
}

private func printTable(table: [String: [Double]], stats: [String: [CallbackStats]], idle: [Int], edits: [String: CallbackStats],
                        speed: Double, duration: Double, mpv: Bool, editSeconds: Double) {
    let stretchTime = duration / speed
    let scale = stretchTime / duration
    print("")
    print("CPU seconds of the whole process (\(String(format: "%.0f", duration)) s of audio; at \(speed) it plays \(String(format: "%.0f", stretchTime)) s)")
    print(padded("", 58) + padded("R3 (finer)", 16) + "R2 (faster)")
    func row(_ label: String, _ finer: String, _ faster: String) { print(padded(label, 58) + padded(finer, 16) + faster) }
    row("librubberband alone, real-time, speed-only (repeater's)", rangeText(table["bare finer"]), rangeText(table["bare faster"]))
    row("librubberband alone, + PitchHighConsistency", rangeText(table["bare+hc finer"]), rangeText(table["bare+hc faster"]))
    row("librubberband alone, speed-only, paced in real time", rangeText(table["bare paced finer"]), rangeText(table["bare paced faster"]))
    row("repeater play, speed 1 (its fixed work: JACK, disk, meters)", rangeText(table["repeater speed 1"]), "")
    row("repeater play --rate \(speed)", rangeText(table["repeater finer"]), rangeText(table["repeater faster"]))
    var own: [String: [Double]] = [:]
    for engine in ["finer", "faster"] {
        let fixed = table["repeater speed 1"] ?? []
        let whole = table["repeater \(engine)"] ?? []
        own[engine] = zip(whole, fixed).map { $0 - $1 * scale }
    }
    row("  stretching's own cost (minus speed 1 × \(String(format: "%.2f", scale)))", rangeText(own["finer"]), rangeText(own["faster"]))
    func ratio(_ engine: String, _ baseline: String) -> String {
        guard let a = own[engine], let b = table[baseline], !a.isEmpty, !b.isEmpty else { return "—" }
        return rangeText(zip(a, b).map { $0 / $1 }) + "×"
    }
    row("  its ratio to librubberband alone, same options", ratio("finer", "bare finer"), ratio("faster", "bare faster"))
    row("  its ratio to librubberband alone, paced", ratio("finer", "bare paced finer"), ratio("faster", "bare paced faster"))
    if mpv {
        row("mpv --speed=\(speed) --af=rubberband=engine=…", rangeText(table["mpv finer"]), rangeText(table["mpv faster"]))
        func mpvRatio(_ engine: String) -> String {
            guard let a = table["repeater \(engine)"], let b = table["mpv \(engine)"] else { return "—" }
            return rangeText(zip(a, b).map { $0 / $1 }) + "×"
        }
        row("  repeater / mpv, whole process", mpvRatio("finer"), mpvRatio("faster"))
    } else {
        row("mpv: not installed (apt-get install mpv), skipped", "", "")
    }
    print("")
    print("The process callback on the real-time server, as a share of a 256-frame period (5.33 ms); xruns against an idle client for the same time (\(idle.map(String.init).joined(separator: ", ")))")
    print(padded("", 34) + padded("mean", 16) + padded("p99.9", 16) + padded("worst", 16) + padded("xruns", 10) + "underruns")
    for (label, key) in [("repeater, speed 1", "repeater speed 1"), ("repeater --rate \(speed), R3", "repeater finer"), ("repeater --rate \(speed), R2", "repeater faster")] {
        let values = stats[key] ?? []
        func percent(_ pick: (CallbackStats) -> Double?) -> String {
            let picked = values.compactMap(pick)
            guard !picked.isEmpty else { return "—" }
            let low = picked.min()! * 100, high = picked.max()! * 100
            return low == high ? String(format: "%.2f %%", low) : String(format: "%.2f–%.2f %%", low, high)
        }
        print(padded(label, 34) + padded(percent(\.mean), 16) + padded(percent(\.p999), 16) + padded(percent(\.worst), 16)
              + padded(values.map { String($0.xruns) }.joined(separator: ", "), 10) + values.map { String($0.underruns) }.joined(separator: ", "))
        if values.contains(where: { $0.renderMean != nil }) {
            print(padded("  its render-ahead helper (jobs)", 34) + padded(percent(\.renderMean), 16) + padded(percent(\.renderP999), 16)
                  + padded(percent(\.renderWorst), 16) + "late " + values.map { String($0.late ?? 0) }.joined(separator: ", "))
        }
    }
    print("")
    print("Live edits: R3 at 0.8 for \(Int(editSeconds)) s, with and without 200 rate/pitch/loop commands a second")
    for (label, key) in [("without commands", "without"), ("with 200 commands/s", "with")] {
        guard let value = edits[key] else { print("  \(label): no figures"); continue }
        var line = "  " + padded(label, 22) + String(format: "callback mean %.2f %%  p99.9 %.2f %%  worst %.2f %%  xruns %d  underruns %d",
                                                  value.mean * 100, value.p999 * 100, value.worst * 100, value.xruns, value.underruns)
        if let worst = value.renderWorst {
            line += String(format: "  render worst %.2f %%  late %d", worst * 100, value.late ?? 0)
        }
        print(line)
    }
}
