import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
@testable import RepeaterWeb
import Testing

/// Where commands from a page end up in these tests (the dispatcher's place).
private final class RecordingSink: CommandSink {
    var commands: [Command] = []
    var rejections: [String] = []

    func submit(_ command: Command) -> Bool {
        commands.append(command)
        return false
    }

    func reject(_ message: String, source: CommandSource, reply: (any ReplyChannel)?) { rejections.append(message) }
}

/// A page on real sockets, on a free port, serving a 2 s file: silence, then a full-scale square wave.
private final class TestPage {
    let page: PracticePage
    let port: Int
    let scratch = ScratchDirectory()
    let sink = RecordingSink()
    let output = Output()

    init(host: String? = nil, allow: AllowList? = nil, token: String? = nil, idleSeconds: Int32 = WebServer.standardIdleSeconds) throws {
        (page, port) = try Self.bind(host: host, allow: allow, token: token, idleSeconds: idleSeconds)
        let path = scratch.file("page.wav")
        let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 1)
        let samples = (0..<96_000).map { frame -> Float in frame < 48_000 ? 0 : (frame / 50 % 2 == 0 ? 1 : -1) }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
        writer.close()
        page.start(file: try AudioFile(path: path).info)
    }

    /// A page on a free port (a few tries: another program may hold the one drawn).
    private static func bind(host: String?, allow: AllowList?, token: String?, idleSeconds: Int32) throws -> (PracticePage, Int) {
        var lastError: RepeaterError?
        for _ in 0..<10 {
            let port = Int.random(in: 40_000...59_000)
            do {
                return (try PracticePage(listen: ListenAddress(host: host.map { .named($0) } ?? .loopback, port: port), allow: allow,
                                         token: token, idleSeconds: idleSeconds), port)
            } catch {
                lastError = error
            }
        }
        throw lastError!
    }

    deinit { page.stop() }

    var host: String { "127.0.0.1:\(port)" }
    var origin: String { "http://127.0.0.1:\(port)" }

    func client(source: String? = nil, receiveBuffer: Int32? = nil) throws -> RawWebClient {
        try RawWebClient(port: port, source: source, receiveBuffer: receiveBuffer)
    }

    func get(_ target: String, headers: [String]? = nil) throws -> RawWebClient.Response? {
        let client = try client()
        client.request("GET", target, headers: headers ?? ["Host: \(host)"])
        return client.response()
    }

    /// A WebSocket opened as the page opens it.
    func socket(cookie: String? = nil, receiveBuffer: Int32? = nil) throws -> RawWebClient {
        let client = try client(receiveBuffer: receiveBuffer)
        let response = client.upgrade(host: host, origin: origin, cookie: cookie)
        try #require(response?.status == 101, "\(response?.status ?? 0) \(response?.text ?? "closed")")
        return client
    }

    /// Polls the page as the control loop does (woken by its pipe) until `done` holds or `timeout` s pass.
    func pollUntil(timeout: Double = 5, _ done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(), Date() < deadline {
            var fd = pollfd(fd: page.wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&fd, 1, 50)
            _ = page.poll(into: sink, output: output)
        }
        return done()
    }
}

