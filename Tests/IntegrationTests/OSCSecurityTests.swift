import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing


private func lastStatus(_ stdout: String) -> [String: Any] { statusLines(stdout).last ?? [:] }

/// The UDP sockets process `pid` holds, as `127.0.0.1:9000` / `[::1]:9000`: its descriptors'
/// socket inodes looked up in /proc/net/udp and /proc/net/udp6 (what the kernel says is bound,
/// whatever the program thinks it asked for).
private func udpSockets(of pid: Int32) -> [String] {
    let folder = "/proc/\(pid)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let inodes = Set(names.compactMap { name -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name), target.hasPrefix("socket:[") else { return nil }
        return String(target.dropFirst(8).dropLast())
    })
    var found: [String] = []
    for (file, v6) in [("/proc/net/udp", false), ("/proc/net/udp6", true)] {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, inodes.contains(String(fields[9])) else { continue }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, let port = Int(local[1], radix: 16) else { continue }
            let address = procAddress(String(local[0]), v6: v6)
            found.append((v6 ? "[\(address)]" : address) + ":\(port)")
        }
    }
    return found.sorted()
}

/// An address as /proc/net/udp* print it: 32-bit words in the host's (little-endian) order.
private func procAddress(_ hex: String, v6: Bool) -> String {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while let next = hex.index(index, offsetBy: 8, limitedBy: hex.endIndex), index < hex.endIndex {
        let word = UInt32(hex[index..<next], radix: 16) ?? 0
        bytes += [UInt8(word & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word >> 16 & 0xFF), UInt8(word >> 24)]
        index = next
    }
    var text = [CChar](repeating: 0, count: 64)
    _ = inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, &text, 64)
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// CPU time (s) of the thread of `pid` named `name`, from /proc (utime + stime).
private func threadCPUSeconds(pid: Int32, name: String) -> Double? {
    let folder = "/proc/\(pid)/task"
    for task in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
        guard let comm = try? String(contentsOfFile: "\(folder)/\(task)/comm", encoding: .utf8),
              comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
              let stat = try? String(contentsOfFile: "\(folder)/\(task)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")  // state is field 3: index 0 here
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
    return nil
}

/// Counts, in the new part of a growing file, lines that contain a text (the player's stdout).
private final class LineWatcher {
    private let handle: FileHandle
    private var pending = Data()
    private let needle: Data
    private(set) var count = 0

    init(path: String, needle: String) throws {
        handle = try #require(FileHandle(forReadingAtPath: path))
        self.needle = Data(needle.utf8)
        _ = handle.readDataToEndOfFile()  // what is there already does not count
    }

    /// Reads what was appended; the count of whole lines with the needle so far.
    func update() -> Int {
        pending += handle.readDataToEndOfFile()
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            if pending[pending.startIndex..<newline].range(of: needle) != nil { count += 1 }
            pending = Data(pending[(newline + 1)...])
        }
        return count
    }
}

/// A player of a 10 s ramp, looping it (so that it plays for as long as a test needs), JSON status.
private func startPlayer(_ server: TestServer, _ scratch: ScratchDirectory, statusHz: Int = 10, _ extra: [String],
                         environment: [String: String] = [:]) throws -> Child {
    let path = scratch.file("ramp.wav")
    if !FileManager.default.fileExists(atPath: path) { try writeRamp(path: path, frames: 48_000 * 10, channels: 2) }
    let player = try Child(repeaterPath, ["play", path, "--server", server.name, "--connect", "none", "--status", "json",
                                          "--status-hz", "\(statusHz)", "--loop", "0-end", "--no-session"] + extra,
                           environment: environment, in: scratch.path)
    try #require(player.waitForOutput { $0.contains("\"state\":\"playing\"") }, "\(player.stderr)")
    return player
}

private func oscPort() -> Int { Int.random(in: 30_000...39_000) }

