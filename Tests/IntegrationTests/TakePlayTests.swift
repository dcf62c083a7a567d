import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// A mono 48 kHz 16-bit file of 4 s of deterministic noise: every frame its own, and every value
/// one that a 24-bit take keeps exactly.
/// A take's samples (mono), from its `take` event.
private func takeSamples(_ take: [String: Any]?, _ scratch: ScratchDirectory) throws -> [Float] {
    let file = try #require(take?["file"] as? String, "no take")
    return try readAll(file.hasPrefix("/") ? file : scratch.file(file)).samples
}

/// The warnings of takes dropped.
private func droppedTakes(_ stdout: String) -> [String] {
    jsonEvents(stdout, "warning").compactMap { $0["message"] as? String }.filter { $0.hasPrefix("take ") && $0.contains(" dropped: ") }
}

/// A recording session through the delay client: `prefix` runs the programs (pw-jack, or nothing),
/// `server` names the jackd (nil under PipeWire). Calibrates, records `takes` takes after it, quits.
/// Returns the player's outcome and the events.
private func recordThroughDelay(delay: Int, playArguments: [String], server: String?, prefix: [String] = [],
                                environment: [String: String] = [:], scratch: ScratchDirectory, takes wanted: Int = 2,
                                beforeQuit: (Child) -> Void = { _ in }) throws -> Outcome {
    let serverArguments = server.map { ["--server", $0] } ?? []
    func program(_ path: String, _ arguments: [String]) throws -> Child {
        prefix.isEmpty ? try Child(path, arguments, environment: environment, in: scratch.path)
            : try Child(prefix[0], Array(prefix.dropFirst()) + [path] + arguments, environment: environment, in: scratch.path)
    }
    let line = try program(capturePath, ["--delay", "\(delay)", "--name", "dly", "--ports", "2"] + serverArguments)
    try #require(line.waitForOutput { $0.contains("ready") }, "delay client did not start: \(line.stderr)")
    defer {
        line.signal(SIGTERM)
        _ = line.finish(timeout: 10)
    }
    let player = try program(repeaterPath, ["play"] + playArguments + ["--connect", "dly:in_", "--record", "dly:out_1", "--status", "json"]
                                           + serverArguments)
    #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
    // A dropout during the measurement (the dummy server without real-time scheduling on two busy
    // cores skips a cycle now and then), or input that stopped following on (seen once on
    // PipeWire), fails it with "try again"; a user would, and so does this, up to five times (a
    // failure that does not say "try again" is not tried again). The player itself measures again
    // after a dropout, up to five times within 6 s each, before it reports.
    for attempt in 1...5 {
        player.send("calibrate")
        #expect(player.waitForOutput(timeout: 40) { jsonEvents($0, "calibrated").count == attempt }, "\(player.stdout.suffix(2000)) \(player.stderr)")
        let reason = jsonEvents(player.stdout, "calibrated").last?["reason"] as? String ?? ""
        guard reason.hasSuffix("try again") else { break }
        print("takes: calibration \(attempt) failed (\(reason)); again")
    }
    player.send("record on")
    // (A take a dropout spoiled is dropped, whole: on a busy machine the first measured ones may
    // take a while.)
    #expect(player.waitForOutput(timeout: 60) { text in
        jsonEvents(text, "take").filter { $0["measured"] as? Bool == true }.count >= wanted
    }, "\(player.stdout.suffix(3000))")
    beforeQuit(player)
    player.send("quit")
    return player.finish(timeout: 30)
}

extension JackSuites {
    @Suite("Takes: recording yourself, aligned to the frame (a delay client closes the loop out → in)")
    struct TakePlayTests {
        @Test("the tests' delay client leaves by itself when its server shuts down (exit 1, with why): a test that dies, its server stopped by the guardian, leaves no client behind")
        func delayClientLeavesWithItsServer() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let line = try Child(capturePath, ["--delay", "0", "--name", "dly", "--ports", "2", "--server", server.name], in: scratch.path)
            try #require(line.waitForOutput { $0.contains("ready") })
            server.process.stop()
            let outcome = line.finish(timeout: 10)  // (124 had it still been running)
            #expect(outcome.status == 1, "\(outcome.status): \(outcome.stderr)")
            #expect(outcome.stderr.contains("shut down: the delay client leaves"), "\(outcome.stderr)")
        }

