import CLiblo
import Foundation
import RepeaterEngine

/// Sends the subscribers one bundle per status window (`/repeater/status`, `/repeater/meter`, and
/// `/repeater/bar`, `/repeater/notes`, `/repeater/line` when known), until they unsubscribe or 60 s
/// pass without a renewed subscribe. At most 8 subscribers (a ninth replaces the one renewed
/// longest ago), each on the host its subscribe came from, and at most `--status-hz` bundles a
/// second each (extra status calls, for a key or `status`, do not send more): whatever arrives, the
/// feedback stays within 8 × the status rate packets a second. Control thread only.
public final class OSCFeedback: OutputSink {
    public static let subscriptionSeconds = 60.0
    public static let maximumSubscribers = 8

    struct Subscriber {
        let socket: BoundSocket
        let address: SocketAddress
        var renewed: Double
    }

    enum Subscription {
        case renewed
        /// A new subscriber; `replaced` the one it pushed out, if the list was full.
        case added(replaced: SocketAddress?)
    }

    private(set) var subscribers: [Subscriber] = []
    /// One bundle per window on average; a burst of 2 absorbs a window that starts a little early.
    private var windows: RateLimit
    private var bytes: [UInt8] = []

    init(statusHz: Double) {
        windows = RateLimit(perSecond: statusHz, burst: 2)
    }

    public var subscriberCount: Int { subscribers.count }

    /// `address` (the sender's host, its own port or the one it named) gets the status.
    func subscribe(socket: BoundSocket, address: SocketAddress, now: Double) -> Subscription {
        if let index = subscribers.firstIndex(where: { $0.address.sameEndpoint(as: address) }) {
            subscribers[index].renewed = now
            return .renewed
        }
        var replaced: SocketAddress?
        if subscribers.count >= Self.maximumSubscribers, let oldest = subscribers.indices.min(by: { subscribers[$0].renewed < subscribers[$1].renewed }) {
            replaced = subscribers.remove(at: oldest).address
        }
        subscribers.append(Subscriber(socket: socket, address: address, renewed: now))
        return .added(replaced: replaced)
    }

    /// Stops what goes to `port` on `host`, or (nil) everything that goes to `host`; the removed.
    func unsubscribe(host: IPAddress, port: Int?) -> [SocketAddress] {
        let gone = subscribers.filter { $0.address.ip == host && (port == nil || $0.address.port == port) }
        subscribers.removeAll { $0.address.ip == host && (port == nil || $0.address.port == port) }
        return gone.map(\.address)
    }

    /// Those not renewed for `subscriptionSeconds`, removed.
    func expire(now: Double) -> [SocketAddress] {
        let gone = subscribers.filter { now - $0.renewed > Self.subscriptionSeconds }
        guard !gone.isEmpty else { return [] }
        subscribers.removeAll { now - $0.renewed > Self.subscriptionSeconds }
        return gone.map(\.address)
    }

    public func status(_ s: StatusSnapshot, force: Bool) {
        guard !subscribers.isEmpty, windows.take() else { return }
        var messages: [(path: String, message: lo_message)] = []
        defer { for entry in messages { lo_message_free(entry.message) } }
        let status = lo_message_new()!
        messages.append(("/repeater/status", status))
        lo_message_add_float(status, Float(s.seconds(s.frame)))
        lo_message_add_float(status, Float(s.seconds(s.a)))
        lo_message_add_float(status, Float(s.seconds(s.b)))
        lo_message_add_int32(status, s.loopOn ? 1 : 0)
        lo_message_add_float(status, Float(s.rate))
        lo_message_add_float(status, Float(s.pitch))
        lo_message_add_string(status, s.state)
        let meter = lo_message_new()!
        messages.append(("/repeater/meter", meter))
        for level in s.levels {
            lo_message_add_float(meter, Float(max(-120, level.rmsDB)))
            lo_message_add_float(meter, Float(max(-120, level.peakDB)))
        }
        if let number = s.map.bar, let beat = s.map.beat {
            let bar = lo_message_new()!
            messages.append(("/repeater/bar", bar))
            lo_message_add_int32(bar, Int32(clamping: number))
            lo_message_add_int32(bar, Int32(clamping: beat))
        }
        // The note view: the chord ("" for none), then name, cents and level (dB) of each note.
        if let report = s.hearing.notes {
            let notes = lo_message_new()!
            messages.append(("/repeater/notes", notes))
            lo_message_add_string(notes, report.chord ?? "")
            for note in report.notes {
                lo_message_add_string(notes, note.name)
                lo_message_add_float(notes, note.cents)
                lo_message_add_float(notes, max(-120, note.levelDB))
            }
        }
        if let current = s.lines.current {
            let line = lo_message_new()!
            messages.append(("/repeater/line", line))
            lo_message_add_int32(line, Int32(clamping: current.index))
            lo_message_add_string(line, current.text)
        }
        OSCPacket.bundle(messages, into: &bytes)
        bytes.withUnsafeBytes { packet in
            for subscriber in subscribers { subscriber.socket.send(packet, to: subscriber.address) }
        }
    }

    public func event(_ event: PlayerEvent) {}
    public func note(_ text: String) {}
    public func error(_ text: String, source: CommandSource) {}
}
