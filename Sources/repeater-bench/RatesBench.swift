import Foundation
import RepeaterKit

/// `repeater-bench system --parts rates`: speed 1 with a file whose rate differs from the server's,
/// the common case (a 44.1 kHz recording on a 48 kHz graph) and the other way (48 kHz on 44.1 kHz),
/// on private real-time jackds (`jackd -R`, dummy, 256 frames). Whole-process CPU seconds (the
/// children's rusage) of `repeater play` with the file at the other rate, the same player with the
/// file at the server's own rate (the baseline: what resampling adds), and mpv with the file at the
/// other rate, in the same run, one after the other, rounds interleaved (the two players taking
/// turns at going first; each ratio's median is printed over three rounds or more). Run side by side
/// in one graph instead, the ratios spread wider, not narrower (other/own 0.92–1.67× on an idle
/// machine): back to back within each period the clients share caches and wake-ups, which no user's
/// lone player does. `--before DIR` adds the rows of another build's `repeater` (the code before a
/// change). The material is real music (a Hedgewars track, `hedgewars-data`, 44.1 kHz stereo Vorbis,
/// decoded to WAV so that decoding costs nothing), or the bench's music-like signal when it is not
/// installed; its 48 kHz copy is made by `sox rate -v`.
struct RatesBench {
    let seconds: Double
    let rounds: Int
    let repeater: String
    let before: String?
    let mpv: String?
    let scratch: String

    static let track = "/usr/share/games/hedgewars/Data/Music/Nature.ogg"

    func run() throws(RepeaterError) {
        let at441 = scratch + "/music-44100.wav", at48 = scratch + "/music-48000.wav"
        let material = try makeMaterial(at441: at441, at48: at48)
        print("")
        print("Sample rates at speed 1: \(String(format: "%.0f", seconds)) s of \(material), \(rounds) round(s), private real-time jackds (jackd -R, dummy, 256 frames)")
        var table: [String: [Double]] = [:]
        var lates: [String: [String]] = [:]
        for round in 1...rounds {
            for (serverRate, own, other) in [(48_000, at48, at441), (44_100, at441, at48)] {
                FileHandle.standardError.write(Data("round \(round): a \(serverRate) Hz server…\n".utf8))
                let server = try JackServerProcess(name: "repeater-bench", backend: .dummy(sampleRate: serverRate, period: 256), realtime: true)
                stopOnSignal(server)
                let environment = ["JACK_NO_START_SERVER": "1", "JACK_DEFAULT_SERVER": server.name]
                var players: [(String, String, String)] = [("repeater own", repeater, own), ("repeater other", repeater, other)]
                if let before { players.append(("before other", before, other)) }
                if round == 1 {
                    // Once, unmeasured: ten seconds of each, so that the stretcher timings the
                    // player measures on its first start on a machine at this rate (StretchTimingCache:
                    // 1–4 s of CPU at normal priority, beside the playing) are kept and not counted.
                    // (One second was too short, and four on a busy machine: a player that exits
                    // before the measurement ends keeps nothing, and the first measured run paid it.)
                    for (_, binary, file) in players {
                        _ = measure(binary, ["play", file, "--connect", "none", "--status", "none", "--no-session", "--loop", "0-10", "--loops", "1"], environment)
                    }
                }
                // The two players take turns at going first (a fresh server's first client may pay
                // for what the second finds done).
                let order = round % 2 == 1 ? players : [players[1], players[0]] + players.dropFirst(2)
                for (label, binary, file) in order {
                    let statsPath = scratch + "/rates-stats.json"
                    try? FileManager.default.removeItem(atPath: statsPath)
                    var env = environment
                    env["REPEATER_CALLBACK_STATS"] = statsPath
                    table["\(serverRate) \(label)", default: []].append(
                        measure(binary, ["play", file, "--connect", "none", "--status", "none", "--no-session"], env).cpu)
                    if let stats = CallbackStats(path: statsPath) { lates["\(serverRate) \(label)", default: []].append("\(stats.late ?? 0)/\(stats.xruns)") }
                }
                if let mpv {
                    table["\(serverRate) mpv other", default: []].append(
                        measure(mpv, ["--no-config", "--really-quiet", "--no-video", "--ao=jack", "--jack-autostart=no", "--jack-connect=no", other],
                                environment).cpu)
                }
                server.stop()
            }
        }
        printTable(table, lates: lates)
    }

    /// The music at both rates; says what it is.
    private func makeMaterial(at441: String, at48: String) throws(RepeaterError) -> String {
        var what = "Hedgewars' Nature.ogg (real music, 44.1 kHz stereo)"
        if FileManager.default.fileExists(atPath: Self.track) {
            try Self.sox([Self.track, "-b", "16", at441, "trim", "0", String(format: "%.3f", seconds)])
        } else {
            what = "the music-like signal (hedgewars-data is not installed)"
            try writeMusic(path: at48, seconds: seconds)
            try Self.sox([at48, "-b", "16", at441, "rate", "-v", "44100"])
            return what
        }
        try Self.sox([at441, "-b", "16", at48, "rate", "-v", "48000"])
        return what
    }

    /// Runs sox (the rates and isolate benches' material).
    static func sox(_ arguments: [String]) throws(RepeaterError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        process.arguments = arguments
        do { try process.run() } catch { throw .input("sox is needed for the system bench's material (scripts/setup installs it)") }
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw .input("sox failed: \(arguments.joined(separator: " "))") }
    }

    private func printTable(_ table: [String: [Double]], lates: [String: [String]]) {
        func ratio(_ a: String, _ b: String) -> String {
            guard let x = table[a], let y = table[b], !x.isEmpty, !y.isEmpty else { return "—" }
            let ratios = zip(x, y).map { $0 / $1 }
            return rangeText(ratios) + "×" + (ratios.count > 2 ? String(format: " (median %.2f×)", median(ratios)) : "")
        }
        print(padded("CPU seconds of the whole process", 52) + padded("44.1 kHz file, 48 kHz server", 31) + "48 kHz file, 44.1 kHz server")
        func row(_ label: String, _ first: String, _ second: String) { print(padded(label, 52) + padded(first, 31) + second) }
        func late(_ key: String) -> String { (lates[key] ?? []).joined(separator: ", ") }
        row("repeater play, the file at the server's rate", rangeText(table["48000 repeater own"]), rangeText(table["44100 repeater own"]))
        row("repeater play, the file at the other rate", rangeText(table["48000 repeater other"]), rangeText(table["44100 repeater other"]))
        row("  late periods / xruns", late("48000 repeater other"), late("44100 repeater other"))
        row("  / the same player, the file at the server's rate", ratio("48000 repeater other", "48000 repeater own"),
            ratio("44100 repeater other", "44100 repeater own"))
        if mpv != nil {
            row("mpv, the file at the other rate", rangeText(table["48000 mpv other"]), rangeText(table["44100 mpv other"]))
            row("  repeater / mpv, whole process", ratio("48000 repeater other", "48000 mpv other"), ratio("44100 repeater other", "44100 mpv other"))
        } else {
            row("mpv: not installed (apt-get install mpv), skipped", "", "")
        }
        if before != nil {
            row("before (--before), the file at the other rate", rangeText(table["48000 before other"]), rangeText(table["44100 before other"]))
            row("  late periods / xruns", late("48000 before other"), late("44100 before other"))
            row("  / the player now", ratio("48000 before other", "48000 repeater other"), ratio("44100 before other", "44100 repeater other"))
            if mpv != nil {
                row("  before / mpv", ratio("48000 before other", "48000 mpv other"), ratio("44100 before other", "44100 mpv other"))
            }
        }
    }
}
