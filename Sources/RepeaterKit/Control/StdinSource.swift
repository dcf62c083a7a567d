import Foundation
import RepeaterEngine

/// Standard input as a source: keys on a terminal (`KeyMap`), else the line protocol (docs/manual.md:
/// *Stdin protocol*). It only turns bytes into commands for the dispatcher.
final class StdinSource {
    enum Outcome {
        case nothing
        /// Keys were pressed (the screen redraws at once).
        case keys
        case quit
    }

    let isTerminal: Bool
    private let quitOnEOF: Bool
    private(set) var isOpen = true
    private var pending: [UInt8] = []

    init(isTerminal: Bool, quitOnEOF: Bool) {
        self.isTerminal = isTerminal
        self.quitOnEOF = quitOnEOF
    }

    /// Reads what stdin has (without waiting) and hands the commands to `sink`.
    func poll(into sink: any CommandSink) -> Outcome {
        guard isOpen else { return .nothing }
        var probe = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&probe, 1, 0) > 0 else { return .nothing }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(0, &buffer, buffer.count)
        if count <= 0 {
            isOpen = false
            return quitOnEOF ? .quit : .nothing
        }
        let bytes = Array(buffer[0..<count])
        if isTerminal {
            for key in Key.decode(bytes) {
                if let action = KeyMap.command(for: key), sink.submit(Command(action, source: .key)) { return .quit }
            }
            return .keys
        }
        pending += bytes
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            pending.removeSubrange(...newline)
            if line.isEmpty || line.hasPrefix("#") { continue }
            do {
                if sink.submit(Command(try ControlCommand(line: line), source: .stdin)) { return .quit }
            } catch {
                sink.reject(error.message, source: .stdin, reply: nil)
            }
        }
        return .nothing
    }
}

/// The MIDI port as a source: the audio thread reads the pedal at its frame and reports each press;
/// this hands the reports to the dispatcher (which learns, or acts on what the audio thread left
/// to it).
final class MIDISource {
    private let engine: Engine
    private let dispatcher: Dispatcher

    init(engine: Engine, dispatcher: Dispatcher) {
        self.engine = engine
        self.dispatcher = dispatcher
    }

    /// True for quit (a pedal bound to nothing can't quit; kept for symmetry with the other sources).
    func poll() -> Bool {
        while let report = engine.midiReports.pop() {
            if dispatcher.midiReport(report) { return true }
        }
        return false
    }
}
