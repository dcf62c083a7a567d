import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// The loop a session file holds now: (a, b, on), or nil.
private func savedLoop(_ path: String) throws -> CurrentLoop? {
    let data = try #require(FileManager.default.contents(atPath: path), "no session at \(path)")
    return try Session.parse(data, shown: path).loop
}

/// The bytes and modification time of a file, to show it was not touched.
private func fingerprint(_ path: String) throws -> (Data, Date) {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (try Data(contentsOf: URL(fileURLWithPath: path)), attributes[.modificationDate] as? Date ?? .distantPast)
}

private func waitForLoop(_ player: Child, b: Int) -> Bool {
    player.waitForOutput { $0.contains("\"event\":\"loop\"") && $0.contains("\"b\":\(b),") }
}

/// `repeater play FILE --session SESSION` on `server`, JSON status, ports unconnected.
private func startPlayer(_ file: String, session: String, server: TestServer, in scratch: ScratchDirectory,
                         _ extra: [String] = []) throws -> Child {
    try Child(repeaterPath, ["play", file, "--session", session, "--server", server.name, "--connect", "none", "--status", "json"] + extra,
              in: scratch.path)
}

extension JackSuites {
    @Suite("Sessions on a real jackd")
    struct SessionPlayTests {
        @Test("SIGTERM, SIGINT and SIGHUP each leave the latest loop points saved", arguments: [SIGTERM, SIGINT, SIGHUP])
        func signalsSave(signal: Int32) throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 10, channels: 2, format: .wav16)
            let session = scratch.file("practice.json")
            let player = try startPlayer("ramp.wav", session: session, server: server, in: scratch)
            #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
            player.send("loop 1-2")
            player.send("b 1.5")
            player.send("a 0.25")
            #expect(waitForLoop(player, b: 72_000) && player.waitForOutput { $0.contains("\"a\":12000,") })
            player.signal(signal)
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try savedLoop(session) == CurrentLoop(a: 12_000, b: 72_000, on: true))
            #expect(outcome.stdout.contains("\"reason\":\"signal\""))
        }

        @Test("the JACK server going away under the player leaves the latest loop points saved (exit 3)")
        func serverShutdownSaves() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 10, channels: 1, format: .wav16)
            let session = scratch.file("practice.json")
            let player = try startPlayer("ramp.wav", session: session, server: server, in: scratch)
            #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
            player.send("loop 2-3.5")
            #expect(waitForLoop(player, b: 168_000))
            server.process.stop()
            let outcome = player.finish(timeout: 20)
            #expect(outcome.status == 3, "\(outcome.stderr)")
            #expect(try savedLoop(session) == CurrentLoop(a: 96_000, b: 168_000, on: true))
        }

        @Test("SIGKILL in a tight loop of saves, 200 times: the file always parses and holds a state that was saved")
        func sigkillNeverBreaksTheFile() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 10, channels: 2, format: .wav16)
            let session = scratch.file("practice.json")
            // Every B the runs may save: 1.000 s + k ms, k < 400 (all after A = 0.5 s).
            let allowed = Set((0..<400).map { 48_000 + 48 * $0 })
            var killedMidRun = 0
            var generator = SystemRandomNumberGenerator()
            for iteration in 0..<200 {
                let player = try startPlayer("ramp.wav", session: session, server: server, in: scratch, ["--status-hz", "1"])
                // A burst of moves, each saved at once: the player writes the session in a tight loop.
                var burst = "loop 0.5-1\n"
                for k in 0..<400 { burst += "b \(1 + Double(k) / 1000)\nsave\n" }
                player.send(burst)
                // Kill at a random moment once it has started saving.
                _ = player.waitForOutput(timeout: 10) { $0.contains("\"event\":\"saved\"") }
                usleep(UInt32.random(in: 0...20_000, using: &generator))
                if player.process.isRunning { killedMidRun += 1 }
                player.signal(SIGKILL)
                player.process.waitUntilExit()
                guard FileManager.default.fileExists(atPath: session) else { continue }  // killed before the first save
                // (A session saved before the burst took effect holds no loop yet: also a state that
                // was saved; a busy machine kills there now and then.)
                guard let loop = try savedLoop(session) else { continue }
                #expect(loop.a == 24_000 && (allowed.contains(loop.b) || loop.b == 48_000), "iteration \(iteration): \(loop)")
            }
            #expect(killedMidRun > 150, "most kills should land while the player saves: \(killedMidRun)")
            // The next run cleans up temporaries the killed writers left, and saves normally.
            let last = try startPlayer("ramp.wav", session: session, server: server, in: scratch)
            last.send("save")
            #expect(last.waitForOutput { $0.contains("\"event\":\"saved\"") })
            last.send("quit")
            #expect(last.finish().status == 0)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }

        @Test("a session resumes: loops, position, speed, volume and the trainer come back; --fresh starts over and keeps the old file")
        func resume() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 20, channels: 2, format: .wav16)
            let state = scratch.file("state")
            let first = try Child(repeaterPath, ["play", "ramp.wav", "--server", server.name, "--connect", "none", "--status", "json"],
                                  environment: ["XDG_STATE_HOME": state], in: scratch.path)
            #expect(first.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(first.stderr)")
            for command in ["loop 3-4", "loop save verse", "loop 5-6", "loop save chorus", "volume -6dB", "trainer 0.7:0.1:2:0.9", "loop verse"] {
                first.send(command)
            }
            #expect(first.waitForOutput { $0.contains("\"event\":\"loop-selected\"") })
            #expect(first.waitForOutput { $0.contains("\"a\":144000,\"b\":192000") })  // verse is in effect
            first.send("quit")
            #expect(first.finish().status == 0)
            let files = try FileManager.default.contentsOfDirectory(atPath: state + "/repeater/sessions")
            #expect(files.count == 1 && files[0].hasPrefix("ramp.wav-"), "\(files)")
            #expect(!FileManager.default.fileExists(atPath: scratch.file("ramp.json")), "nothing is written next to the audio")

            let second = try Child(repeaterPath, ["play", "ramp.wav", "--server", server.name, "--connect", "none", "--status", "json"],
                                   environment: ["XDG_STATE_HOME": state], in: scratch.path)
            #expect(second.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(second.stderr)")
            second.send("loops")
            #expect(second.waitForOutput { $0.contains("\"event\":\"loops\"") })
            let status = second.stdout.split(separator: "\n").first { $0.contains("\"state\":\"playing\"") }.map(String.init) ?? ""
            #expect(status.contains("\"a\":144000") && status.contains("\"b\":192000") && status.contains("\"loop\":true"), "\(status)")
            #expect(status.contains("\"rate\":0.7") && status.contains("\"volume_db\":-6"), "\(status)")
            #expect(status.contains("\"active_loop\":\"verse\""))
            let frame = (try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["frame"] as? Int ?? -1
            #expect((144_000..<192_000).contains(frame), "resumed at \(frame)")
            #expect(second.stdout.contains("{\"name\":\"verse\",\"a\":144000,\"b\":192000") && second.stdout.contains("\"name\":\"chorus\""))
            second.send("quit")
            #expect(second.finish().status == 0)

            let fresh = try Child(repeaterPath, ["play", "ramp.wav", "--fresh", "--server", server.name, "--connect", "none", "--status", "json"],
                                  environment: ["XDG_STATE_HOME": state], in: scratch.path)
            #expect(fresh.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(fresh.stderr)")
            let freshStatus = fresh.stdout.split(separator: "\n").first { $0.contains("\"state\":\"playing\"") }.map(String.init) ?? ""
            #expect(freshStatus.contains("\"rate\":1,") && freshStatus.contains("\"loop\":false"), "\(freshStatus)")
            fresh.send("quit")
            #expect(fresh.finish().status == 0)
            let kept = try FileManager.default.contentsOfDirectory(atPath: state + "/repeater/sessions").sorted()
            #expect(kept.count == 2 && kept.contains { $0.hasSuffix(".previous.json") }, "\(kept)")
        }

        @Test("the shipped sessions play: demo.json and language.json (its subtitles and drill) with their generated audio, loops and settings in effect")
        func shippedSessionsPlay() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
            for name in ["demo.json", "language.json", "phrases.srt"] {
                try FileManager.default.copyItem(atPath: root + "/sessions/" + name, toPath: scratch.file(name))
            }
            let made = try run("/bin/bash", [root + "/scripts/make-demo-audio", scratch.path], in: scratch.path, timeout: 60)
            try #require(made.status == 0, "scripts/make-demo-audio: \(made.stderr)")
            for (name, expected) in [("demo.json", ["\"a\":0,", "\"b\":134400,", "\"rate\":0.75", "\"active_loop\":\"first bar\"", "\"trainer\":{"]),
                                     ("language.json", ["\"a\":0,", "\"b\":144000,", "\"rate\":0.9", "\"drill\":{\"line\":1,", "\"text\":\"Bonjour, comment allez-vous ?\""])] {
                let player = try Child(repeaterPath, ["play", name, "--server", server.name, "--connect", "none", "--status", "json"], in: scratch.path)
                #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(name): \(player.stderr)")
                player.send("2")  // not a command: an error event, nothing else
                player.send("loop 9")  // neither a name nor one of the loops' numbers
                player.send("loops")
                #expect(player.waitForOutput { $0.contains("\"event\":\"loops\"") })
                // A second of status (10 Hz), past the lead-in of the first phrase.
                #expect(player.waitForOutput { $0.components(separatedBy: "\"state\":\"playing\"").count > 10 })
                player.send("quit")
                let outcome = player.finish()
                #expect(outcome.status == 0, "\(name): \(outcome.stderr)")
                let status = outcome.stdout.split(separator: "\n").first { $0.contains("\"state\":\"playing\"") }.map(String.init) ?? ""
                for field in expected { #expect(status.contains(field), "\(name): \(field) not in \(status)") }
                #expect(outcome.stdout.contains("no loop named '9'"))
                // The meters hear the audio: neither file is silent where its first loop plays.
                let levels = outcome.stdout.split(separator: "\n").compactMap { line -> Double? in
                    guard line.contains("\"state\""), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                          let meters = object["meters"] as? [[String: Any]] else { return nil }
                    return meters.first?["peak_db"] as? Double
                }
                #expect(levels.contains { $0 > -30 }, "\(name): peaks \(levels)")
            }
        }

        @Test("the speed trainer on a real run: each step comes after EVERY wraps, in the events and the saved session")
        func trainerOnJack() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 10, channels: 2, format: .wav16)
            let session = scratch.file("s.json")
            let player = try startPlayer("ramp.wav", session: session, server: server, in: scratch, ["--loop", "1-1.2", "--trainer", "0.8:0.1:2:1.0"])
            #expect(player.waitForOutput(timeout: 20) { $0.contains("\"done\":true") }, "\(player.stderr)")
            player.send("quit")
            let outcome = player.finish()
            #expect(outcome.status == 0)
            // The order of events: wraps 1, 2, then the step to 0.9, wraps 3, 4, then 1.0 (done).
            let events = outcome.stdout.split(separator: "\n").compactMap { line -> String? in
                if line.contains("\"event\":\"wrap\"") { return "w" }
                if line.contains("\"event\":\"trainer\"") {
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    return "s\(object?["speed"] as? Double ?? -1)"
                }
                return nil
            }
            #expect(Array(events.prefix(6)) == ["w", "w", "s0.9", "w", "w", "s1.0"], "\(events)")
            let saved = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: session)), shown: session)
            #expect(saved.trainer?.isDone == true && saved.trainer?.speed == 1.0 && saved.speed == 1.0)
        }
    }
}

