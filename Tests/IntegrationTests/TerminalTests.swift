import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// Runs a shell command in a detached tmux session of its own (a real terminal), for key tests.
private final class TmuxSession {
    let name = "repeater-test-\(UInt32.random(in: 10000...99999))"
    private let screenFile = NSTemporaryDirectory() + "repeater-tmux-\(UInt32.random(in: 10000...99999)).txt"

    /// tmux is driven through system(3): its server daemonizes, and Foundation's Process then waits
    /// on it for far longer than the client lives.
    private static func tmux(_ arguments: String) -> Int32 {
        system("TERM=xterm tmux \(arguments) </dev/null 2>/dev/null")
    }

    private static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    init(command: String, width: Int = 100) throws {
        let status = Self.tmux("new-session -d -s \(name) -x \(width) -y 12 \(Self.quote(command)) >/dev/null")
        try #require(status == 0, "tmux could not start a session")
    }

    func keys(_ keys: String...) throws {
        _ = Self.tmux("send-keys -t \(name) " + keys.map(Self.quote).joined(separator: " ") + " >/dev/null")
    }

    func screen() throws -> String {
        _ = Self.tmux("capture-pane -p -t \(name) > \(screenFile)")
        return (try? String(contentsOfFile: screenFile, encoding: .utf8)) ?? ""
    }

    deinit {
        _ = Self.tmux("kill-session -t \(name) >/dev/null")
        try? FileManager.default.removeItem(atPath: screenFile)
    }
}

extension JackSuites {
    @Suite("Keys on a real terminal (tmux)")
    struct TerminalTests {
        @Test("a, b, l and q work on a terminal, and the terminal is restored after q")
        func keysAndRestore() throws {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "install tmux (scripts/setup does)")
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 30, channels: 2, format: .wav16)
            let result = scratch.file("result.txt")
            let command = "cd \(scratch.path) && \(repeaterPath) play ramp.wav --server \(server.name) --connect none; "
                + "echo exit=$? > \(result); stty -a >> \(result)"
            let session = try TmuxSession(command: command)
            func waitFor(_ text: String) throws -> Bool {
                for _ in 0..<200 {
                    if try session.screen().contains(text) { return true }
                    usleep(25_000)
                }
                return false
            }
            #expect(try waitFor("▶"), "no status line")
            usleep(300_000)
            try session.keys("a")
            usleep(300_000)
            try session.keys("b")
            #expect(try waitFor("⟲"), "the loop did not turn on")
            try session.keys("l")
            usleep(200_000)
            #expect(try !session.screen().contains("⟲"), "l did not turn the loop off")
            try session.keys("q")
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: result) { usleep(25_000) }
            usleep(100_000)
            let text = try String(contentsOfFile: result, encoding: .utf8)
            #expect(text.hasPrefix("exit=0"), "\(text)")
            #expect(text.contains(" icanon") && text.contains(" echo "), "terminal left in raw mode: \(text)")
        }
    }
}
