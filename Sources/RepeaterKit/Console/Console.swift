import Foundation

/// Human-facing output: one line per message on stderr, prefixed with the program name.
public enum Console {
    public static func error(_ message: String) { writeErr("repeater: error: \(message)\n") }
    public static func warning(_ message: String) { writeErr("repeater: warning: \(message)\n") }
    public static func note(_ message: String) { writeErr("repeater: \(message)\n") }

    public static func writeErr(_ text: String) { writeAll(2, text) }
    public static func writeOut(_ text: String) { writeAll(1, text) }

    /// Plain write(2): a reader that went away (EPIPE; SIGPIPE is ignored) costs the output, not the run.
    private static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}

/// How the player reports its state while it runs.
public enum StatusMode: String, Sendable {
    /// A status line redrawn on the terminal (stderr), when there is one; otherwise nothing.
    case auto
    /// One JSON object per line on stdout: periodic status and events.
    case json
    /// A compact human line per update on stdout.
    case lines
    /// Nothing periodic (events still print in json mode only).
    case none
}
