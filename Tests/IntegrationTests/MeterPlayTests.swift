import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// A stereo 997 Hz sine of amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), `seconds` long.
private func writeSine(_ path: String, seconds: Int) throws {
    let frames = 48_000 * seconds
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 2)
    let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
    defer { left.deallocate(); right.deallocate(); scratch.deallocate() }
    for i in 0..<frames {
        left[i] = 0.5 * Float(sin(2 * Double.pi * 997 * Double(i) / 48_000))
        right[i] = left[i]
    }
    try writer.write(planar: [left, right], frameCount: frames, scratch: scratch)
    writer.close()
}

/// (rms, peak) per channel of a status object; nil stands for JSON null (−∞).
private func meters(_ status: [String: Any]) -> [(rms: Double?, peak: Double?)] {
    (status["meters"] as? [[String: Any]] ?? []).map { ($0["rms_db"] as? Double, $0["peak_db"] as? Double) }
}

private func near(_ value: Double?, _ expected: Double, _ tolerance: Double = 0.1) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= tolerance
}

extension JackSuites {
    @Suite("Meters, volume and pan on a real jackd")
    struct MeterPlayTests {
        @Test("JSON meters read the known sine: −6 dB and hard left, then unity and centre by stdin; pre-fader shows the file")
        func jsonMeters() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let path = scratch.file("sine.wav")
            try writeSine(path, seconds: 20)
            let player = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "json",
                                                  "--status-hz", "5", "--volume", "-6dB", "--pan", "-1"], in: scratch.path)
            // A window that lies wholly in the music: at least the second status line.
            #expect(player.waitForOutput { statusLines($0).count >= 3 }, "\(player.stderr)")
            let before = try #require(statusLines(player.stdout).last)
            let levels = meters(before)
            try #require(levels.count == 2, "\(before)")
            #expect(near(levels[0].rms, -15.05) && near(levels[0].peak, -12.04), "\(levels)")
            #expect(levels[1].rms == nil && levels[1].peak == nil, "the right port is not silent: \(levels)")
            #expect(near(before["volume_db"] as? Double, -6, 0.001) && before["pan"] as? Double == -1)
            #expect(before["meter"] as? String == "post")
            let load = try #require(before["load"] as? Double)
            #expect(load > 0 && load < 0.5, "load \(load)")
            #expect(before["xruns"] as? Int != nil && before["missed_cycles"] as? Int != nil && before["load_max"] as? Double != nil)
            player.send("volume 1")
            player.send("pan 0")
            // The change as the player reports it, then two whole status windows after it (the 10 ms
            // gain ramp lies in the first): waits on the player, not on the machine's speed.
            func changed(_ status: [String: Any]) -> Bool { status["volume_db"] as? Double == 0 && status["pan"] as? Double == 0 }
            #expect(player.waitForOutput(timeout: 20) { text in
                let lines = statusLines(text)
                guard let first = lines.firstIndex(where: changed) else { return false }
                return lines.count >= first + 3
            }, "\(player.stdout.suffix(2000))")
            let after = meters(try #require(statusLines(player.stdout).last))
            for level in after { #expect(near(level.rms, -9.03) && near(level.peak, -6.02), "\(after)") }
            player.send("quit")
            #expect(player.finish().status == 0)

            let pre = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "json",
                                               "--status-hz", "5", "--volume", "0.25", "--pan", "-1", "--meter", "pre"], in: scratch.path)
            #expect(pre.waitForOutput { statusLines($0).count >= 3 }, "\(pre.stderr)")
            let preLevels = meters(try #require(statusLines(pre.stdout).last))
            for level in preLevels { #expect(near(level.rms, -9.03) && near(level.peak, -6.02), "pre: \(preLevels)") }
            pre.send("quit")
            #expect(pre.finish().status == 0)
        }

        @Test("--status lines: a compact human line per update with the meters")
        func compactLines() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let path = scratch.file("sine.wav")
            try writeSine(path, seconds: 5)
            let player = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "lines",
                                                  "--status-hz", "5", "--volume", "0.5"], in: scratch.path)
            #expect(player.waitForOutput { $0.split(separator: "\n").count >= 4 }, "\(player.stderr)")
            player.send("quit")
            let outcome = player.finish()
            #expect(outcome.status == 0)
            let line = String(outcome.stdout.split(separator: "\n")[3])
            #expect(line.hasPrefix("playing 0:0") && line.contains(" / 0:05.000 vol -6.0 dB pan C | L ") && line.contains(" dB | underruns 0 xruns "), "\(line)")
            // "L rms/peak R rms/peak": −15.05 and −12.04 dBFS, printed to a tenth.
            let numbers = line.split(separator: "|")[1].split(whereSeparator: { " /".contains($0) }).compactMap { Double($0) }
            #expect(numbers.count == 4 && abs(numbers[0] + 15.05) <= 0.1 && abs(numbers[1] + 12.04) <= 0.1 && numbers[2] == numbers[0], "\(line)")
        }

        @Test("bad volume and pan are one-line errors with exit 2")
        func badOptions() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("sine.wav")
            try writeSine(path, seconds: 1)
            for (arguments, message) in [(["--volume", "+20dB"], "above the +12 dB maximum"), (["--volume", "-6"], "-6dB"),
                                         (["--pan", "2"], "pan takes -1"), (["--meter", "both"], "--meter takes pre or post")] {
                let outcome = try run(repeaterPath, ["play", path] + arguments, in: scratch.path)
                #expect(outcome.status == 2)
                #expect(outcome.stderrLines.count == 1 && outcome.stderr.contains(message), "\(outcome.stderr)")
            }
        }
    }
}