extension JackSuites {
    @Suite("OSC: who may steer, and what one packet can cost")
    struct OSCSecurityTests {
        @Test("--osc PORT is bound to 127.0.0.1 and ::1 and nothing else (the kernel's socket table), and answers on both; --osc 0.0.0.0:PORT is bound to every interface and says so")
        func loopbackByDefault() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let port = oscPort()
            let player = try startPlayer(server, scratch, ["--osc", "\(port)"])
            #expect(udpSockets(of: player.process.processIdentifier) == ["127.0.0.1:\(port)", "[::1]:\(port)"])
            let start = try #require(events(player.stdout, "start").first)
            #expect(start["osc_port"] as? Int == port)
            #expect(start["osc_listen"] as? [String] == ["127.0.0.1:\(port)", "[::1]:\(port)"])
            #expect(start["osc_allow"] as? [String] == ["127.0.0.0/8", "::1"])
            #expect(!player.stderr.contains("open to the network"), "\(player.stderr)")
            // Both answer: IPv6's loopback and IPv4's.
            try OSCTestClient(bindTo: "::1").send(to: port, path: "/repeater/volume", types: "f", arguments: [.float(-6)])
            #expect(player.waitForOutput { abs((lastStatus($0)["volume_db"] as? Double ?? 0) + 6) < 0.01 }, "::1 did not steer")
            try OSCTestClient().send(to: port, path: "/repeater/volume", types: "f", arguments: [.float(-3)])
            #expect(player.waitForOutput { abs((lastStatus($0)["volume_db"] as? Double ?? 0) + 3) < 0.01 }, "127.0.0.1 did not steer")
            player.send("quit")
            #expect(player.finish(timeout: 10).status == 0)

            let open = try startPlayer(server, scratch, ["--osc", "0.0.0.0:\(port)"])
            #expect(udpSockets(of: open.process.processIdentifier) == ["0.0.0.0:\(port)"])
            #expect(events(open.stdout, "start").first?["osc_listen"] as? [String] == ["0.0.0.0:\(port)"])
            #expect(open.stderr.contains("OSC is open to the network on 0.0.0.0:\(port): anyone who can send from 127.0.0.0/8, ::1, "), "\(open.stderr)")
            open.send("quit")
            #expect(open.finish(timeout: 10).status == 0)
        }

