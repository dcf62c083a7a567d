import Foundation
import RepeaterEngine
import RepeaterKit
import Synchronization

/// `play --web [HOST:]PORT`: the practice page, served by the player itself (docs/manual.md: *The
/// practice page*). One more source and one more sink of the dispatcher:
///
/// - the web thread (`WebServer`) checks every connection and request (`--web-allow`,
///   `PageAccess`), serves the page and the peaks from memory, and turns each WebSocket message into
///   a command (`PageMessage`) in a bounded inbox; it wakes the control thread through a pipe;
/// - the control thread drains the inbox into the dispatcher (`poll`) and feeds every page the
///   status, events and document (`PageFeed`), never waiting on one.
public final class PracticePage: ControlSurface, WebHandler, @unchecked Sendable {
    public let listen: ListenAddress
    public let url: String
    /// The networks whose connections are taken (the allow list, resolved once at the start).
    public let allowed: [IPNetwork]
    public let access: PageAccess
    /// Items waiting for the control thread, at most this many.
    public static let inboxCapacity = 256
    /// Refusals turned into error events, at most this many a second (beyond: counted only).
    static let rejectionsPerSecond = 20.0

    private let sockets: [BoundSocket]
    private let bindNotes: [String]
    private let qrRows: [String]
    let server: WebServer
    private var feed: PageFeed!
    private var overview: WaveformOverview?
    private var file: AudioFileInfo?
    private let inbox: WakingInbox<Item>
    // The web thread's own.
    private var peakBytes: [UInt8]?
    private var rejections = RateLimit(perSecond: PracticePage.rejectionsPerSecond)

    private let refusedRequests = Atomic<Int>(0)
    private let malformed = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    private enum Item: Sendable {
        case command(ControlCommand)
        case reject(String)
        case client(Int, opened: Bool)
    }

    /// The page `options` ask for (none without `--web`), bound now: a port in use fails before JACK.
    public static func surfaces(for options: PlayOptions) throws(RepeaterError) -> [any ControlSurface] {
        guard let listen = options.web else {
            if options.webAllow != nil { throw .input("--web-allow needs --web [HOST:]PORT") }
            return []
        }
        return [try PracticePage(listen: listen, allow: options.webAllow)]
    }

    /// Binds the sockets `listen` names; `allow` nil is the default (`loopback,lan`). Beyond the
    /// loopback, the page needs a token (a new one each run; the tests give their own, and a
    /// shorter `idleSeconds`).
    public init(listen: ListenAddress, allow: AllowList? = nil, token fixedToken: String? = nil,
                idleSeconds: Int32 = 15) throws(RepeaterError) {
        self.listen = listen
        (sockets, bindNotes) = try BoundSocket.open(listen, kind: .stream, service: "the practice page", option: "--web")
        let loopbackOnly = sockets.allSatisfy { $0.address.isLoopback }
        allowed = (allow ?? .standard).networks(lan: BoundSocket.networks(servedBy: sockets))
        var given: String?
        if case .named(let name) = listen.host { given = name }
        let token = loopbackOnly ? nil : (fixedToken ?? PageAccess.newToken())
        access = PageAccess(port: listen.port, hostNames: PageAccess.hostNames(sockets: sockets, given: given), token: token)
        url = Self.address(listen, sockets: sockets) + (token.map { "?token=\($0)" } ?? "")
        qrRows = loopbackOnly ? [] : QRCode.rows(url)
        server = try WebServer(sockets: sockets, idleSeconds: idleSeconds)
        inbox = try WakingInbox(capacity: Self.inboxCapacity, for: "practice page's")
        server.handler = self
        feed = PageFeed(server: server) { [unowned self] in
            let buckets = overview?.bucketCount ?? 0
            return (file, PageFeed.PeakState(ready: overview.map { $0.doneCount == buckets } ?? false, buckets: buckets))
        }
    }

    deinit { stop() }