        @Test("after calibrate, each take equals the source over its pass bit for bit, for delays of 0, 256 and 1000 frames, in the callback and rendering ahead")
        func exactThroughDelays() throws {
            let server = try TestServer()
            for renderAhead in [0, 2] {
                for delay in [0, 256, 1000] {
                    let scratch = ScratchDirectory()
                    try writeNoise(scratch.file("noise.wav"))
                    let source = try readAll(scratch.file("noise.wav")).samples
                    let outcome = try recordThroughDelay(delay: delay, playArguments: ["noise.wav", "--loop", "1-2", "--session", "s.json",
                                                                                        "--render-ahead", "\(renderAhead)"],
                                                         server: server.name, scratch: scratch)
                    #expect(outcome.status == 0, "\(outcome.stderr)")
                    let calibrated = try #require(jsonEvents(outcome.stdout, "calibrated").last)
                    let measured = try #require(calibrated["frames"] as? Int, "\(calibrated)")
                    // The loop out → delay → in runs a period late inside the graph: D + 256.
                    #expect(measured == delay + 256, "D \(delay), ahead \(renderAhead): measured \(measured)")
                    print("takes: D \(delay) render-ahead \(renderAhead): measured \(measured) frames, JACK reports \(calibrated["reported_frames"] ?? "?")")
                    let takes = jsonEvents(outcome.stdout, "take").filter { $0["measured"] as? Bool == true }
                    #expect(takes.count >= 2)
                    // A take is whole and aligned, or absent: only a dropout (a late or skipped cycle) drops one.
                    let dropped = droppedTakes(outcome.stdout)
                    #expect(dropped.allSatisfy { $0.contains("missed a period") }, "\(dropped)")
                    if !dropped.isEmpty { print("takes: D \(delay) render-ahead \(renderAhead): \(dropped.count) take(s) dropped for a dropout") }
                    for take in takes {
                        let samples = try takeSamples(take, scratch)
                        #expect(take["round_trip"] as? Int == measured)
                        #expect(samples.count == 48_000, "take length \(samples.count)")
                        let differing = zip(samples, source[48_000..<96_000]).filter { $0 != $1 }.count
                        #expect(differing == 0, "D \(delay), ahead \(renderAhead): \(differing) samples differ from the source")
                    }
                    let session = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.json"))), shown: "s.json")
                    #expect(session.takes.count == jsonEvents(outcome.stdout, "take").count)
                    #expect(session.takes.allSatisfy { $0.startFrame == 48_000 && $0.endFrame == 96_000 && $0.kind == .pass })
                }
            }
        }