@Suite("Sessions that cannot be read")
struct SessionErrorTests {
    @Test("each gets one line naming the file and the field or line, exit 2, and the file is left untouched", arguments: [
        ("{\n  \"version\": 1,\n  \"audio\": \"ramp.wav\"\n  \"speed\": 0.8\n}\n", "line 4, column 3: expected ',' or '}'"),
        ("{\"version\": 1, \"audio\": \"ramp.wav\", \"speed\": \"slow\"}", "field \"speed\" must be a number, not a string"),
        ("{\"version\": 1, \"audio\": \"ramp.wav\", \"sample_rate\": 48000, \"loops\": [{\"name\": \"coda\", \"start\": 0, \"end\": 96001}]}",
         "field \"loops\" \"coda\" ends at 0:02.000, after the end of 'ramp.wav' (0:02.000)"),
        ("{\"version\": 1, \"audio\": \"gone.flac\"}", "its audio file 'gone.flac' is missing"),
        ("{\"version\": 3, \"audio\": \"ramp.wav\"}", "field \"version\" is 3: the file was written by a newer repeater"),
    ])
    func refused(text: String, expected: String) throws {
        let scratch = ScratchDirectory()
        try writeRamp(path: scratch.file("ramp.wav"), frames: 96_000, channels: 2)
        let path = scratch.file("bad.json")
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let before = try fingerprint(path)
        usleep(20_000)  // a write now would show in the modification time
        // (With --session the FILE given wins over the session's audio, so a missing one is not an error there.)
        let forms = expected.contains("gone.flac") ? [["play", "bad.json"]] : [["play", "bad.json"], ["play", "ramp.wav", "--session", "bad.json"]]
        for arguments in forms {
            let outcome = try run(repeaterPath, arguments, in: scratch.path)
            #expect(outcome.status == 2, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderrLines.count == 1, "\(outcome.stderr)")
            #expect(outcome.stderr.hasPrefix("repeater: error: session ") && outcome.stderr.contains("bad.json"), "\(outcome.stderr)")
            #expect(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
            let after = try fingerprint(path)
            #expect(after.0 == before.0 && after.1 == before.1, "the session file was touched")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }
        #expect(files.sorted() == ["bad.json", "ramp.wav"], "nothing else was written")
    }
}
