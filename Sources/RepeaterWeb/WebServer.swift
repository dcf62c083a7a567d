import CWebSockets
import Foundation
import RepeaterKit
import Synchronization

/// What the server asks of its owner (the practice page). Every call comes on the web thread.
protocol WebHandler: AnyObject {
    /// A connection from `peer`, before any byte of it is read: taken or closed.
    func accepts(peer: IPAddress) -> Bool
    /// The answer to a plain HTTP request.
    func respond(to request: WebRequest) -> WebResponse
    /// nil lets a WebSocket upgrade go on; a response refuses it.
    func refusesUpgrade(_ request: WebRequest) -> WebResponse?
    /// A page's WebSocket opened (`client` numbers it for this run), or closed.
    func opened(client: Int)
    func closed(client: Int)
    /// One whole text message from a page (at most `WebServer.maximumMessageBytes`).
    func received(client: Int, message: [UInt8])
    /// A message that was refused: too long, binary, not UTF-8 (the connection is closed).
    func refused(client: Int, reason: String)
}

/// The practice page's HTTP and WebSocket server: libwebsockets on one thread of its own
/// (`repeater-web`), on the sockets repeater bound itself (`BoundSocket`: the loopback pair unless
/// `--web HOST:PORT` opens it), which lws watches as raw descriptors; the web thread accepts, checks
/// the peer against the allow list before reading a byte, and hands the connection to lws.
///
/// Debian 12's libwebsockets 4.1.6 has one service thread (LWS_MAX_SMP 1) and no external poll:
/// every lws call but `lws_cancel_service` is made on this thread. The control thread only fills
/// mailboxes (under a lock held for a copy of a few references) and wakes the thread; a page's
/// WebSocket is written only when its socket can take more, so a stalled page costs its mailbox
/// (one document, at most `maximumQueuedEvents` events, one status: a newer status replaces an
/// unsent one, counted as coalesced; an event beyond the queue drops the oldest, counted as
/// dropped) and the one message lws holds for it, never a wait.
final class WebServer: @unchecked Sendable {
    /// Connections open at once (pages, their keep-alive HTTP connections); more are closed at accept.
    static let maximumConnections = 32
    /// The longest message a page may send (its commands are a few dozen bytes).
    static let maximumMessageBytes = 4096
    static let maximumQueuedEvents = 64
    /// A page that sends nothing (not even its heartbeat, every 5 s) for this long is closed.
    static let standardIdleSeconds: Int32 = 15
    let idleSeconds: Int32
    /// HTTP bodies are written in pieces of at most this many bytes.
    static let chunkBytes = 16_384

    let sockets: [BoundSocket]
    /// Set before `start()`; not retained (the owner holds the server).
    weak var handler: (any WebHandler)?

    private var context: OpaquePointer?
    var vhost: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let names: [UnsafeMutablePointer<CChar>]
    private let worker = WorkerThread(name: "repeater-web")
    private let stopRequested = Atomic<Bool>(false)

    // The web thread's own.
    var connections: Set<UInt> = []
    var bodies: [UInt: (bytes: [UInt8], sent: Int)] = [:]
    var clients: [UInt: WebClient] = [:]
    var wsiOfClient: [Int: OpaquePointer] = [:]
    var nextClient = 1
    let pre = repeater_lws_pre()

    // Shared with the control thread.
    let mail = Mutex(Mailboxes())
    let clientCount = Atomic<Int>(0)
    let coalescedCount = Atomic<Int>(0)
    let droppedCount = Atomic<Int>(0)
    let refusedConnections = Atomic<Int>(0)

    /// A page's WebSocket, on the web thread: its number and the message being put together.
    final class WebClient {
        let id: Int
        var message: [UInt8] = []

        init(id: Int) { self.id = id }
    }

    /// What waits to be sent to each page; the last document and status for the next page to open.
    struct Mailboxes {
        var boxes: [Int: Mailbox] = [:]
        var lastDocument: [UInt8]?
        var lastStatus: [UInt8]?
        /// A wake-up is on its way to the web thread.
        var woken = false
        /// Stopped: nothing may touch the lws context any more.
        var closed = false
    }

    struct Mailbox {
        var document: [UInt8]?
        var events: [[UInt8]] = []
        var status: [UInt8]?

        var isEmpty: Bool { document == nil && events.isEmpty && status == nil }

        /// The next message: the document, then the events in order, then the status.
        mutating func take() -> [UInt8]? {
            if let document { self.document = nil; return document }
            if !events.isEmpty { return events.removeFirst() }
            if let status { self.status = nil; return status }
            return nil
        }
    }