        @Test("on PipeWire's JACK (quantum 1024): after calibrate, each take equals the source over its pass bit for bit (D = 256)",
              .enabled(if: PipeWireServer.available, "pipewire cannot start on this machine"))
        func exactOnPipeWire() throws {
            let pipewire = try PipeWireServer()
            defer { pipewire.stop() }
            let scratch = ScratchDirectory()
            try writeNoise(scratch.file("noise.wav"))
            let source = try readAll(scratch.file("noise.wav")).samples
            let outcome = try recordThroughDelay(delay: 256, playArguments: ["noise.wav", "--loop", "1-2", "--session", "s.json"], server: nil,
                                                 prefix: ["/usr/bin/pw-jack"], environment: pipewire.environment, scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let calibrated = try #require(jsonEvents(outcome.stdout, "calibrated").last)
            let measured = try #require(calibrated["frames"] as? Int, "\(calibrated)")
            print("takes: PipeWire, D 256: measured \(measured) frames, JACK reports \(calibrated["reported_frames"] ?? "?")")
            #expect(measured >= 256)
            let takes = jsonEvents(outcome.stdout, "take").filter { $0["measured"] as? Bool == true }
            #expect(takes.count >= 2)
            for take in takes {
                let samples = try takeSamples(take, scratch)
                let differing = zip(samples, source[48_000..<96_000]).filter { $0 != $1 }.count
                #expect(samples.count == 48_000 && differing == 0, "PipeWire: \(samples.count) frames, \(differing) differ from the source")
            }
        }

        @Test("at speed 0.75 a take lines up with the stretched pass as heard: the loop's first onset at the take's frame 0 (±1 ms), its length 4/3 of the pass")
        func stretchedTake() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            // Silence with a click train: a burst at A (1 s) and every 0.25 s after it.
            var samples = [Float](repeating: 0, count: 48_000 * 4)
            for start in stride(from: 48_000, to: 96_000, by: 12_000) {
                for t in 0..<96 { samples[start + t] = Float(0.8 * cos(2 * Double.pi * Double(t) / 24)) }
            }
            let writer = try AudioFileWriter(path: scratch.file("clicks.wav"), format: .wav, sampleRate: 48_000, channelCount: 1)
            try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
            writer.close()
            let outcome = try recordThroughDelay(delay: 256, playArguments: ["clicks.wav", "--loop", "1-2", "--rate", "0.75", "--session", "s.json"],
                                                 server: server.name, scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            for take in jsonEvents(outcome.stdout, "take").filter({ $0["measured"] as? Bool == true }) {
                let heard = try takeSamples(take, scratch)
                #expect(abs(heard.count - 64_000) <= 96, "take length \(heard.count), the pass at 0.75 lasts 64000")
                // The burst's energy centroid, less the burst's own (its first frame is the onset).
                let burst = (0..<96).map { 0.8 * cos(2 * Double.pi * Double($0) / 24) }
                let own = zip(burst.indices, burst).reduce(0.0) { $0 + Double($1.0) * $1.1 * $1.1 } / burst.reduce(0.0) { $0 + $1 * $1 }
                var energy = 0.0, moment = 0.0
                for (frame, value) in heard.prefix(4000).enumerated() {
                    energy += Double(value * value)
                    moment += Double(value * value) * Double(frame)
                }
                // A burst smeared across the take's start would pull the centroid in: the first
                // 4000 frames hold the whole first burst only if it starts at frame 0 or after.
                let onset = energy > 0 ? moment / energy - own : .nan
                print("takes: at 0.75 the loop's first burst is heard at take frame \(String(format: "%.1f", onset)) (\(String(format: "%.2f", onset / 48)) ms)")
                #expect(abs(onset) <= 48, "the first burst at take frame \(onset)")
            }
        }

        @Test("a drill with recording: each answer (the gap after each pass of each line) is a take of exactly the gap's length")
        func drillTakes() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeNoise(scratch.file("noise.wav"))
            try "1\n00:00:00,500 --> 00:00:01,000\none\n\n2\n00:00:02,000 --> 00:00:02,750\ntwo\n"
                .write(toFile: scratch.file("noise.srt"), atomically: true, encoding: .utf8)
            let line = try Child(capturePath, ["--delay", "0", "--name", "dly", "--ports", "2", "--server", server.name], in: scratch.path)
            try #require(line.waitForOutput { $0.contains("ready") })
            defer { line.signal(SIGTERM); _ = line.finish(timeout: 10) }
            // A drill's answers come once; a dropout (this VM's dummy server skips a cycle now and
            // then) drops one, whole, with why. Every run is judged: each answer saved is exactly
            // its gap (36 000 frames after line 1, 0.5 s; 54 000 after line 2, 0.75 s) and is in
            // the session, each one missing was dropped for a dropout and said so. Runs go on (up
            // to 5) until one has all four; if none does, each line's answer must have been saved
            // in some run (a CI run once lost one answer in each of three runs).
            let expectedFrames = [1: 36_000, 2: 54_000]
            var savedLines: Set<Int> = []
            var complete = false
            for attempt in 1...5 {
                try? FileManager.default.removeItem(atPath: scratch.file("s.json"))
                let player = try Child(repeaterPath, ["play", "noise.wav", "--drill", "2x1.5", "--session", "s.json", "--connect", "dly:in_",
                                                      "--record", "dly:out_1", "--status", "json", "--server", server.name], in: scratch.path)
                player.send("record on")
                let outcome = player.finish(timeout: 40)
                #expect(outcome.status == 0, "\(outcome.stderr)")
                let answers = jsonEvents(outcome.stdout, "take")
                let dropped = droppedTakes(outcome.stdout)
                #expect(answers.allSatisfy { $0["kind"] as? String == "answer" }, "\(answers)")
                for answer in answers {
                    let number = answer["line"] as? Int ?? 0
                    #expect(answer["frames"] as? Int == expectedFrames[number], "line \(number): \(answer["frames"] ?? "?") frames")
                    savedLines.insert(number)
                }
                #expect(dropped.allSatisfy { $0.contains("missed a period") }, "\(dropped)")
                #expect(answers.count + dropped.count == 4, "\(answers.count) saved, \(dropped.count) dropped: \(outcome.stdout.suffix(2000))")
                let session = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.json"))), shown: "s.json")
                #expect(session.takes.map(\.line) == answers.map { $0["line"] as? Int } && session.takes.allSatisfy { $0.kind == .answer })
                if answers.count == 4 {
                    #expect(answers.map { $0["line"] as? Int } == [1, 1, 2, 2])
                    complete = true
                    break
                }
                print("takes: drill run \(attempt): \(dropped.count) answer(s) dropped for a dropout, \(answers.count) saved; again")
            }
            if !complete { #expect(savedLines == [1, 2], "answers saved in no run for lines \(Set([1, 2]).subtracting(savedLines))") }
        }

        @Test("hearing a take: compare take puts the take in place of the recording, aligned: recorded again, it comes back bit for bit")
        func compareTake() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeNoise(scratch.file("noise.wav"))
            let source = try readAll(scratch.file("noise.wav")).samples
            let outcome = try recordThroughDelay(delay: 100, playArguments: ["noise.wav", "--loop", "1-2", "--session", "s.json", "--volume", "0.5"],
                                                 server: server.name, scratch: scratch, takes: 1) { player in
                player.send("record off")
                player.send("volume 1")
                player.send("compare take")
                let first = jsonEvents(player.stdout, "take").filter { $0["measured"] as? Bool == true }.first?["number"] as? Int ?? 1
                player.send("take play \(first)")
                #expect(player.waitForOutput { $0.contains("\"event\":\"take-play\"") }, "\(player.stdout.suffix(1500))")
                player.send("record on")
                #expect(player.waitForOutput(timeout: 15) { text in
                    jsonEvents(text, "take").contains { ($0["number"] as? Int ?? 0) > first && $0["measured"] as? Bool == true }
                }, "\(player.stdout.suffix(2000))")
            }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let measuredTakes = jsonEvents(outcome.stdout, "take").filter { $0["measured"] as? Bool == true }
            let original = try takeSamples(measuredTakes.first, scratch)
            let again = try takeSamples(measuredTakes.last, scratch)
            #expect(original.count == 48_000 && zip(original, source[48_000..<96_000]).allSatisfy { $0 == $1 * 0.5 }, "the first take is not the source at half volume (\(original.count) frames)")
            #expect(again.count == original.count && zip(again, original).allSatisfy { $0 == $1 },
                    "the take heard back and recorded again: \(again.count) frames, \(zip(again, original).filter { $0 != $1 }.count) differ")
        }

        @Test("faults: the takes folder cannot be made (the music goes on, the session is saved); a file limit as a full disk; a take file deleted; --takes-max and take keep")
        func faults() throws {
            let server = try TestServer()
            // The takes folder's place is taken by a file: no take can be written.
            do {
                let scratch = ScratchDirectory()
                try writeNoise(scratch.file("noise.wav"))
                try "not a folder".write(toFile: scratch.file("s.takes"), atomically: true, encoding: .utf8)
                let outcome = try recordThroughDelay(delay: 0, playArguments: ["noise.wav", "--loop", "1-1.5", "--session", "s.json"],
                                                     server: server.name, scratch: scratch, takes: 0) { player in
                    // Three passes after recording was armed: the music goes on.
                    #expect(player.waitForOutput { text in
                        let parts = text.components(separatedBy: "\"event\":\"record\"")
                        return parts.count > 1 && jsonEvents(parts.last!, "wrap").count >= 3
                    },
                            "the music stopped: \(player.stdout.suffix(1000))")
                }
                #expect(outcome.status == 0, "\(outcome.stderr)")
                let warnings = jsonEvents(outcome.stdout, "warning").compactMap { $0["message"] as? String }
                #expect(warnings.contains { $0.contains("cannot make the takes folder") }, "\(warnings) \(outcome.stdout.split(separator: "\n").filter { !$0.hasPrefix("{\"state") }.suffix(30))")
                #expect(jsonEvents(outcome.stdout, "take").isEmpty)
                #expect(FileManager.default.fileExists(atPath: scratch.file("s.json")))
            }
            // A file size limit of 64 KiB (a full disk as the writer sees it): the take is dropped
            // with a warning; the player lives on and saves its (small) session.
            do {
                let scratch = ScratchDirectory()
                try writeNoise(scratch.file("noise.wav"))
                let outcome = try recordThroughDelay(delay: 0, playArguments: ["noise.wav", "--loop", "1-2", "--session", "s.json"],
                                                     server: server.name, prefix: ["/bin/bash", "-c", "ulimit -f 64; exec \"$0\" \"$@\""],
                                                     scratch: scratch, takes: 0) { player in
                    #expect(player.waitForOutput(timeout: 15) { text in
                        jsonEvents(text, "warning").contains { ($0["message"] as? String ?? "").contains("dropped") }
                    }, "\(player.stdout.suffix(1000))")
                }
                #expect(outcome.status == 0, "\(outcome.stderr)")
                #expect(jsonEvents(outcome.stdout, "take").isEmpty)
                let session = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.json"))), shown: "s.json")
                #expect(session.takes.isEmpty)
                let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("s.takes"))) ?? []
                #expect(leftovers.isEmpty, "partial take files left: \(leftovers)")
            }
            // --takes-max 2 with take 1 kept; then take 1's file deleted behind repeater's back.
            do {
                let scratch = ScratchDirectory()
                try writeNoise(scratch.file("noise.wav"))
                let outcome = try recordThroughDelay(delay: 0, playArguments: ["noise.wav", "--loop", "1-1.25", "--session", "s.json", "--takes-max", "2"],
                                                     server: server.name, scratch: scratch, takes: 1) { player in
                    let first = jsonEvents(player.stdout, "take").filter { $0["measured"] as? Bool == true }.first?["number"] as? Int ?? 1
                    player.send("take keep \(first)")
                    #expect(player.waitForOutput(timeout: 15) { jsonEvents($0, "take").count >= first + 3 })
                    try? FileManager.default.removeItem(atPath: scratch.file(String(format: "s.takes/take-%04d.flac", first)))
                    player.send("take play \(first)")
                    #expect(player.waitForOutput { $0.contains("file is gone") }, "\(player.stdout.suffix(1000))")
                }
                #expect(outcome.status == 0, "\(outcome.stderr)")
                let session = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.json"))), shown: "s.json")
                let numbers = jsonEvents(outcome.stdout, "take").compactMap { $0["number"] as? Int }
                #expect(session.takes.count <= 2 && !session.takes.contains { $0.kept }, "\(session.takes.map(\.number)) of \(numbers)")
                let files = try FileManager.default.contentsOfDirectory(atPath: scratch.file("s.takes")).filter { $0.hasSuffix(".flac") }
                #expect(Set(files) == Set(session.takes.map { ($0.file as NSString).lastPathComponent }), "files \(files) vs session")
            }
        }
    }
}
