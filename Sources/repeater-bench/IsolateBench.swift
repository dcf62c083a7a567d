import Foundation
import RepeaterKit

/// `repeater-bench system --parts isolate`: what hearing the part costs the real-time render, as a
/// user plays: `repeater play` at speed 1 of real music (Hedgewars' Nature.ogg, 44.1 kHz stereo, the
/// common case of a file at another rate than the 48 kHz graph, and its 48 kHz copy) with
/// `--isolate off`, `centre` and `sides`, on a private real-time jackd (`jackd -R`, dummy, 48 kHz,
/// 256 frames), rendering ahead (`--render-ahead 2`: the render on its helper thread, whose job
/// time per period is what the modes add to). `REPEATER_CALLBACK_STATS` gives the render's mean
/// share of the period; each mode's figure is set against `off` in the same round (the same
/// server, file and minute), and the rounds take the modes in turn in a rotating order. What
/// `isolate` adds is the mode's share less `off`'s (`off` still analyses one hop in four, so the
/// statistics are settled when a mode starts). With `--before DIR`, the `repeater` in DIR (an
/// earlier build) plays the same runs in each round, after or before this one in turn, and the
/// table sets what each mode adds against what it added there.
struct IsolateBench {
    let seconds: Double
    let rounds: Int
    let repeater: String
    let before: String?
    let scratch: String

    static let modes = ["off", "centre", "sides"]
    static let files = ["44.1 kHz file", "48 kHz file"]

    func run() throws(RepeaterError) {
        let at441 = scratch + "/isolate-44100.wav", at48 = scratch + "/isolate-48000.wav"
        let material = try makeMaterial(at441: at441, at48: at48)
        print("")
        print("Hearing the part at speed 1: \(String(format: "%.0f", seconds)) s of \(material), \(rounds) round(s), a private real-time jackd (jackd -R, dummy, 48 kHz, 256 frames), --render-ahead 2")
        // render mean share per (player, file, mode), one value a round; and xruns/late per run
        var shares: [String: [Double]] = [:], added: [String: [Double]] = [:], troubles: [String: [String]] = [:]
        let players = [("now", repeater)] + (before.map { [("before", $0)] } ?? [])
        let files = [(Self.files[0], at441), (Self.files[1], at48)]
        for round in 1...rounds {
            FileHandle.standardError.write(Data("isolate round \(round)…\n".utf8))
            let server = try JackServerProcess(name: "repeater-bench", backend: .dummy(sampleRate: 48_000, period: 256), realtime: true)
            stopOnSignal(server)
            let environment = ["JACK_NO_START_SERVER": "1", "JACK_DEFAULT_SERVER": server.name]
            let shift = (round - 1) % Self.modes.count
            let order = Array(Self.modes[shift...] + Self.modes[..<shift])
            for (fileLabel, file) in files {
                for (player, binary) in round % 2 == 0 ? players.reversed() : players {
                    let key = "\(player) \(fileLabel)"
                    var thisRound: [String: Double] = [:]
                    for mode in order {
                        guard let stats = play(binary, file, mode: mode, environment: environment), let render = stats.renderMean else {
                            troubles["\(key) \(mode)", default: []].append("no figures")
                            continue
                        }
                        thisRound[mode] = render
                        shares["\(key) \(mode)", default: []].append(render * 100)
                        troubles["\(key) \(mode)", default: []].append("\(stats.late ?? 0)/\(stats.xruns)")
                    }
                    guard let off = thisRound["off"] else { continue }
                    for mode in Self.modes.dropFirst() {
                        if let share = thisRound[mode] { added["\(key) \(mode)", default: []].append((share - off) * 100) }
                    }
                }
            }
            server.stop()
        }
        func row(_ label: String, _ cell: (String) -> String) {
            print(padded(label, 34) + padded(cell(Self.files[0]), 44) + cell(Self.files[1]))
        }
        for (player, binary) in players {
            if players.count > 1 { print("\(player): \(binary)") }
            row("render mean, % of the period") { $0 }
            for mode in Self.modes {
                row("--isolate \(mode)") { file in
                    var text = rangeText(shares["\(player) \(file) \(mode)"]) + " %"
                    if let more = added["\(player) \(file) \(mode)"], !more.isEmpty { text += " (adds " + rangeText(more) + String(format: ", median %.2f)", median(more)) }
                    return text
                }
            }
            row("late periods / xruns per run") { file in
                Self.modes.map { "\($0) " + (troubles["\(player) \(file) \($0)"] ?? []).joined(separator: ",") }.joined(separator: "; ")
            }
        }
        guard players.count > 1 else { return }
        print("what each mode adds, now against before (medians, % of the period; the ratio)")
        for mode in Self.modes.dropFirst() {
            row("--isolate \(mode)") { file in
                guard let now = added["now \(file) \(mode)"], let then = added["before \(file) \(mode)"], !now.isEmpty, !then.isEmpty else { return "no figures" }
                return String(format: "%.2f against %.2f (×%.2f)", median(now), median(then), median(now) / median(then))
            }
        }
    }

    /// One run: `binary` plays `file` with `--isolate mode` for `seconds` (`measure`), and what its
    /// callback statistics say (nil if it wrote none).
    private func play(_ binary: String, _ file: String, mode: String, environment: [String: String]) -> CallbackStats? {
        let statsPath = scratch + "/isolate-stats.json"
        try? FileManager.default.removeItem(atPath: statsPath)
        var env = environment
        env["REPEATER_CALLBACK_STATS"] = statsPath
        measure(binary, ["play", file, "--connect", "none", "--status", "none", "--no-session", "--render-ahead", "2",
                         "--isolate", mode], env)
        return CallbackStats(path: statsPath)
    }

    /// The music at both rates (the rates bench's track and copies); says what it is.
    private func makeMaterial(at441: String, at48: String) throws(RepeaterError) -> String {
        guard FileManager.default.fileExists(atPath: RatesBench.track) else {
            try writeMusic(path: at48, seconds: seconds)
            try RatesBench.sox([at48, "-b", "16", at441, "rate", "-v", "44100"])
            return "the music-like signal (hedgewars-data is not installed)"
        }
        try RatesBench.sox([RatesBench.track, "-b", "16", at441, "trim", "0", String(format: "%.3f", seconds)])
        try RatesBench.sox([at441, "-b", "16", at48, "rate", "-v", "48000"])
        return "Hedgewars' Nature.ogg (real music, 44.1 kHz stereo)"
    }
}
