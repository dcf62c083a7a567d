import CLiblo
import Foundation
import RepeaterEngine
import Synchronization

/// OSC over UDP (liblo): a source and, for subscribers, a sink.
///
/// A thread of its own receives messages and only turns each into an inbox item (a command, a
/// refusal, a subscription); it wakes the control thread through a pipe. The control thread drains
/// the inbox into the dispatcher, and sends errors and subscribers' status from its own sockets, so
/// the receiving thread never waits for anything but the network.
public final class OSCServer: @unchecked Sendable {
    public let port: Int
    /// The subscribers' sink (status and meters at `--status-hz`).
    public let feedback = OSCFeedback()
    private let server: UnsafeMutableRawPointer
    private let inbox = Mutex<[Item]>([])
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?
    private var context: Unmanaged<OSCServer>?
    private let wakePipe: (read: Int32, write: Int32)

    enum Item: Sendable {
        case command(Command)
        case reject(String, OSCSender)
        case subscribe(host: String, port: Int)
        case unsubscribe(host: String, port: Int?)
    }

    /// Binds UDP `port` on all interfaces. A port in use is a one-line error.
    public init(port: Int) throws(RepeaterError) {
        self.port = port
        guard let server = lo_server_new_with_proto(String(port), LO_UDP, oscLibraryError) else {
            throw .input("OSC port \(port) cannot be used (in use by another program?): choose another with --osc PORT")
        }
        self.server = server
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RepeaterError(.failure, "cannot create a pipe for the OSC thread") }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        wakePipe = (fds[0], fds[1])
    }

    deinit {
        stop()
        lo_server_free(server)
        close(wakePipe.read)
        close(wakePipe.write)
    }

    /// The control thread polls this; a byte arrives with each inbox item.
    public var wakeFD: Int32 { wakePipe.read }

    /// Malformed packets (liblo could not decode them) and refused messages so far.
    public var errors: Int { oscMalformedPackets.load(ordering: .relaxed) + refused.load(ordering: .relaxed) }
    private let refused = Atomic<Int>(0)

    /// Starts the receiving thread.
    public func start(sink: any CommandSink) {
        guard thread == nil else { return }
        let context = Unmanaged.passRetained(self)
        self.context = context
        lo_server_add_method(server, nil, nil, oscMessageHandler, context.toOpaque())
        let thread = Thread { [unowned self] in
            while !self.stopRequested.load(ordering: .relaxed) {
                _ = lo_server_recv_noblock(self.server, 100)
            }
            self.finished.signal()
        }
        thread.name = "repeater-osc"
        self.thread = thread
        thread.start()
    }

    /// Stops and joins the receiving thread.
    public func stop() {
        guard thread != nil else { return }
        stopRequested.store(true, ordering: .relaxed)
        finished.wait()
        thread = nil
        context?.release()
        context = nil
    }

    /// Control thread: hands what arrived to the dispatcher; true for quit.
    public func poll(into sink: any CommandSink) -> Bool {
        var byte: UInt8 = 0
        while read(wakePipe.read, &byte, 1) > 0 {}
        let items = inbox.withLock { items -> [Item] in
            let taken = items
            items.removeAll()
            return taken
        }
        for item in items {
            switch item {
            case .command(let command): if sink.submit(command) { return true }
            case .reject(let message, let sender): sink.reject(message, source: .osc, reply: sender)
            case .subscribe(let host, let port): feedback.subscribe(host: host, port: port)
            case .unsubscribe(let host, let port): feedback.unsubscribe(host: host, port: port)
            }
        }
        return false
    }

    /// OSC thread: one decoded message.
    fileprivate func received(path: String, types: String, argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?, message: UnsafeMutableRawPointer?) {
        var arguments: [OSCArgument] = []
        for (index, tag) in types.enumerated() {
            guard let argument = argv?[index] else { break }
            switch tag {
            case "f": arguments.append(.float(Double(argument.pointee.f)))
            case "d": arguments.append(.float(argument.pointee.d))
            case "i": arguments.append(.int(Int(argument.pointee.i)))
            case "h": arguments.append(.int(Int(argument.pointee.h)))
            case "s", "S": arguments.append(.string(String(cString: UnsafeRawPointer(argument).assumingMemoryBound(to: CChar.self))))
            default: arguments.append(.other(tag))
            }
        }
        guard let address = message.flatMap({ lo_message_get_source($0) }) else { return }
        let host = lo_address_get_hostname(address).map { String(cString: $0) } ?? "127.0.0.1"
        let senderPort = lo_address_get_port(address).flatMap { Int(String(cString: $0)) } ?? 0
        let sender = OSCSender(host: host, port: senderPort)
        let item: Item
        switch OSCRequest.decode(path: path, arguments: arguments) {
        case .success(.command(let action)): item = .command(Command(action, source: .osc, reply: sender))
        case .success(.subscribe(let port)): item = .subscribe(host: host, port: port ?? senderPort)
        case .success(.unsubscribe(let port)): item = .unsubscribe(host: host, port: port)
        case .failure(let error):
            refused.add(1, ordering: .relaxed)
            item = .reject(error.message, sender)
        }
        inbox.withLock { $0.append(item) }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }
}

