import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

extension JackSuites {
    @Suite("repeater play on a real jackd")
    struct PlayTests {
        @Test("a ramp file comes back bit-exact through JACK, first frame to last", arguments: [1, 2, 6])
        func bitExact(channels: Int) throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            let frames = 48_000 * 2 + 123
            try writeRamp(path: path, frames: frames, channels: channels)
            let expected = (0..<channels).map { channel in (0..<frames).map { rampSample(frame: $0, channel: channel, channels: channels) } }
            let (outcome, captured, losses) = try captureRun(server: server, ports: channels, playArguments: [path], scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
            expectExactlyOnce(captured, expected, losses: losses)
        }

        @Test("a real recording (alsa-utils' Front_Center.wav) comes back sample for sample")
        func realRecording() throws {
            let path = "/usr/share/sounds/alsa/Front_Center.wav"
            try #require(FileManager.default.fileExists(atPath: path), "install alsa-utils")
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let expected = [try readAll(path).samples]
            let (outcome, captured, losses) = try captureRun(server: server, ports: 1, playArguments: [path], scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            expectExactlyOnce(captured, expected, losses: losses)
        }

        @Test("--from starts at exactly that frame")
        func from() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            try writeRamp(path: path, frames: 96_000, channels: 2)
            let expected = (0..<2).map { channel in (72_000..<96_000).map { rampSample(frame: $0, channel: channel, channels: 2) } }
            let (outcome, captured, losses) = try captureRun(server: server, ports: 2, playArguments: [path, "--from", "1.5"], scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            expectExactlyOnce(captured, expected, losses: losses)
        }

        @Test("a file cut short plays what it has, warns in one line, and exits 0")
        func truncated() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let full = scratch.file("full.wav"), cut = scratch.file("cut.wav")
            try writeRamp(path: full, frames: 48_000, channels: 2, format: .wav)
            try Data(contentsOf: URL(fileURLWithPath: full)).prefix(200_000).write(to: URL(fileURLWithPath: cut))
            let present = (200_000 - 80) / 8  // float WAV: 80-byte header from libsndfile, 8 bytes a frame
            let info = try AudioFile(path: cut).info
            let expected = (0..<2).map { channel in (0..<info.frameCount).map { rampSample(frame: $0, channel: channel, channels: 2) } }
            let (outcome, captured, losses) = try captureRun(server: server, ports: 2, playArguments: [cut], scratch: scratch)
            #expect(outcome.status == 0)
            #expect(outcome.stderrLines.count == 1 && outcome.stderr.contains("cut short"), "\(outcome.stderr)")
            #expect(abs(info.frameCount - present) <= 1)
            expectExactlyOnce(captured, expected, losses: losses)
        }

