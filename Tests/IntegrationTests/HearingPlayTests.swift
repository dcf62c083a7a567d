import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// Writes `seconds` of a stereo 48 kHz file: the sum of sines at `frequencies`, in the middle.
private func writeChord(_ path: String, frequencies: [Double], seconds: Double) throws {
    let frames = Int(seconds * 48_000)
    var samples = [Float](repeating: 0, count: frames * 2)
    for n in 0..<frames {
        var value = 0.0
        for frequency in frequencies { value += 0.2 * sin(2 * Double.pi * frequency * Double(n) / 48_000) }
        samples[2 * n] = Float(value)
        samples[2 * n + 1] = Float(value)
    }
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 2)
    try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: frames) }
    writer.close()
}

extension JackSuites {
    @Suite("Hearing the part on a real jackd")
    struct HearingPlayTests {
        @Test("the note view names what is heard: A4 within 3 cents, then a C major triad as C; at pitch +2 it hears B4; isolation's latency is reported")
        func noteView() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeChord(scratch.file("a4.wav"), frequencies: [440], seconds: 20)
            try writeChord(scratch.file("c.wav"), frequencies: [261.63, 329.63, 392.00], seconds: 20)
            for (file, pitch, name, chord) in [("a4.wav", 0.0, "A4", nil), ("c.wav", 0.0, "C4", "C"), ("a4.wav", 2.0, "B4", nil)] as [(String, Double, String, String?)] {
                let player = try Child(repeaterPath, ["play", file, "--no-session", "--server", server.name, "--connect", "none", "--status", "json",
                                                      "--pitch", "\(pitch)", "--isolate", "centre"], in: scratch.path)
                #expect(player.waitForOutput(timeout: 15) { statusLines($0).filter { ($0["notes"] as? [[String: Any]])?.isEmpty == false }.count >= 5 },
                        "\(file): \(player.stderr)")
                player.send("quit")
                let outcome = player.finish()
                let status = statusLines(outcome.stdout).last { ($0["notes"] as? [[String: Any]])?.isEmpty == false } ?? [:]
                let notes = status["notes"] as? [[String: Any]] ?? []
                #expect(notes.first?["name"] as? String == name || (chord != nil && notes.contains { $0["name"] as? String == name }), "\(file) at \(pitch): \(notes)")
                if chord == nil, let cents = notes.first?["cents"] as? Double { #expect(abs(cents) <= 3, "\(file): \(cents) cents") }
                #expect(status["chord"] as? String == chord, "\(file): chord \(String(describing: status["chord"]))")
                #expect(status["isolate"] as? String == "centre")
                #expect(status["latency"] as? Int ?? 0 >= 2048, "isolation's delay in the latency: \(String(describing: status["latency"]))")
            }
        }

        @Test("keys stay quick while the note view runs: stdin commands answered within 50 ms (18 of 20 at least: the VM stalls a process now and then), the median within 25 ms")
        func responsive() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeChord(scratch.file("c.wav"), frequencies: [261.63, 329.63, 392.00], seconds: 30)
            let player = try Child(repeaterPath, ["play", "c.wav", "--no-session", "--server", server.name, "--connect", "none", "--status", "json",
                                                  "--rate", "0.8"], in: scratch.path)
            #expect(player.waitForOutput(timeout: 15) { $0.contains("\"notes\":[{") }, "\(player.stderr)")
            var times: [Double] = []
            for round in 0..<20 {
                let marker = "\"a\":\(1000 + round * 10),"
                let sent = Date()
                player.send("a \(1000 + round * 10)f")
                var answered = false
                while Date().timeIntervalSince(sent) < 1 {
                    if player.stdout.contains(marker) { answered = true; break }
                    usleep(1000)
                }
                #expect(answered)
                times.append(Date().timeIntervalSince(sent))
                usleep(50_000)
            }
            player.send("quit")
            #expect(player.finish().status == 0)
            // A note view that held the control thread up would delay most commands, not one: judged
            // by the share answered in time and the median (a single late answer is the machine's).
            let sorted = times.sorted(), quick = times.filter { $0 < 0.05 }.count
            print(String(format: "with the note view running at 10 Hz (and stretching at 0.8): 20 commands answered in %.1f ms (median), %.1f ms (slowest); %d within 50 ms",
                         sorted[10] * 1000, sorted[19] * 1000, quick))
            #expect(quick >= 18 && sorted[10] < 0.025, "\(sorted.map { String(format: "%.1f", $0 * 1000) })")
        }
    }
}
