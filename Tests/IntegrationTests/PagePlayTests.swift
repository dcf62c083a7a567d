import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// The JSON objects in a text, one a line.
private func objects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private func statuses(_ stdout: String) -> [[String: Any]] { objects(stdout).filter { $0["event"] == nil && $0["state"] != nil } }

private func webPort() -> Int { Int.random(in: 40_000...49_000) }

/// 24 s of a real recording (Frozen Bubble's theme, from Debian's frozen-bubble-data) at its own
/// 44.1 kHz on the 48 kHz test server, with four subtitle lines beside it.
private func writeExcerpt(_ scratch: ScratchDirectory) throws -> (audio: String, subs: String) {
    let source = try AudioFile(path: "/usr/share/games/frozen-bubble/snd/frozen-mainzik-1p.ogg")
    let frames = 24 * source.info.sampleRate
    var samples = [Float](repeating: 0, count: frames * source.info.channelCount)
    let read = samples.withUnsafeMutableBufferPointer { source.read(into: $0.baseAddress!, frameCount: frames) }
    let audio = scratch.file("theme.wav"), subs = scratch.file("theme.srt")
    let writer = try AudioFileWriter(path: audio, format: .wav, sampleRate: source.info.sampleRate, channelCount: source.info.channelCount)
    try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: read) }
    writer.close()
    try """
    1
    00:00:01,000 --> 00:00:04,000
    The first line

    2
    00:00:05,000 --> 00:00:08,500
    A second line, a little longer than the first

    3
    00:00:10,000 --> 00:00:13,000
    And the third

    4
    00:00:15,000 --> 00:00:19,000
    The last line of the excerpt

    """.write(toFile: subs, atomically: true, encoding: .utf8)
    return (audio, subs)
}

/// The player with the page on a free port (a few tries), JSON status; waits until it plays.
private func startPlayer(_ server: TestServer, _ scratch: ScratchDirectory, _ arguments: [String], web: String? = nil,
                         environment: [String: String] = [:]) throws -> (player: Child, port: Int) {
    for _ in 0..<5 {
        let port = webPort()
        let player = try Child(repeaterPath, ["play"] + arguments + ["--server", server.name, "--connect", "none", "--status", "json",
                                                                  "--no-session", "--web", web.map { "\($0):\(port)" } ?? "\(port)"],
                               environment: environment, in: scratch.path)
        if player.waitForOutput(timeout: 15, { $0.contains("\"state\":\"playing\"") }) { return (player, port) }
        let outcome = player.finish(timeout: 5)
        guard outcome.stderr.contains("cannot be used") else { Issue.record("the player did not start: \(outcome.stderr)"); break }
    }
    throw RepeaterError(.failure, "no free port for the page")
}

/// The TCP sockets process `pid` listens on, as `127.0.0.1:8765` / `[::1]:8765` (/proc/net/tcp*).
private func listeningSockets(of pid: Int32) -> [String] {
    let folder = "/proc/\(pid)/fd"
    let inodes = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap { name -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name), target.hasPrefix("socket:[") else { return nil }
        return String(target.dropFirst(8).dropLast())
    })
    var found: [String] = []
    for (file, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        for line in ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])) else { continue }  // 0A: LISTEN
            let local = fields[1].split(separator: ":")
            guard local.count == 2, let port = Int(local[1], radix: 16) else { continue }
            let hex = String(local[0])
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex, let next = hex.index(index, offsetBy: 8, limitedBy: hex.endIndex) {
                let word = UInt32(hex[index..<next], radix: 16) ?? 0
                bytes += [UInt8(word & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word >> 16 & 0xFF), UInt8(word >> 24)]
                index = next
            }
            var text = [CChar](repeating: 0, count: 64)
            _ = inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, &text, 64)
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            found.append((v6 ? "[\(address)]" : address) + ":\(port)")
        }
    }
    return found.sorted()
}

/// Width and height of a PNG file (its IHDR).
private func pngSize(_ path: String) -> (width: Int, height: Int)? {
    guard let data = FileManager.default.contents(atPath: path), data.count > 24, data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
    let bytes = [UInt8](data[16..<24])
    return (bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }, bytes[4..<8].reduce(0) { $0 << 8 | Int($1) })
}

extension JackSuites {
    @Suite("The practice page: in a real browser, and who may reach it")
    struct PagePlayTests {
        @Test("in headless Chromium: the waveform drawn from the player's peaks; the playhead moves between status lines; keys, the speed control, dragging B (and snapping it to a beat), a line's click do what they show; the captures at 1280×800 and 360×740")
        func browser() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let (audio, subs) = try writeExcerpt(scratch)
            let (player, port) = try startPlayer(server, scratch, [audio, "--subs", subs, "--loop", "0:04-0:12"])
            let start = try #require(objects(player.stdout).first { $0["event"] as? String == "start" })
            #expect(start["web"] as? String == "http://127.0.0.1:\(port)/", "\(start)")
            let captures = URL(fileURLWithPath: productsDirectory).deletingLastPathComponent().appendingPathComponent("page-captures").path
            try? FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Browser/practice_page.py").path
            let started = Date()
            let browser = try run("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", captures], in: scratch.path, timeout: 180)
            let seconds = Date().timeIntervalSince(started)
            player.send("quit")
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(browser.status == 0, "the browser's script failed: \(browser.stderr.suffix(3000))")
            var steps: [String: [String: Any]] = [:]
            var keys: [[String: Any]] = []
            for object in objects(browser.stdout) {
                guard let name = object["step"] as? String else { continue }
                if name == "key" { keys.append(object) } else { steps[name] = object }
            }
            print("the browser's steps took \(String(format: "%.1f", seconds)) s")