    /// Makes the lws context (nothing is served before `start()`).
    init(sockets: [BoundSocket], idleSeconds: Int32 = WebServer.standardIdleSeconds) throws(RepeaterError) {
        self.sockets = sockets
        self.idleSeconds = idleSeconds
        names = [strdup("repeater-page"), strdup("repeater-listen"), strdup("repeater")]
        protocols = .allocate(capacity: 3)
        protocols.initialize(repeating: lws_protocols(), count: 3)
        protocols[0].name = UnsafePointer(names[0])
        protocols[0].callback = webCallback
        protocols[0].rx_buffer_size = WebServer.maximumMessageBytes
        protocols[1].name = UnsafePointer(names[1])
        protocols[1].callback = webCallback
        lws_set_log_level(0, nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN_SERVER  // repeater's own sockets are adopted instead
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        info.fd_limit_per_thread = UInt32(WebServer.maximumConnections + sockets.count + 8)
        info.timeout_secs = 10
        info.keepalive_timeout = 5
        info.max_http_header_data = 4096
        info.max_http_header_pool = 8
        info.pt_serv_buf_size = UInt32(WebServer.chunkBytes + 1024)
        info.server_string = UnsafePointer(names[2])
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard let context = lws_create_context(&info) else {
            protocols.deallocate()
            for name in names { free(name) }
            throw RepeaterError(.failure, "the practice page's server (libwebsockets) could not start")
        }
        self.context = context
        vhost = lws_get_vhost_by_name(context, "default")
    }

    deinit {
        stop()
        protocols.deallocate()
        for name in names { free(name) }
    }

    /// Starts the web thread: it adopts the listening sockets and serves until `stop()`.
    func start() {
        worker.start { [unowned self] in
            nameThisThread("repeater-web")
            for socket in sockets {
                // lws closes what it adopted when it is destroyed: it gets a descriptor of its own
                // for the socket, so that the socket's owner closes only its own (a second close of
                // one number could hit whatever another thread opened in between).
                var descriptor = lws_sock_file_fd_type()
                descriptor.filefd = fcntl(socket.fd, F_DUPFD_CLOEXEC, 0)
                guard descriptor.filefd >= 0 else { continue }
                _ = lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, descriptor, names[1], nil)
            }
            while !stopRequested.load(ordering: .relaxed) { _ = lws_service(context, 0) }
        }
    }

    /// Stops the thread and frees lws (every connection closes). Once.
    func stop() {
        let context = mail.withLock { mail -> OpaquePointer? in
            guard !mail.closed else { return nil }
            mail.closed = true
            return self.context
        }
        guard let context else { return }
        stopRequested.store(true, ordering: .relaxed)
        lws_cancel_service(context)
        worker.stop()
        lws_context_destroy(context)
        self.context = nil
    }

    // MARK: the control thread's side

    /// The document (the lists the page shows) for every page, and for the next to open.
    func publish(document: [UInt8]) {
        post { mail in
            mail.lastDocument = document
            for id in mail.boxes.keys { mail.boxes[id]!.document = document }
        }
    }

    /// A status line for every page: it replaces one not yet sent (counted).
    func publish(status: [UInt8]) {
        post { mail in
            mail.lastStatus = status
            var replaced = 0
            for id in mail.boxes.keys {
                if mail.boxes[id]!.status != nil { replaced += 1 }
                mail.boxes[id]!.status = status
            }
            if replaced > 0 { self.coalescedCount.add(replaced, ordering: .relaxed) }
        }
    }

    /// An event for every page: beyond `maximumQueuedEvents` waiting, the oldest goes (counted).
    func publish(event: [UInt8]) {
        post { mail in
            var dropped = 0
            for id in mail.boxes.keys {
                if mail.boxes[id]!.events.count >= WebServer.maximumQueuedEvents {
                    mail.boxes[id]!.events.removeFirst()
                    dropped += 1
                }
                mail.boxes[id]!.events.append(event)
            }
            if dropped > 0 { self.droppedCount.add(dropped, ordering: .relaxed) }
        }
    }

    private func post(_ change: (inout Mailboxes) -> Void) {
        mail.withLock { mail in
            guard !mail.closed else { return }
            change(&mail)
            guard !mail.woken, !mail.boxes.isEmpty, let context else { return }
            mail.woken = true
            lws_cancel_service(context)  // a byte in a non-blocking pipe: never waits
        }
    }
}