        @Test("SIGTERM, SIGINT and SIGHUP end playback cleanly with exit 0", arguments: [SIGTERM, SIGINT, SIGHUP])
        func signals(signal: Int32) throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let path = scratch.file("long.wav")
            try writeRamp(path: path, frames: 48_000 * 30, channels: 2, format: .wav16)
            let player = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "json"], in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
            player.signal(signal)
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("error"))
        }

        @Test("--rate 0.8: the ports report the stretcher's delay to JACK (jack_lsp -l), and the speed shows in the status")
        func stretcherLatency() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 10, channels: 2, format: .wav16)
            let player = try Child(repeaterPath, ["play", "ramp.wav", "--server", server.name, "--name", "rl", "--connect", "none",
                                                  "--status", "json", "--rate", "0.8"], in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"rate\":0.8") && !$0.contains("\"latency\":0,") })
            usleep(200_000)
            let lsp = try run("/usr/bin/jack_lsp", ["-s", server.name, "-l", "rl:out_1"], in: scratch.path)
            player.send("quit")
            #expect(player.finish(timeout: 10).status == 0)
            let match = lsp.stdout.range(of: #"capture latency = \[ (\d+) (\d+) \]"#, options: .regularExpression)
            let text = match.map { String(lsp.stdout[$0]) } ?? ""
            let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            #expect(numbers.count == 2 && numbers[0] >= 1024 && numbers[0] == numbers[1], "jack_lsp: \(lsp.stdout)")
        }

        @Test("a steady player's control thread sleeps until it has something to do: about one wake-up per status line and per event (it looked 50 times a second)")
        func controlThreadSleeps() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 60, channels: 2, format: .wav16)
            let player = try Child(repeaterPath, ["play", "ramp.wav", "--server", server.name, "--connect", "none", "--status", "json",
                                                  "--loop", "0-0.35"], in: scratch.path)
            let pid = player.process.processIdentifier
            /// The main (control) thread's voluntary context switches: one per sleep it was woken from.
            func wakeUps() -> Int? {
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/status", encoding: .utf8)) ?? ""
                let line = text.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
                return line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
            }
            #expect(player.waitForOutput { statusLines($0).count >= 5 }, "\(player.stderr)")
            let start = (wakeUps: try #require(wakeUps()), status: statusLines(player.stdout).count, wraps: events(player.stdout, "wrap").count)
            #expect(player.waitForOutput(timeout: 30) { statusLines($0).count >= start.status + 30 })
            let end = (wakeUps: try #require(wakeUps()), stdout: player.stdout)
            player.send("quit")
            #expect(player.finish(timeout: 10).status == 0)
            let status = statusLines(end.stdout).count - start.status, wraps = events(end.stdout, "wrap").count - start.wraps
            let perLine = Double(end.wakeUps - start.wakeUps) / Double(status + wraps)
            print("control thread: \(end.wakeUps - start.wakeUps) wake-ups for \(status) status lines and \(wraps) wraps: \(String(format: "%.2f", perLine)) a line")
            #expect(wraps >= 5, "a 0.35 s loop wraps about 9 times in 30 status windows")
            #expect(perLine < 2.5, "at 50 wake-ups a second it was about 4 a line")
        }

        @Test("--start-server plays on a private server, says which, and stops it on exit")
        func startServer() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            try writeRamp(path: path, frames: 24_000, channels: 2)
            let outcome = try run(repeaterPath, ["play", path, "--start-server", "--connect", "none", "--status", "none"], in: scratch.path)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stderrLines.count == 1 && outcome.stderr.contains("started a private JACK server 'repeater-private-"), "\(outcome.stderr)")
            let name = outcome.stderr.split(separator: "'")[1]
            #expect(!JackServerProcess.isAnswering(name: String(name)))
            #expect(!JackServerProcess.jackdProcessExists(name: String(name)))
        }

        @Test("a player killed outright (SIGKILL, as a crash) leaves no private server running: its guardian stops jackd with one SIGTERM, cleanly")
        func crashLeavesNoServer() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("long.wav")
            try writeRamp(path: path, frames: 48_000 * 30, channels: 1, format: .wav16)
            let player = try Child(repeaterPath, ["play", path, "--start-server", "--connect", "none", "--status", "json"], in: scratch.path)
            #expect(player.waitForOutput(timeout: 20) { $0.contains("\"state\":\"playing\"") })
            let words = player.stderr.split(separator: "'")
            try #require(words.count >= 2 && player.stderr.contains("started a private JACK server"), "\(player.stderr)")
            let name = String(words[1])
            #expect(JackServerProcess.jackdProcessExists(name: name))
            player.signal(SIGKILL)
            _ = player.finish(timeout: 5)
            // jackd takes up to ~6 s to stop when a client died under it.
            let deadline = Date().addingTimeInterval(25)
            while JackServerProcess.jackdProcessExists(name: name), Date() < deadline { usleep(100_000) }
            #expect(!JackServerProcess.jackdProcessExists(name: name), "jackd '\(name)' still runs after its player was killed")
            #expect(JackServerProcess.staleFiles(name: name).isEmpty, "jackd '\(name)' left \(JackServerProcess.staleFiles(name: name))")
        }

        @Test("the JACK server going away ends the player with a message and exit 3")
        func serverShutdown() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let path = scratch.file("long.wav")
            try writeRamp(path: path, frames: 48_000 * 30, channels: 1, format: .wav16)
            let player = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "json"], in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
            server.process.stop()
            let outcome = player.finish(timeout: 20)
            #expect(outcome.status == 3, "\(outcome.stderr)")
            #expect(outcome.stderrLines == ["repeater: error: the JACK server shut down; stopping"])
        }

        @Test("no allocation and no lock on the JACK process thread during a real run with loops, moves, gaps, chimes, speed, the loop cache (kept, replayed, left), volume and pan changes, metering, MIDI presses, the transport, recording, the calibration probe and a take heard back (preloaded counter); on a real-time server the render-ahead helper thread too",
              arguments: [false, true])
        func realTimeSafetyUnderJack(realtime: Bool) throws {
            let library = productsDirectory + "/libRepeaterRTCheck.so"
            try #require(FileManager.default.fileExists(atPath: library), "build the RepeaterRTCheck product first (swift build)")
            let server = try TestServer(realtime: realtime)  // real-time: the engine renders ahead on a helper thread
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            try writeRamp(path: path, frames: 48_000 * 3, channels: 2)
            let report = scratch.file("rtcheck.txt")
            let player = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "json",
                                                  "--status-hz", "50", "--loop", "0.1-0.5", "--loops", "400", "--gap", "0.01", "--declick", "3",
                                                  "--midi", "--transport", "drive", "--record", "none", "--no-session"],
                                   environment: ["LD_PRELOAD": library, "RTCHECK_REPORT": report], in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") })
            // A pedal too: presses of every kind and garbage reach the process callback.
            let pedal = try Child(capturePath, ["--midi-send", "--server", server.name, "--name", "pedal", "--to", "repeater:control"],
                                  in: scratch.path)
            #expect(pedal.waitForOutput { $0.contains("ready") })
            let presses = ["5 B0 41 7F", "9 B0 42 7F", "3 B0 43 7F", "7 90 3E 40", "1 F0 01 02", "2 F8", "4 C0 00", "5 B0 41 7F"]
            for (index, command) in ["record on", "calibrate", "pause", "play", "seek 0.2", "toggle", "toggle", "b 0.4", "a", "b", "a 0.05", "loop 0.2-0.3",
                                     "gap 0", "loop off", "loop on", "b 0.45", "chime 11:59", "chime 3:47", "rate 0.8", "rate 1.3", "rate 1",
                                     "volume -6dB", "pan -0.5", "volume +3dB", "pan 1", "volume 0", "volume 1", "pan 0",
                                     "transport follow", "transport off", "transport drive"].enumerated() {
                player.send(command)
                if index < presses.count { pedal.send(presses[index]) }
                usleep(20_000)
            }
            // Recording: a take made, then heard beside the recording (the input is silence: nothing is connected).
            // (A dropout makes the player measure again, up to five times, each within 6 s: on a busy
            // machine the result can take that long.)
            #expect(player.waitForOutput(timeout: 40) { $0.contains("\"event\":\"calibrated\"") },
                    "no calibration: \(player.stdout.split(separator: "\n").filter { $0.contains("calibrat") }.suffix(8)) \(player.stdout.suffix(800))")
            #expect(player.waitForOutput { $0.contains("\"event\":\"take\"") }, "no take: \(player.stdout.suffix(800))")
            for command in ["compare both", "take play", "compare alternate", "take stop", "take play", "record off"] {
                player.send(command)
                usleep(100_000)
            }
            // The loop cache: a pass kept, replayed, and left (a speed change) and kept again.
            player.send("loop 0.1-0.5")
            player.send("rate 0.75")
            #expect(player.waitForOutput { $0.contains("\"event\":\"loop-cache\",\"state\":\"replay\"") }, "no replay: \(player.stdout.suffix(800))")
            usleep(600_000)
            player.send("rate 0.8")
            #expect(player.waitForOutput { $0.contains("\"event\":\"loop-cache\",\"state\":\"off\",\"reason\":\"speed\"") })
            usleep(300_000)
            player.send("quit")
            _ = pedal.finish(timeout: 5)
            let outcome = player.finish(timeout: 30)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let text = try String(contentsOfFile: report, encoding: .utf8)
            let fields = Dictionary(uniqueKeysWithValues: text.split(separator: "\n")[0].split(separator: " ").map {
                let pair = $0.split(separator: "=")
                return (String(pair[0]), Int(pair[1]) ?? -1)
            })
            #expect((fields["sections"] ?? 0) > 100, "process callbacks seen: \(text)")
            #expect(fields["allocs"] == 0 && fields["frees"] == 0 && fields["locks"] == 0, "\(text)")
        }

        @Test("offline render has no allocation or lock in its render calls either (preloaded counter)")
        func realTimeSafetyOffline() throws {
            let library = productsDirectory + "/libRepeaterRTCheck.so"
            try #require(FileManager.default.fileExists(atPath: library))
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.flac")
            try writeRamp(path: path, frames: 48_000 * 5, channels: 2, format: .flac)
            let report = scratch.file("rtcheck.txt")
            let outcome = try run(repeaterPath, ["render", path, "-o", scratch.file("out.wav")],
                                  environment: ["LD_PRELOAD": library, "RTCHECK_REPORT": report], in: scratch.path)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let text = try String(contentsOfFile: report, encoding: .utf8)
            #expect(text.hasPrefix("sections=235 allocs=0 frees=0 locks=0"), "\(text)")  // 240000 frames / 1024 per cycle
        }
    }
}