            // The page loads and the waveform is drawn (from the peaks: the browser decodes no audio).
            let loaded = try #require(steps["loaded"])
            let frames = loaded["frames"] as? Int ?? 0
            #expect(frames == 24 * 44_100 && loaded["sample_rate"] as? Int == 44_100)
            #expect(loaded["buckets"] as? Int == (frames + 63) / 64)
            let overview = loaded["overview_columns"] as? Int ?? 0, width = loaded["overview_width"] as? Int ?? 1
            let zoom = loaded["zoom_columns"] as? Int ?? 0, zoomWidth = loaded["zoom_width"] as? Int ?? 1
            print("waveform: \(overview) of \(width) overview columns drawn, \(zoom) of \(zoomWidth) zoomed; loaded in \(loaded["seconds"] ?? "?") s")
            #expect(overview >= width * 8 / 10 && zoom >= zoomWidth * 8 / 10)
            #expect(loaded["lines"] as? Int == 4)

            // The playhead moves at every animation frame, not at every status line, and never steps back but at the loop's end.
            let samples = (steps["playhead"]?["samples"] as? [[Double]]) ?? []
            let shown = samples.map { $0[1] }, received = Set(samples.map { $0[2] })
            let moves = zip(shown, shown.dropFirst()).map { $1 - $0 }
            let wraps = moves.filter { $0 < -44_100 }.count
            print("playhead over \(samples.count) animation frames: \(Set(shown).count) positions shown from \(received.count) status lines")
            #expect(samples.count == 30 && Set(shown).count >= 20 && Set(shown).count > 2 * received.count, "\(samples)")
            #expect(moves.allSatisfy { $0 >= 0 || $0 < -44_100 } && wraps <= 1, "\(shown)")

            // Keys are the terminal's: ] and [ step the speed by 5 %.
            #expect(keys.count == 20)
            for key in keys {
                let before = key["rate_before"] as? Double ?? 0, after = key["rate_after"] as? Double ?? 0
                #expect(abs(after - before - (key["key"] as? String == "]" ? 0.05 : -0.05)) < 1e-6, "\(key)")
            }
            let latencies = ((steps["latency"]?["milliseconds"] as? [Double]) ?? []).sorted()
            if !latencies.isEmpty {
                let p50 = latencies[latencies.count / 2], p95 = latencies[min(latencies.count - 1, latencies.count * 95 / 100)]
                print("key press on the page → the player's new status in the page (\(latencies.count) presses): min \(String(format: "%.1f", latencies[0])) ms, median \(String(format: "%.1f", p50)) ms, p95 \(String(format: "%.1f", p95)) ms, max \(String(format: "%.1f", latencies.last!)) ms")
                #expect(p50 < 500, "\(latencies)")
            }
            let nudge = try #require(steps["nudge"])
            #expect((nudge["a_after"] as? Int ?? 0) - (nudge["a_before"] as? Int ?? 0) == 441 && nudge["shown"] as? Int == nudge["a_after"] as? Int, "\(nudge)")

            // The speed control changes the speed.
            let speed = try #require(steps["speed"])
            let slider = speed["slider"] as? Int ?? 0
            #expect(slider >= 60 && slider <= 90 && abs((speed["rate"] as? Double ?? 0) * 100 - Double(slider)) < 1e-6, "\(speed)")
            #expect(statuses(outcome.stdout).contains { abs(($0["rate"] as? Double ?? 0) * 100 - Double(slider)) < 1e-6 })

            // Dragging B moves the loop to the frame the page shows, at the player (its `b` event, from the page).
            let drag = try #require(steps["drag"])
            let dragged = drag["shown"] as? Int ?? -1
            #expect(dragged < drag["b_before"] as? Int ?? 0 && drag["status_b"] as? Int == dragged && drag["shown_during"] as? Int == dragged, "\(drag)")
            // (B at a frame is a `loop` event with the page as its source)
            let bEvents = objects(outcome.stdout).filter { $0["event"] as? String == "loop" && $0["source"] as? String == "web" }.map { $0["b"] as? Int ?? -1 }
            #expect(bEvents.contains(dragged), "\(bEvents)")
            let snap = try #require(steps["snap"])
            let snapped = snap["shown"] as? Int ?? -1
            #expect((snap["beats"] as? [Int] ?? []).contains(snapped) && snap["status_b"] as? Int == snapped, "\(snap["shown"] ?? "?")")
            #expect((bEvents.firstIndex(of: snapped) ?? -1) > (bEvents.firstIndex(of: dragged) ?? Int.max), "\(bEvents)")

            // A line's click: the player goes to the line.
            let line = try #require(steps["line"])
            let lineFrame = line["frame"] as? Int ?? 0
            #expect(line["index"] as? Int == 3 && line["shown"] as? String == "And the third" && (10 * 44_100..<13 * 44_100).contains(lineFrame), "\(line)")

            // The captures, and nothing wider than the phone.
            let capturesStep = try #require(steps["captures"])
            let desktop = capturesStep["desktop"] as? String ?? "", phone = capturesStep["phone"] as? String ?? ""
            print("captures: \(desktop), \(phone)")
            #expect(pngSize(desktop).map { $0.width == 1280 && $0.height == 800 } == true)
            #expect(pngSize(phone).map { $0.width == 720 && $0.height == 1480 } == true)
            #expect(capturesStep["phone_scroll_width"] as? Int == 360)
            #expect((steps["console"]?["errors"] as? [String]) == [], "\(steps["console"] ?? [:])")
        }
    }
}
