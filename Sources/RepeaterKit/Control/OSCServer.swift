import CLiblo
import Foundation
import RepeaterEngine
import Synchronization

/// OSC over UDP: a source and, for subscribers, a sink. The sockets are repeater's own (liblo only
/// encodes and decodes): by default 127.0.0.1 and ::1, so that only this computer can steer; a
/// network only with `--osc HOST:PORT`.
///
/// A thread of its own receives. It checks each packet's sender against the allow list before
/// anything else (a refused packet costs a `recvfrom` and a comparison, is counted, and is never
/// answered), decodes the rest, and turns each message into an inbox item (a command, a refusal, a
/// subscription). The inbox is bounded: a flood cannot grow memory or starve the keys; what does
/// not fit is dropped and counted. The receiving thread wakes the control thread through a pipe;
/// the control thread drains the inbox into the dispatcher and does all the sending (errors, the
/// subscribers' status), never waiting on the network.
public final class OSCServer: @unchecked Sendable {
    public let listen: ListenAddress
    public var port: Int { listen.port }
    /// Where it listens: `127.0.0.1:9000`, `[::1]:9000`.
    public let endpoints: [String]
    /// The networks whose messages are taken (the allow list, resolved once at the start).
    public let allowed: [IPNetwork]
    /// Said once at the start (::1 that could not be bound, an address of a name left out).
    public let notes: [String]
    /// The subscribers' sink (status and meters at `--status-hz`).
    public let feedback: OSCFeedback

    /// Items waiting for the control thread, at most this many.
    public static let inboxCapacity = 256
    /// `/repeater/error` replies, and refusals turned into events, at most this many a second
    /// (beyond: counted in `osc_errors` only); subscription changes the same.
    public static let answersPerSecond = 20.0

    private let sockets: [BoundSocket]
    private let inbox: WakingInbox<Item>
    private let worker = WorkerThread(name: "repeater-osc")
    private let replies = OSCReplyBudget()
    // The receiving thread's own budgets.
    private var rejections = RateLimit(perSecond: OSCServer.answersPerSecond)
    private var subscriptions = RateLimit(perSecond: OSCServer.answersPerSecond)

    private let malformed = Atomic<Int>(0)
    private let rejected = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    enum Item: Sendable {
        case command(Command)
        case reject(String, OSCSender)
        case subscribe(BoundSocket, SocketAddress)
        case unsubscribe(IPAddress, port: Int?)
    }

    /// Binds the sockets `listen` names; `allow` nil is the default (`loopback,lan`). A port in
    /// use, a foreign address, an unknown name: a one-line error (exit 2), before anything plays.
    public init(listen: ListenAddress, allow: AllowList? = nil, statusHz: Double = 10) throws(RepeaterError) {
        self.listen = listen
        let (sockets, notes) = try BoundSocket.open(listen)
        self.sockets = sockets
        self.notes = notes
        endpoints = sockets.map(\.local.description)
        allowed = (allow ?? .standard).networks(lan: BoundSocket.networks(servedBy: sockets))
        feedback = OSCFeedback(statusHz: statusHz)
        inbox = try WakingInbox(capacity: Self.inboxCapacity, for: "OSC")
    }

    deinit { stop() }

    /// Only this computer's programs can reach it (every socket is bound to a loopback address).
    public var isLoopbackOnly: Bool { sockets.allSatisfy { $0.local.ip.isLoopback } }

    /// The control thread polls this; a byte arrives when the inbox gets its first item.
    public var wakeFD: Int32 { inbox.wakeFD }

    /// Packets that could not be decoded, and messages refused (unknown address, wrong arguments).
    public var errors: Int { malformed.load(ordering: .relaxed) + rejected.load(ordering: .relaxed) }
    /// Packets from senders outside the allow list: dropped undecoded, never answered.
    public var refusedPackets: Int { refused.load(ordering: .relaxed) }
    /// Messages dropped because the inbox was full, or subscription changes beyond their rate.
    public var droppedMessages: Int { dropped.load(ordering: .relaxed) }

    /// The sinks' view.
    public var status: OSCStatus {
        OSCStatus(listen: endpoints, loopbackOnly: isLoopbackOnly, errors: errors, refused: refusedPackets,
                  dropped: droppedMessages, subscribers: feedback.subscriberCount)
    }

    /// Starts the receiving thread.
    public func start() { worker.start { [unowned self] in self.receive() } }

    /// Stops and joins the receiving thread (within its 100 ms poll).
    public func stop() { worker.stop() }

    /// Control thread: hands what arrived to the dispatcher (subscriptions to the feedback, with an
    /// event each), and expires subscriptions; true for quit.
    public func poll(into sink: any CommandSink, output: Output) -> Bool {
        let items = inbox.take()
        let now = RateLimit.now()
        for item in items {
            switch item {
            case .command(let command): if sink.submit(command) { return true }
            case .reject(let message, let sender): sink.reject(message, source: .osc, reply: sender)
            case .subscribe(let socket, let address):
                if case .added(let replaced) = feedback.subscribe(socket: socket, address: address, now: now) {
                    output.event(subscriberEvent(address, state: "added", replaced: replaced))
                }
            case .unsubscribe(let host, let port):
                for address in feedback.unsubscribe(host: host, port: port) { output.event(subscriberEvent(address, state: "removed")) }
            }
        }
        for address in feedback.expire(now: now) { output.event(subscriberEvent(address, state: "expired")) }
        return false
    }

