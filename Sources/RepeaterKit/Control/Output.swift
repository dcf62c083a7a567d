import Foundation
import RepeaterEngine

/// Something that happened, as the JSON lines report it: `{"event": name, fields…, "source": …}`.
public struct PlayerEvent {
    public var name: String
    public var fields = JSONLine()
    /// The command's source, for events a command caused (`.player` otherwise: no `source` field).
    public var source: CommandSource
    /// Shown instead of the event by sinks that do not print events (the screen, stderr).
    public var note: String?

    public init(_ name: String, source: CommandSource = .player, note: String? = nil, _ fill: (inout JSONLine) -> Void = { _ in }) {
        self.name = name
        self.source = source
        self.note = note
        fill(&fields)
    }

    /// The JSON line.
    public var json: String {
        var line = JSONLine()
        line.add("event", name)
        line.append(fields)
        if let name = source.name { line.add("source", name) }
        return line.text
    }
}

/// A reader of the player's state and events: the screen, the JSON lines, a status line, OSC
/// subscribers. Sinks never send commands; what they write must not block the control thread.
public protocol OutputSink: AnyObject {
    /// Once per status window (and on `status`, with `force`).
    func status(_ snapshot: StatusSnapshot, force: Bool)
    /// An event (JSON prints it; others show its `note`, if any).
    func event(_ event: PlayerEvent)
    /// A note for the user.
    func note(_ text: String)
    /// A refused command or another problem, with the source of the command at fault.
    func error(_ text: String, source: CommandSource)
    /// `?` / `help`: the keys.
    func showKeys(_ help: String)
    /// The way out: restore what the sink changed (the terminal).
    func close()
}

extension OutputSink {
    public func showKeys(_ help: String) {}
    public func close() {}
}

/// The sinks of one run, fed together.
public final class Output {
    public private(set) var sinks: [any OutputSink] = []

    public init() {}

    public func add(_ sink: any OutputSink) { sinks.append(sink) }

    public func status(_ snapshot: StatusSnapshot, force: Bool = false) { for sink in sinks { sink.status(snapshot, force: force) } }
    public func event(_ event: PlayerEvent) { for sink in sinks { sink.event(event) } }
    public func note(_ text: String) { for sink in sinks { sink.note(text) } }
    public func error(_ text: String, source: CommandSource) { for sink in sinks { sink.error(text, source: source) } }
    public func showKeys(_ help: String) { for sink in sinks { sink.showKeys(help) } }
    public func close() { for sink in sinks { sink.close() } }
}
