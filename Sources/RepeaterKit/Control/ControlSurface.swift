import Foundation
import RepeaterEngine

/// A surface the player hosts beside the keys, stdin, MIDI and OSC (the practice page, `--web`,
/// from the RepeaterWeb target): one more source and one more sink of the dispatcher. Its own
/// threads talk to its clients; the player only calls it on the control thread, so that nothing it
/// receives reaches the audio thread except through the dispatcher.
public protocol ControlSurface: AnyObject {
    /// Readable when commands wait: polled with the control thread's other inputs.
    var wakeFD: Int32 { get }
    /// Its sink (the status and events the JSON lines carry), added to the run's output.
    var sink: any OutputSink { get }
    /// Fields for the `start` event (`web`: the page's address).
    func describe(into line: inout JSONLine)
    /// Said once at the start (where it listens, what opening it risks).
    var startNotes: [String] { get }
    /// Starts serving, once the player runs: `file` is the recording played.
    func start(file: AudioFileInfo)
    /// Control thread: hands what its clients sent to the dispatcher.
    func poll(into sink: any CommandSink, output: Output) -> SurfacePoll
    /// What the surface shows beside the status (the map's grid, lines, named loops, takes): given
    /// at every status window, sent on only when it changed.
    func update(_ document: PracticeDocument)
    /// Its part of the status (the screen's and the JSON lines' `web_…` fields).
    var status: PageStatus { get }
    /// Stops its threads (the way out).
    func stop()
}

/// What a surface's poll did.
public enum SurfacePoll: Equatable, Sendable {
    case nothing
    /// Commands were handed on: the surface gets a status at once, not at the next window.
    case commands
    case quit
}

/// The lists the page shows that the status lines do not carry: the map's beats and bars, the
/// lines, the named loops and the takes (frames of the file).
public struct PracticeDocument: Equatable, Sendable {
    public var beatFrames: [Int] = []
    public var downbeatFrames: [Int] = []
    public var lines: [MapLine] = []
    public var loops: [NamedLoop] = []
    public var takes: [Take] = []

    public init() {}
}

/// The practice page's part of the status: where it is, who is on it, and what it refused, dropped
/// or coalesced.
public struct PageStatus: Sendable, Equatable {
    /// The address to open (with the token when one is needed).
    public var url: String
    /// The sockets it listens on, and whether only this computer can reach them.
    public var listen: [String]
    public var loopbackOnly: Bool
    /// The URL as a QR code, in text rows (half blocks), for a phone; empty when not needed.
    public var qrRows: [String]
    /// Pages connected now.
    public var clients = 0
    /// Connections and requests refused: a host outside `--web-allow`, a wrong Host header or
    /// Origin, a missing token, a ninth page.
    public var refused = 0
    /// Messages that were not commands (malformed, unknown, too long).
    public var errors = 0
    /// Commands dropped at a full inbox, and events dropped for a page too slow to take them.
    public var dropped = 0
    /// Status lines replaced by a newer one before a slow page took them.
    public var coalesced = 0

    public init(url: String, listen: [String], loopbackOnly: Bool, qrRows: [String] = []) {
        self.url = url
        self.listen = listen
        self.loopbackOnly = loopbackOnly
        self.qrRows = qrRows
    }
}
