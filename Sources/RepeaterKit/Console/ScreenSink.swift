import Foundation
import RepeaterEngine

/// The full-screen view on a terminal (docs/manual.md: *The screen*): redrawn at every status window and at
/// once after a key, a note or an error.
public final class ScreenSink: OutputSink {
    private let painter: ScreenPainter
    private let overview: WaveformOverview
    private let keyHelp: String
    private var last: StatusSnapshot?
    private var message: (text: String, isError: Bool, until: Date)?
    private var showHelp = false

    public init(path: String, keyHelp: String) {
        painter = ScreenPainter()
        overview = WaveformOverview()
        self.keyHelp = keyHelp
        overview.start(path: path)
        painter.begin()
    }

    public func status(_ snapshot: StatusSnapshot, force: Bool) {
        last = snapshot
        redraw()
    }

    public func event(_ event: PlayerEvent) {
        if let note = event.note { show(note, isError: false) }
    }

    public func note(_ text: String) { show(text, isError: false) }
    public func error(_ text: String, source: CommandSource) { show(text, isError: true) }

    public func showKeys(_ help: String) {
        showHelp.toggle()
        redraw()
    }

    public func close() {
        painter.end()
        overview.cancel(waitingAtMost: 0.2)
    }

    private func show(_ text: String, isError: Bool) {
        message = (text, isError, Date().addingTimeInterval(5))
        redraw()
    }

    private func redraw() {
        guard let s = last else { return }
        if let current = message, current.until < Date() { message = nil }
        var screen = ScreenState()
        screen.status = s
        (screen.overview, screen.overviewDone) = overview.snapshot()
        screen.message = message?.text
        screen.messageIsError = message?.isError ?? false
        if message == nil, let learning = s.learning {
            screen.message = "MIDI learn: press the pedal or key for '\(learning.name)' (m: next action, M: stop)"
        }
        screen.showHelp = showHelp
        screen.keyHelp = keyHelp
        let size = painter.size
        painter.draw(Screen.render(screen, width: size.columns, color: painter.color, height: size.rows))
    }
}

/// `--status auto` without a screen (`TERM=dumb`, or stderr not a terminal): one status line,
/// redrawn in place with a carriage return on a terminal; notes and errors as lines on stderr.
public final class StatusLineSink: OutputSink {
    private var lastLength = 0

    public init() {}

    public func status(_ s: StatusSnapshot, force: Bool) {
        guard Terminal.stderrIsTerminal || force else { return }
        let symbol = s.state == "playing" ? "▶" : (s.state == "paused" ? "‖" : (s.state == "ended" ? "■" : "…"))
        let loop = s.loopOn ? "  ⟲ \(s.time(s.a)) – \(s.time(s.b)) ×\(s.passes)" + (s.loopCache == .replay ? " replayed" : "") : ""
        let stretch = s.rate != 1 || s.pitch != 0 ? "  \(Int((s.rate * 100).rounded())) %" + (s.pitch != 0 ? " \(s.pitch > 0 ? "+" : "")\(s.pitch) st" : "") : ""
        let waiting = s.state == "waiting for transport" ? "  waiting for transport" : ""
        let text = "\(symbol) \(s.time(s.frame)) / \(s.time(s.duration))\(stretch)\(loop)\(waiting)  vol \(Volume.describe(s.volume))  underruns \(s.underruns)   (? keys)"
        if Terminal.stderrIsTerminal {
            Console.writeErr("\r" + text + String(repeating: " ", count: max(0, lastLength - text.count)))
            lastLength = text.count
        } else {
            Console.writeErr(text + "\n")
        }
    }

    public func event(_ event: PlayerEvent) {
        if let note = event.note { self.note(note) }
    }

    public func note(_ text: String) {
        clear()
        Console.note(text)
    }

    public func error(_ text: String, source: CommandSource) {
        clear()
        Console.error(text)
    }

    public func showKeys(_ help: String) {
        clear()
        Console.writeErr(help + "\n")
    }

    public func close() { clear() }

    private func clear() {
        if lastLength > 0 && Terminal.stderrIsTerminal {
            Console.writeErr("\r" + String(repeating: " ", count: lastLength) + "\r")
            lastLength = 0
        }
    }
}