        @Test("--osc 0.0.0.0:PORT --osc-allow 127.0.0.2: a sender bound to 127.0.0.1 is refused (counted in osc_refused, never answered, no effect), one bound to 127.0.0.2 is taken")
        func allowList() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let port = oscPort()
            let player = try startPlayer(server, scratch, ["--osc", "0.0.0.0:\(port)", "--osc-allow", "127.0.0.2"])
            let start = try #require(events(player.stdout, "start").first)
            #expect(start["osc_listen"] as? [String] == ["0.0.0.0:\(port)"] && start["osc_allow"] as? [String] == ["127.0.0.2"], "\(start)")
            let stranger = try OSCTestClient(bindTo: "127.0.0.1")
            let friend = try OSCTestClient(bindTo: "127.0.0.2")
            for client in [stranger, friend] {
                client.send(to: port, path: "/repeater/volume", types: "f", arguments: [.float(client === friend ? -6 : -12)])
                client.send(to: port, path: "/repeater/jump", types: "", arguments: [])  // answered with an error, if taken
                client.send(to: port, path: "/repeater/subscribe", types: "", arguments: [])
                if client === stranger {
                    #expect(player.waitForOutput { lastStatus($0)["osc_refused"] as? Int == 3 }, "\(lastStatus(player.stdout))")
                }
            }
            #expect(player.waitForOutput { abs((lastStatus($0)["volume_db"] as? Double ?? 0) + 6) < 0.01 }, "the allowed sender did not steer")
            let toFriend = friend.count(for: 1, keep: 100)
            let toStranger = stranger.count(for: 0.2)
            #expect(toStranger.packets == 0, "the refused sender was answered")
            #expect(toFriend.kept.contains { $0.starts(with: Array("/repeater/error\0".utf8)) }, "no error reply to the allowed sender")
            #expect(toFriend.kept.contains { $0.starts(with: Array("#bundle\0".utf8)) }, "no status to the allowed subscriber")
            player.send("quit")
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let status = lastStatus(outcome.stdout)
            #expect(status["osc_refused"] as? Int == 3 && status["osc_errors"] as? Int == 1, "\(status)")
            let volumes = jsonLines(outcome.stdout).compactMap { $0["volume_db"] as? Double }
            #expect(!volumes.contains { abs($0 + 12) < 0.01 }, "the refused sender's volume was applied")
            let subscribers = events(outcome.stdout, "osc-subscriber")
            #expect(subscribers.count == 1 && subscribers.first?["host"] as? String == "127.0.0.2", "\(subscribers)")
            #expect(events(outcome.stdout, "error").count == 1)
        }

        @Test("at most 8 subscribers: the ninth replaces the oldest (the JSON names it), which then gets nothing while the others go on; `subscribe i PORT` sends to PORT on the sender's own host")
        func ninthSubscriber() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let port = oscPort()
            let player = try startPlayer(server, scratch, statusHz: 20, ["--osc", "\(port)"])
            let clients = try (0..<9).map { _ in try OSCTestClient() }
            for (index, client) in clients.enumerated() {
                client.send(to: port, path: "/repeater/subscribe", types: "", arguments: [])
                #expect(player.waitForOutput { events($0, "osc-subscriber").count == index + 1 })  // one by one: the order is known
            }
            let added = events(player.stdout, "osc-subscriber")
            #expect(added.dropLast().allSatisfy { $0["replaced"] == nil && $0["state"] as? String == "added" })
            let ninth = try #require(added.last)
            #expect(ninth["port"] as? Int == clients[8].port && ninth["host"] as? String == "127.0.0.1")
            #expect(ninth["replaced"] as? String == "127.0.0.1:\(clients[0].port)" && ninth["subscribers"] as? Int == 8, "\(ninth)")
            usleep(200_000)
            _ = OSCTestClient.count(clients, for: 0.2)  // what waited
            let received = OSCTestClient.count(clients, for: 1)
            print("packets in 1 s at 20 Hz, subscribers 1…9: \(received)")
            #expect(received[0] == 0, "the replaced subscriber still gets status")
            #expect(received.dropFirst().allSatisfy { (10...22).contains($0) }, "\(received)")
            // A subscriber on 127.0.0.1 asks for a port that a socket on 127.0.0.2 holds: the status goes
            // to that port on 127.0.0.1, the asker's own host, never to another host.
            let elsewhere = try OSCTestClient(bindTo: "127.0.0.2")
            let asker = try OSCTestClient()
            asker.send(to: port, path: "/repeater/subscribe", types: "i", arguments: [.int(Int32(elsewhere.port))])
            #expect(player.waitForOutput { events($0, "osc-subscriber").count == 10 })
            let redirected = try #require(events(player.stdout, "osc-subscriber").last)
            #expect(redirected["host"] as? String == "127.0.0.1" && redirected["port"] as? Int == elsewhere.port, "\(redirected)")
            #expect(redirected["replaced"] as? String == "127.0.0.1:\(clients[1].port)")
            #expect(elsewhere.count(for: 1).packets == 0, "status went to another host")
            player.send("quit")
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0)
            #expect(lastStatus(outcome.stdout)["osc_subscribers"] as? Int == 8)
        }

        @Test("one subscribe packet (forgeable) costs at most the status rate in packets a second for 60 s and then nothing, whatever forces extra status; 200 bad messages get at most 20 answers a second")
        func packetsOutPerPacketIn() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            let port = oscPort()
            let player = try startPlayer(server, scratch, statusHz: 10, ["--osc", "\(port)"])
            let target = try OSCTestClient()  // the address a forged subscribe would name
            let subscribed = Date()
            target.send(to: port, path: "/repeater/subscribe", types: "", arguments: [])
            nonisolated(unsafe) var counted: (packets: Int, bytes: Int, kept: [[UInt8]]) = (0, 0, [])
            let counting = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                counted = target.count(for: 66, keep: 1)
                counting.signal()
            }
            // `status` forces a status line each time: it must not force packets.
            for _ in 0..<40 {
                player.send("status")
                usleep(100_000)
            }
            // 200 bad messages at once from an allowed sender: the replies (and error events) are rate-limited.
            let noisy = try OSCTestClient()
            for index in 0..<200 { noisy.send(to: port, path: "/repeater/jump\(index % 10)", types: "", arguments: []) }
            let replies = noisy.count(for: 2)
            #expect(player.waitForOutput { lastStatus($0)["osc_errors"] as? Int == 200 }, "\(lastStatus(player.stdout))")
            counting.wait()
            let seconds = Date().timeIntervalSince(subscribed)
            let after = target.count(for: 1).packets
            player.send("quit")
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0)
            let expired = events(outcome.stdout, "osc-subscriber").filter { $0["state"] as? String == "expired" }
            #expect(expired.count == 1 && expired.first?["port"] as? Int == target.port, "\(events(outcome.stdout, "osc-subscriber"))")
            print("one subscribe packet: \(counted.packets) packets, \(counted.bytes) bytes out in \(String(format: "%.1f", seconds)) s (then \(after) in 1 s); one bundle \(counted.kept.first?.count ?? 0) bytes")
            print("200 bad messages (\(200 * 20) bytes in): \(replies.packets) replies, \(replies.bytes) bytes out; error events \(events(outcome.stdout, "error").count)")
            #expect(counted.packets <= 602 && counted.packets >= 540, "\(counted.packets) packets for one subscribe at 10 Hz")
            #expect(after == 0)
            #expect(replies.packets >= 1 && replies.packets <= 21 + 2 * 20, "\(replies.packets) replies")
            #expect(replies.bytes <= replies.packets * (128 + 24), "replies of \(replies.bytes / max(1, replies.packets)) bytes")  // text ≤ 128 bytes
            #expect(events(outcome.stdout, "error").count <= 21 + 2 * 20)
        }

        @Test("a flood of 10 000 packets a second for 5 s (refused, malformed and valid) leaves the player playing, causes no xrun (its process callback far from the period in 99.9 % of cycles, no late render on a real-time server), and each stdin command is answered within 100 ms")
        func flood() throws {
            // A real-time server (jackd -R): the player's process callback and its render-ahead helper
            // are SCHED_FIFO. An xrun the player causes is a callback that overran its period or a
            // render the callback found late: both are measured (REPEATER_CALLBACK_STATS). The
            // server's own xrun count is printed beside them: on a 2-vCPU VM the dummy driver's timer
            // is itself late now and then (1 run in 7 here), with every client well inside its period.
            let server = try TestServer(realtime: true)
            let scratch = ScratchDirectory()
            let port = oscPort()
            let statsPath = scratch.file("callback.json")
            let player = try startPlayer(server, scratch, ["--osc", "\(port)", "--osc-allow", "127.0.0.2"],
                                         environment: ["REPEATER_CALLBACK_STATS": statsPath])
            let pid = player.process.processIdentifier
            usleep(1_000_000)
            let before = lastStatus(player.stdout)
            let cpuBefore = threadCPUSeconds(pid: pid, name: "repeater-osc")
            let refused = try OSCTestClient(bindTo: "127.0.0.3")
            let allowed = try OSCTestClient(bindTo: "127.0.0.2")
            let valid = OSCTestClient.message(path: "/repeater/volume", types: "f", arguments: [.float(0)])  // harmless: 0 dB
            let malformed = OSCTestClient.padded("/repeater/volume") + OSCTestClient.padded(",f")  // a type without its value
            nonisolated(unsafe) var sent = 0, failed = 0
            nonisolated(unsafe) var sendingSeconds = 0.0
            let sending = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let start = Date()
                while true {
                    let elapsed = Date().timeIntervalSince(start)
                    guard elapsed < 5 else { break }
                    while sent < Int(elapsed * 10_000) {
                        let ok: Bool
                        switch sent % 3 {
                        case 0: ok = refused.sendRaw(to: port, valid)
                        case 1: ok = allowed.sendRaw(to: port, malformed)
                        default: ok = allowed.sendRaw(to: port, valid)
                        }
                        if !ok { failed += 1 }
                        sent += 1
                    }
                    usleep(500)
                }
                sendingSeconds = Date().timeIntervalSince(start)
                sending.signal()
            }
            // The control thread's answer to stdin during the flood: the time from writing a line to its event.
            let watcher = try LineWatcher(path: player.stdoutPath, needle: "\"event\":\"transport-mode\"")
            var latencies: [Double] = []
            let floodEnd = Date().addingTimeInterval(4.8)
            usleep(200_000)
            while Date() < floodEnd {
                let expected = watcher.count + 1
                let written = Date()
                player.send("transport off")
                while watcher.update() < expected, Date().timeIntervalSince(written) < 2 { usleep(500) }
                latencies.append(Date().timeIntervalSince(written))
                usleep(150_000)
            }
            sending.wait()
            let cpuAfter = threadCPUSeconds(pid: pid, name: "repeater-osc")
            usleep(1_200_000)
            let after = lastStatus(player.stdout)
            let statesDuring = statusLines(player.stdout).compactMap { $0["state"] as? String }
            player.send("quit")
            let outcome = player.finish(timeout: 10)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let rate = Double(sent) / sendingSeconds
            var cpu: Double?
            if let cpuBefore, let cpuAfter { cpu = (cpuAfter - cpuBefore) / sendingSeconds }
            print("flood: \(sent) packets in \(String(format: "%.2f", sendingSeconds)) s (\(Int(rate)) a second, \(failed) not taken by the kernel); the player counted refused \(after["osc_refused"] ?? "?"), errors \(after["osc_errors"] ?? "?"), dropped \(after["osc_dropped"] ?? "?")")
            print("flood: stdin answered in \(latencies.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", ")) ms (worst \(String(format: "%.1f", (latencies.max() ?? 0) * 1000)) ms); OSC thread CPU \(cpu.map { String(format: "%.0f %%", $0 * 100) } ?? "?")")
            print("flood: xruns \(before["xruns"] ?? "?") → \(after["xruns"] ?? "?"), missed cycles \(before["missed_cycles"] ?? "?") → \(after["missed_cycles"] ?? "?"), underruns \(after["underruns"] ?? "?")")
            #expect(rate >= 9_000, "the flood reached \(Int(rate)) packets a second")
            #expect(latencies.count >= 10 && (latencies.max() ?? 1) < 0.1, "\(latencies)")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any])
            let worst = stats["worst"] as? Double ?? 1, renderWorst = stats["render_worst"] as? Double ?? 0
            print("flood: the process callback's p99.9 cycle \(String(format: "%.1f", (stats["p999"] as? Double ?? 1) * 100)) % and worst \(String(format: "%.1f", worst * 100)) % of the period, the render helper's \(String(format: "%.1f", renderWorst * 100)) %, late renders \(stats["late"] ?? "?")")
            // The flood's cost shows in every cycle, so the bound is on the p99.9 cycle (of ~1 500): a
            // single cycle the virtual machine (or the kernel's softirq work for a packet) paused once
            // is printed above, as the worst, not judged. (Here the p99.9 is 2–6 % and the worst
            // usually the same; one run of the whole suite had a cycle at 104 %, and an xrun.)
            let p999 = stats["p999"] as? Double ?? 1
            #expect(p999 < 0.5 && stats["late"] as? Int ?? 0 == 0, "the player's own time: \(stats)")
            #expect(after["underruns"] as? Int == 0)
            #expect(after["state"] as? String == "playing" && statesDuring.allSatisfy { $0 == "playing" })
            #expect((after["osc_refused"] as? Int ?? 0) > 10_000 && (after["osc_errors"] as? Int ?? 0) > 10_000, "\(after)")
            #expect(abs((after["volume_db"] as? Double ?? -1)) < 0.01)
        }
    }
}