/// An OSC client's address: where its errors go back (sent from the control thread's own socket).
public final class OSCSender: ReplyChannel, @unchecked Sendable {
    let host: String
    let port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public func replyError(_ message: String) {
        guard let address = lo_address_new(host, String(port)) else { return }
        defer { lo_address_free(address) }
        let reply = lo_message_new()
        defer { lo_message_free(reply) }
        lo_message_add_string(reply, message)
        lo_send_message(address, "/repeater/error", reply)
    }
}

/// Sends `/repeater/status` and `/repeater/meter` to subscribers once per status window, until they
/// unsubscribe or 60 s pass without a renewed subscribe.
public final class OSCFeedback: OutputSink {
    public static let subscriptionSeconds = 60.0
    private var subscribers: [String: (address: UnsafeMutableRawPointer, renewed: Date)] = [:]

    public init() {}

    deinit { for subscriber in subscribers.values { lo_address_free(subscriber.address) } }

    func subscribe(host: String, port: Int) {
        let key = "\(host):\(port)"
        if let existing = subscribers[key] {
            subscribers[key] = (existing.address, Date())
        } else if let address = lo_address_new(host, String(port)) {
            subscribers[key] = (address, Date())
        }
    }

    /// Stops what goes to `port` on `host`, or (nil) everything that goes to `host`.
    func unsubscribe(host: String, port: Int?) {
        for key in subscribers.keys where port.map({ key == "\(host):\($0)" }) ?? key.hasPrefix("\(host):") {
            if let removed = subscribers.removeValue(forKey: key) { lo_address_free(removed.address) }
        }
    }

    public var subscriberCount: Int { subscribers.count }

    public func status(_ s: StatusSnapshot, force: Bool) {
        let now = Date()
        for (key, subscriber) in subscribers where now.timeIntervalSince(subscriber.renewed) > Self.subscriptionSeconds {
            lo_address_free(subscriber.address)
            subscribers.removeValue(forKey: key)
        }
        guard !subscribers.isEmpty else { return }
        let status = lo_message_new()
        defer { lo_message_free(status) }
        lo_message_add_float(status, Float(s.seconds(s.frame)))
        lo_message_add_float(status, Float(s.seconds(s.a)))
        lo_message_add_float(status, Float(s.seconds(s.b)))
        lo_message_add_int32(status, s.loopOn ? 1 : 0)
        lo_message_add_float(status, Float(s.rate))
        lo_message_add_float(status, Float(s.pitch))
        lo_message_add_string(status, s.state)
        let meter = lo_message_new()
        defer { lo_message_free(meter) }
        for level in s.levels {
            lo_message_add_float(meter, Float(max(-120, level.rmsDB)))
            lo_message_add_float(meter, Float(max(-120, level.peakDB)))
        }
        var bar: lo_message?
        if let number = s.map.bar, let beat = s.map.beat {
            bar = lo_message_new()
            lo_message_add_int32(bar, Int32(clamping: number))
            lo_message_add_int32(bar, Int32(clamping: beat))
        }
        defer { if let bar { lo_message_free(bar) } }
        // The note view: the chord ("" for none), then name, cents and level (dB) of each note.
        var notes: lo_message?
        if let report = s.hearing.notes {
            notes = lo_message_new()
            lo_message_add_string(notes, report.chord ?? "")
            for note in report.notes {
                lo_message_add_string(notes, note.name)
                lo_message_add_float(notes, note.cents)
                lo_message_add_float(notes, max(-120, note.levelDB))
            }
        }
        defer { if let notes { lo_message_free(notes) } }
        var heardLine: lo_message?
        if let current = s.lines.current {
            heardLine = lo_message_new()
            lo_message_add_int32(heardLine, Int32(clamping: current.index))
            lo_message_add_string(heardLine, current.text)
        }
        defer { if let heardLine { lo_message_free(heardLine) } }
        for subscriber in subscribers.values {
            lo_send_message(subscriber.address, "/repeater/status", status)
            lo_send_message(subscriber.address, "/repeater/meter", meter)
            if let bar { lo_send_message(subscriber.address, "/repeater/bar", bar) }
            if let notes { lo_send_message(subscriber.address, "/repeater/notes", notes) }
            if let heardLine { lo_send_message(subscriber.address, "/repeater/line", heardLine) }
        }
    }

    public func event(_ event: PlayerEvent) {}
    public func note(_ text: String) {}
    public func error(_ text: String, source: CommandSource) {}
}

/// Packets liblo could not decode (it reports them to this process-wide handler, which has no
/// context argument).
let oscMalformedPackets = Atomic<Int>(0)

func oscLibraryError(_ number: Int32, _ message: UnsafePointer<CChar>?, _ location: UnsafePointer<CChar>?) {
    oscMalformedPackets.add(1, ordering: .relaxed)
}

/// The OSC thread's one method handler (every path, every type): liblo calls it per message.
func oscMessageHandler(_ path: UnsafePointer<CChar>?, _ types: UnsafePointer<CChar>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?,
                       _ argc: Int32, _ message: UnsafeMutableRawPointer?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let userData, let path else { return 0 }
    let typeString = types.map { String(cString: $0) } ?? ""
    Unmanaged<OSCServer>.fromOpaque(userData)._withUnsafeGuaranteedRef {
        $0.received(path: String(cString: path), types: typeString, argv: argv, message: message)
    }
    return 0
}
