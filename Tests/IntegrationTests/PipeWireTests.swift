import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// The frame a stereo ramp sample on channel 0 encodes, or nil for silence.
private func rampFrame(_ value: Float) -> Int? {
    if value == 0 { return nil }
    return (Int((value * Float(1 << 23)).rounded()) - 1) / 2
}

func reportedWrapSet(_ stdout: String) -> Set<String> {
    Set(stdout.split(separator: "\n").compactMap { line -> String? in
        guard line.contains("\"event\":\"wrap\""), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let from = object["from"] as? Int, let to = object["to"] as? Int else { return nil }
        return "\(from)>\(to)"
    })
}

extension JackSuites {
    @Suite("On PipeWire's JACK (pw-jack, headless, quantum 1024)", .enabled(if: PipeWireServer.available, "pipewire cannot start on this machine"))
    struct PipeWireTests {
        /// Plays `playArguments` under pw-jack into a capture client on a private PipeWire.
        /// `afterEach`, if given, is called after each command is sent (with its index and the player).
        private func capturedRun(_ playArguments: [String], seconds: Double, commands: [String] = [], scratch: ScratchDirectory,
                                 afterEach: ((Int, Child) -> Void)? = nil)
            throws -> (outcome: Outcome, left: [Float], losses: GraphLosses) {
            let pipewire = try PipeWireServer()
            defer { pipewire.stop() }
            let capture = try Child("/usr/bin/pw-jack", [capturePath, "--name", "cap", "--ports", "2", "--out", scratch.file("capture.wav"),
                                                         "--seconds", "\(Int(seconds) + 30)", "--log", scratch.file("capture.log")],
                                    environment: pipewire.environment, in: scratch.path)
            try #require(capture.waitForOutput { $0.contains("ready") }, "capture client did not start: \(capture.stderr)")
            let player = try Child("/usr/bin/pw-jack", [repeaterPath, "play"] + playArguments + ["--connect", "cap:in_", "--status", "json",
                                                                                               "--no-session"],
                                   environment: pipewire.environment, in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
            let interval = seconds / Double(commands.count + 1)
            for (index, command) in commands.enumerated() {
                usleep(UInt32(interval * 1_000_000))
                player.send(command)
                afterEach?(index, player)
            }
            usleep(UInt32(interval * 1_000_000))
            player.send("quit")
            let outcome = player.finish(timeout: 30)
            capture.signal(SIGTERM)
            #expect(capture.finish(timeout: 10).status == 0)
            let samples = try readAll(scratch.file("capture.wav")).samples
            return (outcome, stride(from: 0, to: samples.count, by: 2).map { samples[$0] }, GraphLosses(logPath: scratch.file("capture.log")))
        }

        /// PipeWire's JACK library does not tell a client that its server has gone (jackd's does, and
        /// the clients leave: `TakePlayTests`). The private PipeWire's stop, which is also what its
        /// guardian does when a test process dies, stops the clients on it first: a test that died
        /// under PipeWire once left a player and a delay line running.
        @Test("stopping the private PipeWire stops the player and the capture client on it")
        func clientsStopWithTheServer() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            try writeRamp(path: path, frames: 48_000 * 20, channels: 2)
            let pipewire = try PipeWireServer()
            defer { pipewire.stop() }
            let capture = try Child("/usr/bin/pw-jack", [capturePath, "--name", "cap", "--ports", "2", "--out", scratch.file("capture.wav"),
                                                         "--seconds", "600"],
                                    environment: pipewire.environment, in: scratch.path)
            try #require(capture.waitForOutput { $0.contains("ready") }, "capture client did not start: \(capture.stderr)")
            let player = try Child("/usr/bin/pw-jack", [repeaterPath, "play", path, "--loop", "1-2", "--connect", "cap:in_",
                                                        "--status", "json", "--no-session"],
                                   environment: pipewire.environment, in: scratch.path)
            try #require(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
            pipewire.stop()
            // Neither quits on its own (the player plays the loop until told, the capture for 600 s):
            // 124 is the harness's own SIGTERM after 10 s of waiting.
            let played = player.finish(timeout: 10), captured = capture.finish(timeout: 10)
            #expect(played.status != 124, "the player kept running after its server stopped: \(played.stderr)")
            #expect(captured.status != 124, "the capture client kept running after its server stopped: \(captured.stderr)")
        }