@Suite("The practice page's server on real sockets (no JACK)")
struct PageServerTests {
    @Test("on the loopback: the page with its security headers and never Access-Control-Allow-Origin; 421 for another Host (DNS rebinding); 404, 405; no disk file")
    func plainRequests() throws {
        let test = try TestPage()
        #expect(test.page.isLoopbackOnly && test.page.url == "http://127.0.0.1:\(test.port)/" && test.page.status.qrRows.isEmpty)
        let page = try #require(try test.get("/"))
        #expect(page.status == 200 && page.header("content-type") == "text/html; charset=utf-8" && page.text.contains("<canvas id=\"zoom\""))
        #expect(page.header("content-security-policy")?.contains("default-src 'none'") == true)
        #expect(page.header("x-frame-options") == "DENY" && page.header("x-content-type-options") == "nosniff")
        #expect(page.header("access-control-allow-origin") == nil)
        for asset in ["/page.js", "/page.css", "/icon.svg"] { #expect(try test.get(asset)?.status == 200, "\(asset)") }
        // Over IPv6's loopback too.
        let v6 = try RawWebClient(host: "::1", port: test.port)
        v6.request("GET", "/", headers: ["Host: [::1]:\(test.port)"])
        #expect(v6.response()?.status == 200)

        for host in ["Host: evil.example:\(test.port)", "Host: localhost:\(test.port + 1)"] {
            let refused = try #require(try test.get("/", headers: [host]))
            #expect(refused.status == 421 && refused.text.contains("port \(test.port)"), "\(refused.text)")
            #expect(refused.header("access-control-allow-origin") == nil)
        }
        #expect(try test.get("/", headers: [])?.status == 421, "no Host")
        #expect(try test.get("/etc/passwd")?.status == 404)
        #expect(try test.get("/../../../../etc/passwd")?.status == 404)
        #expect(try test.get("/page.js/../../Package.swift")?.status == 404)
        let post = try test.client()
        post.request("POST", "/", headers: ["Host: \(test.host)", "Origin: \(test.origin)", "Content-Length: 0"])
        #expect(post.response()?.status == 405)
        let crossSite = try test.client()
        crossSite.request("POST", "/", headers: ["Host: \(test.host)", "Origin: http://evil.example", "Content-Length: 0"])
        #expect(crossSite.response()?.status == 403)
        #expect(test.page.status.refused == 4)
    }

    @Test("the WebSocket: 101 at /ws with the page's own Origin; 403 without it, from another site, elsewhere, or for h2c; a ninth page 503")
    func upgrades() throws {
        let test = try TestPage()
        var refused = 0
        for (origin, path) in [(nil, "/ws"), ("http://evil.example", "/ws"), ("http://localhost:\(test.port)", "/ws"), (test.origin, "/other")] as [(String?, String)] {
            let response = try test.client().upgrade(host: test.host, origin: origin, path: path)
            #expect(response?.status == 403, "\(origin ?? "no origin") \(path): \(response?.status ?? 0)")
            refused += 1
        }
        let h2c = try test.client()
        h2c.request("GET", "/", headers: ["Host: \(test.host)", "Origin: \(test.origin)", "Upgrade: h2c", "Connection: Upgrade, HTTP2-Settings", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"])
        #expect(h2c.response()?.status == 403)
        let foreignHost = try test.client().upgrade(host: "evil.example:\(test.port)", origin: "http://evil.example:\(test.port)")
        #expect(foreignHost?.status == 421)
        let pages = try (0..<8).map { _ in try test.socket() }
        #expect(test.pollUntil { test.page.status.clients == 8 })
        let ninth = try test.client().upgrade(host: test.host, origin: test.origin)
        #expect(ninth?.status == 503 && ninth?.text.contains("at most 8") == true)
        // One closes: there is room again.
        _ = pages[0].write(RawWebClient.frame([0x03, 0xE8], opcode: 8))
        #expect(test.pollUntil { test.page.status.clients == 7 })
        _ = try test.socket()
        #expect(test.page.status.refused == refused + 3, "\(test.page.status)")
    }

    @Test("open to a network: 403 without the token, 303 to / with an HttpOnly SameSite=Strict cookie for it, then the page and its WebSocket with the cookie")
    func token() throws {
        let token = PageAccess.newToken()
        let test = try TestPage(host: "0.0.0.0", token: token)
        #expect(!test.page.isLoopbackOnly && test.page.url.hasSuffix(":\(test.port)/?token=\(token)") && !test.page.status.qrRows.isEmpty)
        #expect(try test.get("/")?.status == 403)
        #expect(try test.get("/?token=\(PageAccess.newToken())")?.status == 403)
        #expect(try test.get("/peaks")?.status == 403)
        #expect(try test.client().upgrade(host: test.host, origin: test.origin)?.status == 403)
        let swap = try #require(try test.get("/?token=\(token)"))
        #expect(swap.status == 303 && swap.header("location") == "/")
        let cookie = try #require(swap.header("set-cookie"))
        #expect(cookie == "repeater_page_\(test.port)=\(token); HttpOnly; SameSite=Strict; Path=/")
        let pair = String(cookie.prefix { $0 != ";" })
        #expect(try test.get("/", headers: ["Host: \(test.host)", "Cookie: \(pair)"])?.status == 200)
        _ = try test.socket(cookie: pair)
        // The cookie does not make another Host this computer's.
        #expect(try test.get("/", headers: ["Host: evil.example:\(test.port)", "Cookie: \(pair)"])?.status == 421)
    }

    @Test("--web-allow: a host outside the list is closed before a byte is read, and counted")
    func allowList() throws {
        let test = try TestPage(host: "0.0.0.0", allow: try AllowList(parsing: "127.0.0.2"), token: "t")
        let stranger = try test.client(source: "127.0.0.1")
        stranger.request("GET", "/?token=t", headers: ["Host: \(test.host)"])
        #expect(stranger.read().isEmpty, "the refused host got an answer")
        let friend = try test.client(source: "127.0.0.2")
        friend.request("GET", "/?token=t", headers: ["Host: \(test.host)"])
        #expect(friend.response()?.status == 303)
        #expect(test.page.status.refused == 1)
    }

    @Test("messages: keys and stdin lines reach the dispatcher in order as the page's (source web); a malformed one is an error; longer than 4096 bytes closes with 1009, binary with 1003")
    func messages() throws {
        let test = try TestPage()
        let socket = try test.socket()
        for text in [#"{"key":"]"}"#, #"{"command":"b 48000f"}"#, #"{"ping":1}"#, #"{"key":"nope"}"#, #"{"command":"line 2"}"#] {
            #expect(socket.sendText(text))
        }
        #expect(test.pollUntil { test.sink.commands.count == 3 && test.sink.rejections.count == 1 })
        #expect(test.sink.commands.map(\.action) == [.rateBy(0.05), .setB(.frames(48_000)), try ControlCommand(line: "line 2")])
        #expect(test.sink.commands.allSatisfy { $0.source == .web })
        #expect(test.sink.rejections.first?.contains("'nope' is not a key") == true)
        #expect(test.page.status.errors == 1)
        // A fragmented message is put together; one over the limit closes the connection.
        #expect(socket.write(RawWebClient.frame(Array(#"{"command":"#.utf8), final: false) + RawWebClient.frame(Array(#""play"}"#.utf8), opcode: 0)))
        #expect(test.pollUntil { test.sink.commands.count == 4 })
        #expect(test.sink.commands.last?.action == .play)
        #expect(socket.write(RawWebClient.frame([UInt8](repeating: 0x20, count: 4097))))
        var close = socket.nextFrame()
        while let frame = close, frame.opcode != 8 { close = socket.nextFrame() }
        #expect(close.map { Int($0.payload[0]) << 8 | Int($0.payload[1]) } == 1009)
        let binary = try test.socket()
        #expect(binary.write(RawWebClient.frame([1, 2, 3], opcode: 2)))
        close = binary.nextFrame()
        while let frame = close, frame.opcode != 8 { close = binary.nextFrame() }
        #expect(close.map { Int($0.payload[0]) << 8 | Int($0.payload[1]) } == 1003)
        #expect(test.pollUntil { test.page.status.errors == 3 })
    }

    @Test("a page that stops reading: its status lines are coalesced and counted, its events dropped beyond 64 (the oldest first), and publishing never waits")
    func stalledPage() throws {
        let test = try TestPage()
        let stalled = try test.socket(receiveBuffer: 4096)
        let reading = try test.socket()
        _ = stalled
        #expect(test.pollUntil { test.page.status.clients == 2 })
        var slowest = 0.0
        func timed(_ publish: () -> Void) {
            let start = Date()
            publish()
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        // First a status line of 8 MB: more than the kernel's send buffer can ever hold (4 MB at
        // most, net.ipv4.tcp_wmem) and the stalled page's 4 kB receive buffer together, so the
        // stalled page's socket is full from then on whatever the pace. (Events first would not
        // do: they are small, and the server sends a page's events before its status, so as many
        // would get through as the machine's pace allowed.) Then 400 status lines of 60 kB.
        let huge = Array("{\"state\":\"playing\",\"frame\":-1,\"x\":\"\(String(repeating: "x", count: 8 << 20))\"}".utf8)
        timed { test.page.server.publish(status: huge) }
        func waiting() -> [(events: Int, status: Bool)] {
            test.page.server.mail.withLock { $0.boxes.values.map { ($0.events.count, $0.status != nil) } }
        }
        // (Taken for both pages before anything replaces it.)
        try #require(test.pollUntil { waiting().allSatisfy { !$0.status } }, "\(waiting())")
        let filler = String(repeating: "x", count: 60_000)
        for index in 0..<400 {
            let line = Array("{\"state\":\"playing\",\"frame\":\(index),\"x\":\"\(filler)\"}".utf8)
            timed { test.page.server.publish(status: line) }
        }
        // The reading page gets the newest status in the end; the stalled one's waits, unsent.
        #expect(reading.nextText { $0.contains("\"frame\":399") } != nil)
        try #require(test.pollUntil { waiting().filter(\.status).count == 1 }, "\(waiting())")
        // The stalled page's box was never emptied again: each line after the first replaced one.
        let coalesced = test.page.status.coalesced
        #expect(coalesced >= 399, "\(test.page.status)")
        // 400 events: the stalled page keeps the newest 64 and drops the other 336, whatever the
        // pace; the reading page may drop some too if the server's thread falls behind the loop.
        let droppedBefore = test.page.status.dropped
        for index in 0..<400 {
            let event = Array("{\"event\":\"test\",\"index\":\(index)}".utf8)
            timed { test.page.server.publish(event: event) }
        }
        #expect(reading.nextText { $0.contains("\"index\":399") } != nil)
        let dropped = test.page.status.dropped - droppedBefore
        print("400 status lines and 400 events to a page that reads none: coalesced \(coalesced), dropped \(dropped); the slowest publish took \(String(format: "%.2f", slowest * 1000)) ms")
        #expect((400 - WebServer.maximumQueuedEvents)...(2 * (400 - WebServer.maximumQueuedEvents)) ~= dropped, "\(test.page.status)")
        // What waits for the stalled page is bounded: one status, the newest 64 events.
        #expect(waiting().allSatisfy { $0.events <= WebServer.maximumQueuedEvents }, "\(waiting())")
        let kept = test.page.server.mail.withLock { mail in
            mail.boxes.values.first { $0.status != nil }?.events.map { String(decoding: $0, as: UTF8.self) } ?? []
        }
        #expect(kept == (336..<400).map { "{\"event\":\"test\",\"index\":\($0)}" })
    }

    @Test("the peaks: 503 while the file is read, then each bucket's lowest and highest sample (silence 0, the square wave ±127); a new page gets the document and the last status first")
    func peaksAndDocument() throws {
        let test = try TestPage()
        var peaks: RawWebClient.Response?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            peaks = try test.get("/peaks")
            if peaks?.status == 200 { break }
            #expect(peaks?.status == 503)
            usleep(20_000)
        }
        let body = try #require(peaks?.body)
        #expect(Array(body.prefix(4)) == Array("RPK1".utf8))
        let count = Int(body[4]) | Int(body[5]) << 8 | Int(body[6]) << 16 | Int(body[7]) << 24
        #expect(count == 96_000 / 64 && body.count == 8 + 2 * count)
        let values = body.dropFirst(8).map { Int8(bitPattern: $0) }
        #expect(values.prefix(count).allSatisfy { $0 == 0 }, "the silent first half")
        #expect(stride(from: count, to: 2 * count, by: 2).allSatisfy { values[$0] == -127 && values[$0 + 1] == 127 }, "the square wave")

        var document = PracticeDocument()
        document.beatFrames = [0, 24_000, 48_000, 72_000]
        document.downbeatFrames = [0, 48_000]
        document.lines = [MapLine(startFrame: 0, endFrame: 40_000, text: "un \"deux\""), MapLine(startFrame: 50_000, endFrame: 90_000, text: "trois")]
        document.loops = [NamedLoop(name: "verse", start: 1000, end: 2000)]
        test.page.update(document)
        var snapshot = StatusSnapshot()
        snapshot.frame = 4242
        test.page.sink.status(snapshot, force: true)
        let socket = try test.socket()
        let documentText = try #require(socket.nextText { $0.hasPrefix("{\"document\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(documentText.utf8)) as? [String: Any])
        let fields = try #require(object["document"] as? [String: Any])
        #expect(fields["file"] as? String == "page.wav" && fields["frames"] as? Int == 96_000 && fields["sample_rate"] as? Int == 48_000)
        #expect(fields["beats"] as? [Int] == [0, 24_000, 48_000, 72_000] && fields["downbeats"] as? [Int] == [0, 48_000])
        #expect((fields["lines"] as? [[Any]])?.first?[2] as? String == "un \"deux\"")
        #expect((fields["loops"] as? [[String: Any]])?.first?["name"] as? String == "verse")
        #expect((fields["peaks"] as? [String: Any])?["ready"] as? Bool == true)
        let status = try #require(socket.nextText { $0.contains("\"state\"") })
        #expect(status.contains("\"frame\":4242") && status.contains("\"mono_ms\""))
    }

    @Test("a page that sends nothing, not even its heartbeat, is closed after the idle time (here 2 s); one that sends its heartbeat stays")
    func idle() throws {
        let test = try TestPage(idleSeconds: 2)
        let silent = try test.socket()
        let beating = try test.socket()
        #expect(test.pollUntil { test.page.status.clients == 2 })
        let start = Date()
        var closedAfter: Double?
        while Date().timeIntervalSince(start) < 4 {
            #expect(beating.sendText(#"{"ping":1}"#))
            _ = test.pollUntil(timeout: 0.5) { test.page.status.clients < 2 }
            if closedAfter == nil, test.page.status.clients == 1 { closedAfter = Date().timeIntervalSince(start) }
        }
        print("the silent page was closed after \(closedAfter.map { String(format: "%.2f", $0) } ?? "—") s")
        #expect(closedAfter.map { $0 >= 1.5 && $0 < 4 } == true)
        #expect(silent.nextText { _ in false } == nil, "the silent page's connection is still open")
        #expect(beating.sendText(#"{"key":"]"}"#))
        #expect(test.pollUntil { test.sink.commands.count == 1 }, "the beating page was closed too")
    }
}
