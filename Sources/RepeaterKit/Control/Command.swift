import RepeaterEngine

/// What every source hands the dispatcher: an action, where it came from, and (for OSC) where to
/// send an error back. Keys, stdin lines, OSC messages, MIDI presses, the JACK transport and the
/// speed trainer all end up as one of these; the `Dispatcher` is the only thing that acts on them.
public struct Command: Sendable {
    public var action: ControlCommand
    public var source: CommandSource
    /// The sender to answer when the command is refused (an OSC client), if any.
    public var reply: (any ReplyChannel)?

    public init(_ action: ControlCommand, source: CommandSource, reply: (any ReplyChannel)? = nil) {
        self.action = action
        self.source = source
        self.reply = reply
    }
}

/// A way back to whoever sent a command (an OSC client's address).
public protocol ReplyChannel: AnyObject, Sendable {
    /// Tells the sender its command was refused, in one line.
    func replyError(_ message: String)
}

/// Where sources hand their commands (the dispatcher).
public protocol CommandSink: AnyObject {
    /// Carries the command out (or queues it behind one that waits for the engine). True for quit.
    func submit(_ command: Command) -> Bool
    /// A source's input could not become a command (a malformed line or message): reported as an
    /// error event of that source, and back to the sender when there is a way back.
    func reject(_ message: String, source: CommandSource, reply: (any ReplyChannel)?)
}
