import CRepeaterSupport
import Foundation
import Synchronization

/// Standard output that never blocks the control thread.
///
/// A reader that stops reading (a script paused in a debugger, a full pipe) would otherwise stop the
/// control thread on `write`: keys, stdin, autosave and the chime would wait with it. Here the
/// control thread only queues; a writer thread of its own does the blocking writes. When the reader
/// lags:
/// - a status line replaces the one still waiting (the older one is dropped and counted; the next
///   JSON status line that gets through carries `dropped_lines`);
/// - events are kept, in order, up to `eventLimit` lines waiting, then dropped and counted (the next
///   JSON status line carries `dropped_events`);
/// - nothing else waits.
/// The queue is guarded by a mutex that neither side holds while writing or formatting, so the
/// control thread waits at most for a few pointer moves.
public final class StdoutWriter: @unchecked Sendable {
    private enum Entry: Sendable {
        case event(String)
        case status(JSONLine)
        case plain(String)
    }

    private struct Queue {
        var entries: [Entry] = []
        var waitingEvents = 0
        var droppedLines = 0
        var droppedEvents = 0
        var closed = false
        /// The writer thread is between taking entries and finishing their write.
        var writing = false
    }

    public let eventLimit: Int
    /// Entries written at once that count as a backlog worth giving back.
    static let backlogTrimEntries = 200
    private let fd: Int32
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let drained = DispatchSemaphore(value: 0)
    /// The writer thread was started (the Thread object itself is not kept: its block holds the
    /// writer, and keeping it here would make a cycle that outlives the run).
    private var started = false
    /// The reader went away (EPIPE): everything after is discarded.
    private let broken = Atomic<Bool>(false)

    public init(fd: Int32 = 1, eventLimit: Int = 10_000) {
        self.fd = fd
        self.eventLimit = eventLimit
    }

    /// Starts the writer thread on first use. It holds the writer until `finish` (the writer lives
    /// as long as the run, and a thread must never outlive what it reads).
    private func startIfNeeded() {
        guard !started else { return }
        started = true
        let thread = Thread { self.run() }
        thread.name = "repeater-stdout"
        thread.start()
    }

    /// A JSON status line (droppable; carries the drop counts when it gets through).
    public func statusLine(_ line: JSONLine) { enqueueStatus(.status(line)) }

    /// A plain status line (droppable).
    public func plainStatusLine(_ text: String) { enqueueStatus(.plain(text)) }

    /// An event line: kept up to `eventLimit` waiting, then dropped and counted.
    public func eventLine(_ text: String) {
        startIfNeeded()
        let accepted = queue.withLock { queue -> Bool in
            if queue.closed { return false }
            if queue.waitingEvents >= eventLimit {
                queue.droppedEvents += 1
                return false
            }
            queue.waitingEvents += 1
            queue.entries.append(.event(text))
            return true
        }
        if accepted { wake.signal() }
    }

    /// Lines dropped so far (status, events), for tests and the soak.
    public var dropped: (lines: Int, events: Int) { queue.withLock { ($0.droppedLines, $0.droppedEvents) } }

    /// On the way out: waits up to `timeout` seconds for what is queued to be written, then stops
    /// taking lines. A reader that does not read costs at most `timeout`, never a hang.
    public func finish(timeout: Double) {
        guard started else { return }
        let empty = queue.withLock { queue -> Bool in
            queue.closed = true
            return queue.entries.isEmpty && !queue.writing
        }
        wake.signal()
        if !empty { _ = drained.wait(timeout: .now() + timeout) }
    }

    private func enqueueStatus(_ entry: Entry) {
        startIfNeeded()
        queue.withLock { queue in
            if queue.closed { return }
            if let index = queue.entries.lastIndex(where: { if case .event = $0 { return false } else { return true } }) {
                queue.entries.remove(at: index)  // the reader has not taken the last one yet
                queue.droppedLines += 1
            }
            queue.entries.append(entry)
        }
        wake.signal()
    }

    private func run() {
        var reportedLines = 0, reportedEvents = 0
        while true {
            wake.wait()
            while true {
                let (taken, closed, lines, events) = queue.withLock { queue -> ([Entry], Bool, Int, Int) in
                    let taken = queue.entries
                    queue.entries.removeAll(keepingCapacity: true)
                    queue.waitingEvents = 0
                    queue.writing = !taken.isEmpty
                    return (taken, queue.closed, queue.droppedLines, queue.droppedEvents)
                }
                if taken.isEmpty {
                    if closed {
                        drained.signal()
                        return
                    }
                    break
                }
                var text = ""
                for entry in taken {
                    switch entry {
                    case .event(let line): text += line + "\n"
                    case .plain(let line): text += line + "\n"
                    case .status(var line):
                        if lines > reportedLines {
                            line.add("dropped_lines", lines - reportedLines)
                            reportedLines = lines
                        }
                        if events > reportedEvents {
                            line.add("dropped_events", events - reportedEvents)
                            reportedEvents = events
                        }
                        text += line.text + "\n"
                    }
                }
                if !broken.load(ordering: .relaxed), !write(text) { broken.store(true, ordering: .relaxed) }
                queue.withLock { $0.writing = false }
                // A backlog (the reader stalled) has been written: the memory it took goes back to
                // the system, or each longer stall would leave resident memory a step higher
                // (the soak's 1.2–1.5 MiB steps). Rare, and on this thread, never a real-time one.
                if taken.count >= Self.backlogTrimEntries { repeater_malloc_trim() }
            }
        }
    }

    /// Blocking write of all of `text`; false when the reader went away.
    private func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return false }
        }
        return true
    }
}