@Suite("repeater errors")
struct ErrorTests {
    @Test("no JACK server: one line saying so and how to start one, exit 2")
    func noServer() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("ramp.wav")
        try writeRamp(path: path, frames: 4800, channels: 1)
        let outcome = try run(repeaterPath, ["play", path, "--server", "repeater-test-absent"], in: scratch.path)
        #expect(outcome.status == 2)
        #expect(outcome.stderrLines == ["repeater: error: no JACK server 'repeater-test-absent' is running: start one (e.g. `jackd -d dummy &`, or your usual setup), or pass --start-server"])
    }

    @Test("bad files: one line naming the file and the problem, exit 2", arguments: [
        ("missing.wav", nil as String?, "'missing.wav': no such file; check the path"),
        ("empty.wav", "", "'empty.wav' is empty (0 bytes): not an audio file"),
        ("notes.txt", "hello\n", "'notes.txt' is not an audio file that libsndfile can read (Format not recognised)"),
        ("broken.wav", "RIFF\u{24}\0\0\0WAVEfmt ", "'broken.wav' has a broken header"),
    ])
    func badFiles(name: String, contents: String?, message: String) throws {
        let scratch = ScratchDirectory()
        if let contents { _ = FileManager.default.createFile(atPath: scratch.file(name), contents: Data(contents.utf8)) }
        for command in ["play", "info"] {
            let outcome = try run(repeaterPath, [command, name], in: scratch.path)
            #expect(outcome.status == 2)
            #expect(outcome.stderrLines.count == 1)
            #expect(outcome.stderr.hasPrefix("repeater: error: " + message), "\(outcome.stderr)")
        }
    }

    @Test("bad arguments: one line and exit 2", arguments: [
        (["play"], "repeater: error: play needs a FILE; see `repeater play --help`"),
        (["play", "x.wav", "--from", "1:75"], "repeater: error: --from: '1:75' is not a time: use seconds (83.5), m:ss (1:23.5), h:mm:ss (1:02:03.25) or frames (3984000f)"),
        (["play", "x.wav", "--bogus"], "repeater: error: unknown option '--bogus' for `repeater play`; see `repeater play --help`"),
        (["render", "x.wav"], "repeater: error: render needs -o OUT (the file to write)"),
    ])
    func badArguments(arguments: [String], line: String) throws {
        let scratch = ScratchDirectory()
        let outcome = try run(repeaterPath, arguments, in: scratch.path)
        #expect(outcome.status == 2)
        #expect(outcome.stderrLines == [line])
    }

    @Test("info prints format, rate, channels, frames and duration")
    func info() throws {
        let scratch = ScratchDirectory()
        try writeRamp(path: scratch.file("ramp.wav"), frames: 72_000, channels: 2)
        let outcome = try run(repeaterPath, ["info", "ramp.wav"], in: scratch.path)
        #expect(outcome.status == 0)
        #expect(outcome.stdout == """
        file:        ramp.wav
        format:      WAV (Microsoft), 32 bit float
        sample rate: 48000 Hz
        channels:    2
        frames:      72000
        duration:    0:01.500

        """)
    }
}

@Test("every fuzzing seed and finding (Tests/FuzzCorpus) is replayed through its target without a crash", arguments: [
    "time", "command", "session", "osc", "osc-packet", "midi", "midi-json", "page",
])
func fuzzCorpusReplays(target: String) throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FuzzCorpus/\(target)").path
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }
    #expect(!files.isEmpty)
    let scratch = ScratchDirectory()
    let outcome = try run(productsDirectory + "/repeater-fuzz", [target] + files, in: scratch.path)
    #expect(outcome.status == 0, "\(outcome.stderr)")
    #expect(outcome.stdout.contains("replayed \(files.count) inputs"))
}
