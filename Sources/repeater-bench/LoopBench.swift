import Foundation
import RepeaterKit

/// `repeater-bench system --parts loop`: a 10 s loop at 0.75 for 60 s with R3 and R2, replayed from
/// the loop cache against stretched live (`--loop-cache off`), the same player looping at speed 1,
/// and mpv looping the same A-B with its rubberband filter, in one run on a private real-time jackd
/// (`jackd -R`, dummy, 48 kHz, 256 frames). The CPU of each whole process from the third pass on
/// (its /proc CPU time between 28 s and 60 s after the start: two passes of 13.3 s and the start-up
/// before them), and over the whole run; the late periods and xruns of repeater's runs. With
/// `--loop-minutes M`, then one R3 loop replayed for M minutes: its late periods and xruns, against
/// an idle client on the same server.
struct LoopBench {
    let seconds: Double
    let rounds: Int
    let minutes: Double
    let repeater: String
    let capture: String
    let mpv: String?
    let scratch: String

    /// When the third pass starts (two passes of a 10 s loop at 0.75, and about a second of start).
    static let thirdPass = 28.0

    func run() throws(RepeaterError) {
        let path = scratch + "/loop-music.wav"
        let material = try makeMaterial(path)
        let server = try JackServerProcess(name: "repeater-bench", backend: .dummy(sampleRate: 48_000, period: 256), realtime: true)
        defer { server.stop() }
        stopOnSignal(server)
        let environment = ["JACK_NO_START_SERVER": "1", "JACK_DEFAULT_SERVER": server.name]
        print("")
        print("A 10 s loop at 0.75 for \(Int(seconds)) s: \(material), \(rounds) round(s), private real-time jackd (jackd -R, dummy, 48 kHz, 256 frames)")
        let loop = ["--loop", "10-20"]
        var players: [(String, String, [String])] = [("speed 1", repeater, ["play", path, "--rate", "1"] + loop)]
        for engine in ["finer", "faster"] {
            players.append(("\(engine) replay", repeater, ["play", path, "--rate", "0.75", "--engine", engine, "--loop-cache", "on"] + loop))
            players.append(("\(engine) live", repeater, ["play", path, "--rate", "0.75", "--engine", engine, "--loop-cache", "off"] + loop))
            if let mpv {
                players.append(("\(engine) mpv", mpv, ["--no-config", "--really-quiet", "--no-video", "--ao=jack", "--jack-autostart=no",
                                                       "--jack-connect=no", "--ab-loop-a=10", "--ab-loop-b=20", "--start=10", "--speed=0.75",
                                                       "--af=rubberband=engine=\(engine)", path]))
            }
        }
        var window: [String: [Double]] = [:], whole: [String: [Double]] = [:], health: [String: [String]] = [:]
        for round in 1...rounds {
            for (label, binary, arguments) in players {
                FileHandle.standardError.write(Data("round \(round): \(label) (\(Int(seconds)) s)…\n".utf8))
                let statsPath = scratch + "/loop-stats.json"
                try? FileManager.default.removeItem(atPath: statsPath)
                var env = environment
                env["REPEATER_CALLBACK_STATS"] = statsPath
                let isRepeater = binary == repeater
                let args = isRepeater ? arguments + ["--connect", "none", "--status", "none", "--no-session"] : arguments
                let measured = timed(binary, args, env, seconds: seconds, windowFrom: Self.thirdPass, quitByStdin: isRepeater)
                window[label, default: []].append(measured.window)
                whole[label, default: []].append(measured.whole)
                if isRepeater, let stats = CallbackStats(path: statsPath) { health[label, default: []].append("\(stats.late ?? 0)/\(stats.xruns)") }
            }
        }
        printTable(window: window, whole: whole, health: health)
        if minutes > 0 { try longRun(path: path, environment: environment) }
    }