    /// Only this computer can reach it.
    public var isLoopbackOnly: Bool { sockets.allSatisfy { $0.address.isLoopback } }

    // MARK: ControlSurface (the control thread)

    public var wakeFD: Int32 { inbox.wakeFD }
    public var sink: any OutputSink { feed }

    public func describe(into line: inout JSONLine) {
        line.add("web", url)
        line.addRaw("web_listen", "[" + sockets.map { JSONLine.quote($0.endpoint) }.joined(separator: ",") + "]")
        line.addRaw("web_allow", "[" + allowed.map { JSONLine.quote($0.description) }.joined(separator: ",") + "]")
    }

    public var startNotes: [String] {
        var notes = bindNotes
        if isLoopbackOnly {
            notes.append("practice page: \(url) (this computer only)")
        } else {
            notes.append("practice page: \(url) (? on the screen shows its QR code for a phone)")
            notes.append("the practice page is open to the network on \(sockets.map(\.endpoint).joined(separator: ", ")): anyone who can connect from \(allowed.map(\.description).joined(separator: ", ")) and has its address with the token can steer this player")
        }
        return notes
    }

    public func start(file: AudioFileInfo) {
        self.file = file
        var framesPerBucket = 64
        while file.frameCount / framesPerBucket > 1 << 19 { framesPerBucket *= 2 }
        let overview = WaveformOverview(bucketCount: max(1, (file.frameCount + framesPerBucket - 1) / framesPerBucket))
        overview.start(path: file.path)
        self.overview = overview
        server.start()
    }

    public func poll(into sink: any CommandSink, output: Output) -> SurfacePoll {
        let items = inbox.take()
        var handled = false
        for item in items {
            switch item {
            case .command(let action):
                handled = true
                if sink.submit(Command(action, source: .web)) { return .quit }
            case .reject(let message): sink.reject(message, source: .web, reply: nil)
            case .client(let id, let opened):
                let count = server.clientCount.load(ordering: .relaxed)
                output.event(PlayerEvent("web-client", source: .web, note: opened ? "a page opened (\(count) now)" : nil) {
                    $0.add("client", id)
                    $0.add("state", opened ? "opened" : "closed")
                    $0.add("clients", count)
                })
                handled = handled || opened
            }
        }
        return handled ? .commands : .nothing
    }

    public func update(_ document: PracticeDocument) { feed.update(document) }

    public var status: PageStatus {
        var status = PageStatus(url: url, listen: sockets.map(\.endpoint), loopbackOnly: isLoopbackOnly, qrRows: qrRows)
        status.clients = server.clientCount.load(ordering: .relaxed)
        status.refused = server.refusedConnections.load(ordering: .relaxed) + refusedRequests.load(ordering: .relaxed)
        status.errors = malformed.load(ordering: .relaxed)
        status.dropped = dropped.load(ordering: .relaxed) + server.droppedCount.load(ordering: .relaxed)
        status.coalesced = server.coalescedCount.load(ordering: .relaxed)
        return status
    }

    public func stop() {
        server.stop()
        overview?.cancel(waitingAtMost: 0.2)  // (as the screen's: a busy machine's lowest-priority thread is late)
    }

    // MARK: WebHandler (the web thread)

    func accepts(peer: IPAddress) -> Bool { allowed.contains { $0.contains(peer) } }

    func respond(to request: WebRequest) -> WebResponse {
        switch access.check(request) {
        case .refuse(let status, let reason, let message):
            refusedRequests.add(1, ordering: .relaxed)
            return .text(status, reason, message)
        case .swapToken(let location, let cookie):
            return WebResponse(status: 303, reason: "See Other", contentType: "text/plain; charset=utf-8",
                               headers: [("location", location), ("set-cookie", cookie)], body: [])
        case .allow: break
        }
        guard request.method == "GET" else { return .text(405, "Method Not Allowed", "the practice page takes GET only") }
        if request.path == "/peaks" { return peaks() }
        if let asset = PageAssets.asset(at: request.path) {
            return WebResponse(status: 200, reason: "OK", contentType: asset.type, body: asset.bytes)
        }
        return .text(404, "Not Found", "the practice page has no '\(request.path.prefix(80))'")
    }