    private func subscriberEvent(_ address: SocketAddress, state: String, replaced: SocketAddress? = nil) -> PlayerEvent {
        let count = feedback.subscriberCount
        var note: String
        switch state {
        case "added": note = "OSC: status goes to \(address)"
        case "removed": note = "OSC: \(address) unsubscribed"
        default: note = "OSC: \(address) did not renew its subscription in \(Int(OSCFeedback.subscriptionSeconds)) s"
        }
        if let old = replaced { note += " (instead of \(old): at most \(OSCFeedback.maximumSubscribers) subscribers)" }
        return PlayerEvent("osc-subscriber", source: .osc, note: note) {
            $0.add("host", address.ip.description)
            $0.add("port", address.port)
            $0.add("state", state)
            if let old = replaced { $0.add("replaced", old.description) }
            $0.add("subscribers", count)
        }
    }

    // MARK: the receiving thread

    private func receive() {
        nameThisThread("repeater-osc")
        let capacity = 65_536  // the largest UDP payload
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        while !worker.stopping {
            guard Glibc.poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
            for index in fds.indices where fds[index].revents & Int16(POLLIN) != 0 {
                // At most 256 packets from one socket, then the others and the stop flag get their turn.
                for _ in 0..<256 {
                    var storage = sockaddr_storage()
                    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let count = withUnsafeMutablePointer(to: &storage) {  // (a non-blocking socket)
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fds[index].fd, buffer, capacity, 0, $0, &length) }
                    }
                    guard count >= 0 else { break }
                    received(UnsafeRawBufferPointer(start: buffer, count: count), from: storage, length: length, on: sockets[index])
                }
            }
        }
    }

    /// OSC thread: one packet. The sender is checked first; nothing of a refused packet is read.
    private func received(_ bytes: UnsafeRawBufferPointer, from storage: sockaddr_storage, length: socklen_t, on socket: BoundSocket) {
        var storage = storage
        let sender = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress($0) } }
        guard let sender, allowed.contains(where: { $0.contains(sender) }) else {
            refused.add(1, ordering: .relaxed)
            return
        }
        let (messages, isMalformed) = OSCPacket.decode(bytes)
        if isMalformed { malformed.add(1, ordering: .relaxed) }
        guard !messages.isEmpty else { return }
        let address = SocketAddress(storage: storage, length: length)
        var items: [Item] = []
        for message in messages {
            switch OSCRequest.decode(path: message.path, arguments: message.arguments) {
            case .success(.command(let action)):
                items.append(.command(Command(action, source: .osc, reply: OSCSender(socket: socket, address: address, budget: replies))))
            case .success(.subscribe(let port)):
                guard subscriptions.take() else { dropped.add(1, ordering: .relaxed); continue }
                items.append(.subscribe(socket, port.map { address.with(port: $0) } ?? address))
            case .success(.unsubscribe(let port)):
                guard subscriptions.take() else { dropped.add(1, ordering: .relaxed); continue }
                items.append(.unsubscribe(sender, port: port))
            case .failure(let error):
                rejected.add(1, ordering: .relaxed)
                // Beyond the rate, a refusal is only counted: no event, no reply.
                if rejections.take() { items.append(.reject(error.message, OSCSender(socket: socket, address: address, budget: replies))) }
            }
        }
        let lost = inbox.post(items)
        if lost > 0 { dropped.add(lost, ordering: .relaxed) }
    }
}

/// The OSC side of the status: where it listens and what it refused.
public struct OSCStatus: Sendable {
    public var listen: [String]
    public var loopbackOnly: Bool
    public var errors: Int
    public var refused: Int
    public var dropped: Int
    public var subscribers: Int

    public init(listen: [String], loopbackOnly: Bool, errors: Int = 0, refused: Int = 0, dropped: Int = 0, subscribers: Int = 0) {
        self.listen = listen
        self.loopbackOnly = loopbackOnly
        self.errors = errors
        self.refused = refused
        self.dropped = dropped
        self.subscribers = subscribers
    }
}

/// An OSC client's address: where its errors go back, from the socket its message came in on.
public final class OSCSender: ReplyChannel, @unchecked Sendable {
    let socket: BoundSocket
    let address: SocketAddress
    private let budget: OSCReplyBudget

    init(socket: BoundSocket, address: SocketAddress, budget: OSCReplyBudget) {
        self.socket = socket
        self.address = address
        self.budget = budget
    }

    /// Control thread. At most `OSCServer.answersPerSecond` replies a second leave, whoever asks, and
    /// each is short: UDP senders can be forged, and an answer must not become an amplifier aimed at
    /// someone else.
    public func replyError(_ message: String) {
        guard budget.take() else { return }
        let reply = lo_message_new()
        defer { lo_message_free(reply) }
        lo_message_add_string(reply, Self.replyText(message))
        let bytes = OSCPacket.serialise(reply!, path: "/repeater/error")
        bytes.withUnsafeBytes { _ = socket.send($0, to: address) }
    }
}

extension OSCSender {
    /// The longest reply text, in bytes.
    static let replyLimit = 128

    /// What `/repeater/error` carries: the message, or when it is longer than `replyLimit` bytes
    /// its first clause (up to "; ": an unknown address's reply leaves out the list of addresses
    /// that the error event gives), cut to the limit.
    static func replyText(_ message: String) -> String {
        guard message.utf8.count > replyLimit else { return message }
        if let end = message.range(of: "; ")?.lowerBound, message[..<end].utf8.count <= replyLimit { return String(message[..<end]) }
        var text = message
        while text.utf8.count > replyLimit - 3 { text.removeLast() }  // room for "…" (3 bytes)
        return text + "…"
    }
}

/// The budget all `/repeater/error` replies share.
final class OSCReplyBudget: @unchecked Sendable {
    private let limit = Mutex(RateLimit(perSecond: OSCServer.answersPerSecond))

    func take() -> Bool { limit.withLock { $0.take() } }
}