    /// The music, 60 s of it at 48 kHz: real (Hedgewars, converted by sox) or the bench's own.
    private func makeMaterial(_ path: String) throws(RepeaterError) -> String {
        if FileManager.default.fileExists(atPath: RatesBench.track) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            process.arguments = [RatesBench.track, "-b", "16", path, "trim", "0", "60", "rate", "-v", "48000"]
            if (try? process.run()) != nil {
                process.waitUntilExit()
                if process.terminationStatus == 0 { return "Hedgewars' Nature.ogg (real music, converted to 48 kHz)" }
            }
        }
        try writeMusic(path: path, seconds: 60)
        return "the music-like signal"
    }

    /// Runs a program for `seconds`; its CPU seconds from `windowFrom` to the end (from /proc), and
    /// over the whole run (rusage). Ends it with `quit` on stdin (repeater) or SIGTERM (mpv).
    private func timed(_ path: String, _ arguments: [String], _ environment: [String: String], seconds: Double, windowFrom: Double,
                       quitByStdin: Bool) -> (window: Double, whole: Double) {
        let before = childrenCPUSeconds()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardInput = pipe
        do { try process.run() } catch { return (-1, -1) }
        let started = Date()
        func cpu() -> Double {
            guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return 0 }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        func sleep(until offset: Double) {
            let wait = offset - Date().timeIntervalSince(started)
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        sleep(until: windowFrom)
        let from = cpu()
        sleep(until: seconds)
        let to = cpu()
        if quitByStdin { pipe.fileHandleForWriting.write(Data("quit\n".utf8)) } else { process.terminate() }
        try? pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        return (to - from, childrenCPUSeconds() - before)
    }

    /// One R3 loop replayed for `minutes`, and an idle client on the same server for as long.
    private func longRun(path: String, environment: [String: String]) throws(RepeaterError) {
        FileHandle.standardError.write(Data("a \(minutes)-minute loop…\n".utf8))
        let statsPath = scratch + "/loop-long.json"
        try? FileManager.default.removeItem(atPath: statsPath)
        var env = environment
        env["REPEATER_CALLBACK_STATS"] = statsPath
        let idle = Process()
        idle.executableURL = URL(fileURLWithPath: capture)
        idle.arguments = ["--count-xruns", "\(minutes * 60)", "--name", "idle"]
        idle.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let idleOut = Pipe()
        idle.standardOutput = idleOut
        idle.standardError = FileHandle.nullDevice
        try? idle.run()
        let measured = timed(repeater, ["play", path, "--rate", "0.75", "--loop", "10-20", "--connect", "none", "--status", "none", "--no-session"],
                             env, seconds: minutes * 60, windowFrom: Self.thirdPass, quitByStdin: true)
        idle.waitUntilExit()
        let idleXruns = String(decoding: idleOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        let stats = CallbackStats(path: statsPath)
        print(String(format: "%.0f minutes of the loop at 0.75 (R3, replayed from the 3rd pass): late periods %d, xruns %d (an idle client: %@), underruns %d; CPU %.2f %% of a core from the 3rd pass",
                     minutes, stats?.late ?? -1, stats?.xruns ?? -1, idleXruns, stats?.underruns ?? -1, measured.window / (minutes * 60 - Self.thirdPass) * 100))
        if let stats {
            print(String(format: "  callback mean %.2f %%  p99.9 %.2f %%  worst %.2f %%; render mean %.2f %%  worst %.2f %%", stats.mean * 100, stats.p999 * 100,
                         stats.worst * 100, (stats.renderMean ?? 0) * 100, (stats.renderWorst ?? 0) * 100))
        }
    }

    private func printTable(window: [String: [Double]], whole: [String: [Double]], health: [String: [String]]) {
        func ratio(_ a: String, _ b: String) -> String {
            guard let x = window[a], let y = window[b], !x.isEmpty, !y.isEmpty else { return "—" }
            return rangeText(zip(x, y).map { $0 / $1 }) + "×"
        }
        let span = seconds - Self.thirdPass
        print("CPU seconds of the whole process from the 3rd pass on (\(Int(span)) s; the whole run in brackets)")
        print(padded("", 44) + padded("R3 (finer)", 28) + "R2 (faster)")
        func row(_ label: String, _ finer: String, _ faster: String) { print(padded(label, 44) + padded(finer, 28) + faster) }
        func both(_ key: String) -> String { "\(rangeText(window[key])) (\(rangeText(whole[key])))" }
        row("repeater, the loop at speed 1", both("speed 1"), "")
        row("repeater at 0.75, replayed (--loop-cache on)", both("finer replay"), both("faster replay"))
        row("  late periods / xruns", (health["finer replay"] ?? []).joined(separator: ", "), (health["faster replay"] ?? []).joined(separator: ", "))
        row("repeater at 0.75, live (--loop-cache off)", both("finer live"), both("faster live"))
        row("  late periods / xruns", (health["finer live"] ?? []).joined(separator: ", "), (health["faster live"] ?? []).joined(separator: ", "))
        row("  replayed / live", ratio("finer replay", "finer live"), ratio("faster replay", "faster live"))
        row("  replayed / the player at speed 1", ratio("finer replay", "speed 1"), ratio("faster replay", "speed 1"))
        if mpv != nil {
            row("mpv at 0.75, the same A-B (rubberband)", both("finer mpv"), both("faster mpv"))
            row("  replayed / mpv", ratio("finer replay", "finer mpv"), ratio("faster replay", "faster mpv"))
            row("  live / mpv", ratio("finer live", "finer mpv"), ratio("faster live", "faster mpv"))
        } else {
            row("mpv: not installed (apt-get install mpv), skipped", "", "")
        }
    }
}