    func refusesUpgrade(_ request: WebRequest) -> WebResponse? {
        if case .refuse(let status, let reason, let message) = access.check(request) {
            refusedRequests.add(1, ordering: .relaxed)
            return .text(status, reason, message)
        }
        guard request.path == "/ws", request.upgrade?.lowercased() == "websocket" else {
            refusedRequests.add(1, ordering: .relaxed)
            return .text(403, "Forbidden", "the practice page takes a WebSocket at /ws only")
        }
        return nil
    }

    func opened(client: Int) { post([.client(client, opened: true)]) }
    func closed(client: Int) { post([.client(client, opened: false)]) }

    func received(client: Int, message: [UInt8]) {
        do {
            switch try PageMessage(decoding: message) {
            case .command(let action): post([.command(action)])
            case .heartbeat: break
            }
        } catch {
            malformed.add(1, ordering: .relaxed)
            if rejections.take() { post([.reject(error.message)]) }
        }
    }

    func refused(client: Int, reason: String) {
        malformed.add(1, ordering: .relaxed)
        if rejections.take() { post([.reject("page \(client): \(reason): closed")]) }
    }

    /// Into the inbox, as far as there is room (the rest counted as dropped); wakes the control thread.
    private func post(_ items: [Item]) {
        let lost = inbox.post(items)
        if lost > 0 { dropped.add(lost, ordering: .relaxed) }
    }

    /// `/peaks`: `RPK1`, the bucket count (UInt32, little-endian), then each bucket's lowest and
    /// highest sample as two Int8 (×127). 503 until the whole file is read.
    private func peaks() -> WebResponse {
        if peakBytes == nil, let overview, overview.doneCount == overview.bucketCount {
            let (low, high, _) = overview.extremes()
            var bytes = Array("RPK1".utf8)
            withUnsafeBytes(of: UInt32(overview.bucketCount).littleEndian) { bytes += $0 }
            bytes.reserveCapacity(bytes.count + 2 * low.count)
            func level(_ value: Float) -> UInt8 { UInt8(bitPattern: Int8((max(-1, min(1, value)) * 127).rounded())) }
            for index in low.indices { bytes += [level(low[index]), level(high[index])] }
            peakBytes = bytes
        }
        guard let peakBytes else { return .text(503, "Service Unavailable", "the peaks are being computed: the page asks again when they are ready") }
        return WebResponse(status: 200, reason: "OK", contentType: "application/octet-stream", body: peakBytes)
    }

    /// The address to open: the loopback's, the address or name given, or for every interface the
    /// first network address (IPv4 first; 127.0.0.1 when there is none).
    static func address(_ listen: ListenAddress, sockets: [BoundSocket]) -> String {
        func bracketed(_ address: IPAddress) -> String { address.isIPv4 ? address.description : "[\(address)]" }
        var host = "127.0.0.1"
        switch listen.host {
        case .loopback: if let first = sockets.first { host = bracketed(first.address) }
        case .named(let name):
            if let literal = IPAddress(parsing: name) {
                if literal.isUnspecified {
                    let candidates = BoundSocket.interfaceNetworks().map(\.address).filter {
                        !$0.isLoopback && ($0.isIPv4 || (!literal.isIPv4 && $0.high >> 54 != 0x3FA))  // no fe80::/10
                    }
                    if let best = candidates.first(where: \.isIPv4) ?? candidates.first { host = bracketed(best) }
                } else {
                    host = bracketed(literal)
                }
            } else {
                host = name
            }
        }
        return "http://\(host):\(listen.port)/"
    }
}