        @Test("a loop with moves under PipeWire: every seam a reported wrap, nothing lost, nothing repeated, no silence")
        func loopExact() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            try writeRamp(path: path, frames: 48_000 * 20, channels: 2)
            let (outcome, left, losses) = try capturedRun([path, "--loop", "1-1.5"], seconds: 8,
                                                  commands: ["b 1.3", "a 0.9", "loop 2-2.05", "loop 3-4", "b 3.5", "loop 0.5-0.6"],
                                                  scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let check = checkLoopCapture(left.map(rampFrame), wraps: reportedWrapSet(outcome.stdout), losses: losses)
            expectLoopCaptureExact(check, outcome.stdout, losses: losses)
            #expect(check.seams > 20)
        }

        @Test("stretching under PipeWire: a steady tone at 0.8, then back to 1, has no hole and no underrun")
        func stretch() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("tone.wav")
            let frames = 12 * 48_000
            let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 2)
            var tone = (0..<frames).map { Float(0.5 * sin(2 * Double.pi * 220 * Double($0) / 48_000)) }
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * 2)
            defer { buffer.deallocate() }
            try tone.withUnsafeMutableBufferPointer { try writer.write(planar: [$0.baseAddress!, $0.baseAddress!], frameCount: frames, scratch: buffer) }
            writer.close()
            let (outcome, left, losses) = try capturedRun([path, "--rate", "0.8"], seconds: 6, commands: ["rate 1", "rate 0.9"], scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let first = try #require(left.firstIndex { abs($0) > 0.01 })
            let last = try #require(left.lastIndex { abs($0) > 0.01 })
            expectNoHoles(left, in: (first + 600)..<(last - 600), losses: losses, playerStdout: outcome.stdout)
            #expect(outcome.stdout.split(separator: "\n").last { $0.hasPrefix("{\"state\"") }?.contains("\"underruns\":0") == true)
        }

        @Test("a loop soak under PipeWire (90 s, a loop move every 3 s): exact throughout")
        func loopSoak() throws {
            let scratch = ScratchDirectory()
            let path = scratch.file("ramp.wav")
            try writeRamp(path: path, frames: 48_000 * 60, channels: 2)
            // Each new loop, 50 ms … 1.5 s long, ends 50 … 300 ms before the last one's A: it lies
            // behind the playhead, so the player wraps into it at once (a loop ahead of the playhead
            // is reached by playing on, which can take longer than the 3 s it stands: the soak once
            // counted 28 seams for its 29 moves that way). From 55 s down, 29 of them fit.
            var commands: [String] = [], starts: [Int] = []
            var generator = SystemRandomNumberGenerator()
            var previousA = 55_000  // ms
            for _ in 0..<29 {
                let b = previousA - Int.random(in: 50...300, using: &generator)
                let a = b - Int.random(in: 50...1500, using: &generator)
                commands.append(String(format: "loop %d.%03d-%d.%03d", a / 1000, a % 1000, b / 1000, b % 1000))
                starts.append(a * 48)
                previousA = a
            }
            // Each loop stands until the player has said it wrapped into its A, then to the next
            // move, 3 s after the last.
            var wrapped = 0
            let (outcome, left, losses) = try capturedRun([path, "--loop", "55-56"], seconds: 90, commands: commands, scratch: scratch) { index, player in
                if player.waitForOutput(timeout: 10, { reportedWrapSet($0).contains { $0.hasSuffix(">\(starts[index])") } }) { wrapped += 1 }
            }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(wrapped == 29, "the player reported a wrap into \(wrapped) of the 29 loops")
            let check = checkLoopCapture(left.map(rampFrame), wraps: reportedWrapSet(outcome.stdout), losses: losses)
            expectLoopCaptureExact(check, outcome.stdout, losses: losses)
            // Each of the 29 loops wrapped, and each wrap is in the capture (as a seam, or where
            // PipeWire skipped the capture for a cycle and said so).
            #expect(check.seams + check.atLosses >= 29, "\(check.seams) seams, \(check.atLosses) at losses")
            print("pipewire soak: \(check.seams) seams, \(check.atLosses) slips where PipeWire skipped the capture for a cycle")
        }
    }
}
