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

    init(command: String, width: Int = 100, height: Int = 20) throws {
        let status = Self.tmux("new-session -d -s \(name) -x \(width) -y \(height) \(Self.quote(command)) >/dev/null")
        try #require(status == 0, "tmux could not start a session")
    }

    func keys(_ keys: String...) throws {
        _ = Self.tmux("send-keys -t \(name) " + keys.map(Self.quote).joined(separator: " ") + " >/dev/null")
    }

    func screen() throws -> String {
        _ = Self.tmux("capture-pane -p -t \(name) > \(screenFile)")
        return (try? String(contentsOfFile: screenFile, encoding: .utf8)) ?? ""
    }

    /// Whether the pane shows the alternate screen (a full-screen program's) now.
    func alternateScreenOn() -> Bool {
        _ = Self.tmux("display-message -p -t \(name) '#{alternate_on}' > \(screenFile)")
        return ((try? String(contentsOfFile: screenFile, encoding: .utf8)) ?? "").hasPrefix("1")
    }

    /// Polls the screen until it contains `text` (5 s at most).
    func waitFor(_ text: String) throws -> Bool {
        for _ in 0..<200 {
            if try screen().contains(text) { return true }
            usleep(25_000)
        }
        return false
    }

    deinit {
        _ = Self.tmux("kill-session -t \(name) >/dev/null")
        try? FileManager.default.removeItem(atPath: screenFile)
    }
}

/// Waits for a file a finished shell command writes, and returns it.
private func waitForResult(_ path: String) throws -> String {
    for _ in 0..<400 where !FileManager.default.fileExists(atPath: path) { usleep(25_000) }
    usleep(100_000)
    return try String(contentsOfFile: path, encoding: .utf8)
}

extension JackSuites {
    @Suite("The screen on a real terminal (tmux)")
    struct TerminalTests {
        @Test("the screen shows meters and follows the keys; q restores the terminal and leaves the alternate screen")
        func keysAndRestore() throws {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "install tmux (scripts/setup does)")
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 30, channels: 2, format: .wav16)
            // Subtitles beside the recording: found without --subs; n moves to the next line.
            try "1\n00:00:00,000 --> 00:00:20,000\nLa première ligne\n\n2\n00:00:20,000 --> 00:00:30,000\n日本語の二行目です\n"
                .write(toFile: scratch.file("ramp.srt"), atomically: true, encoding: .utf8)
            let result = scratch.file("result.txt")
            let command = "cd \(scratch.path) && XDG_STATE_HOME=\(scratch.path)/state \(repeaterPath) play ramp.wav --server \(server.name) --connect none; "
                + "echo exit=$? > \(result); stty -a >> \(result)"
            let session = try TmuxSession(command: command, width: 80, height: 32)
            #expect(try session.waitFor("▶ playing"), "no screen")
            #expect(try session.waitFor("L ▕") && session.screen().contains("R ▕"), "no meters: \((try? session.screen()) ?? "")")
            #expect(session.alternateScreenOn())
            let first = try session.screen()
            #expect(first.split(separator: "\n").allSatisfy { $0.count <= 80 })
            try session.keys("Up")
            #expect(try session.waitFor("volume +1.0 dB"), "↑ did not raise the volume: \((try? session.screen()) ?? "")")
            try session.keys("Down", "Down", "(", "(")
            #expect(try session.waitFor("volume -1.0 dB"))
            #expect(try session.waitFor("pan L 20"), "( did not pan: \((try? session.screen()) ?? "")")
            usleep(300_000)
            try session.keys("a")
            usleep(300_000)
            try session.keys("b")
            #expect(try session.waitFor("⟲"), "the loop did not turn on")
            try session.keys("N")
            #expect(try session.waitFor("[1 loop 1]"), "N did not name the loop: \((try? session.screen()) ?? "")")
            try session.keys("l")
            #expect(try session.waitFor("loop off"), "l did not turn the loop off")
            try session.keys("1")
            #expect(try session.waitFor("⟲"), "1 did not bring the named loop back")
            try session.keys("s")
            #expect(try session.waitFor("saved the session"), "s did not save")
            #expect(try session.waitFor("1/2  La première ligne") && session.screen().contains("next: 日本語の二行目です"), "no line text: \((try? session.screen()) ?? "")")
            try session.keys("n")
            #expect(try session.waitFor("2/2  日本語の二行目です"), "n did not move to the next line: \((try? session.screen()) ?? "")")
            try session.keys("?")
            #expect(try session.waitFor("pitch −/+1 semitone"), "? did not show the keys")
            try session.keys("q")
            let text = try waitForResult(result)
            #expect(text.hasPrefix("exit=0"), "\(text)")
            #expect(text.contains(" icanon") && text.contains(" echo "), "terminal left in raw mode: \(text)")
            #expect(!session.alternateScreenOn(), "still on the alternate screen after q")
            #expect(try !session.screen().contains("L ▕"), "the screen was not cleared away")
        }

        @Test("TERM=dumb: the one-line status redrawn with a carriage return instead of the screen, no alternate screen")
        func dumbTerminal() throws {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "install tmux (scripts/setup does)")
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 30, channels: 2, format: .wav16)
            // Subtitles beside the recording: found without --subs; n moves to the next line.
            try "1\n00:00:00,000 --> 00:00:20,000\nLa première ligne\n\n2\n00:00:20,000 --> 00:00:30,000\n日本語の二行目です\n"
                .write(toFile: scratch.file("ramp.srt"), atomically: true, encoding: .utf8)
            let result = scratch.file("result.txt")
            let command = "cd \(scratch.path) && XDG_STATE_HOME=\(scratch.path)/state TERM=dumb \(repeaterPath) play ramp.wav --server \(server.name) --connect none; "
                + "echo exit=$? > \(result)"
            let session = try TmuxSession(command: command, width: 100)
            #expect(try session.waitFor("(? keys)"), "no status line: \((try? session.screen()) ?? "")")
            let screen = try session.screen()
            #expect(screen.contains("▶ 0:0") && !screen.contains("L ▕"), "\(screen)")
            #expect(screen.split(separator: "\n").filter { $0.contains("(? keys)") }.count == 1, "the line scrolled: \(screen)")
            #expect(!session.alternateScreenOn())
            try session.keys("q")
            #expect(try waitForResult(result).hasPrefix("exit=0"))
        }

        @Test("SIGTERM restores the terminal too")
        func sigtermRestores() throws {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "install tmux (scripts/setup does)")
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeRamp(path: scratch.file("ramp.wav"), frames: 48_000 * 30, channels: 1, format: .wav16)
            let result = scratch.file("result.txt"), pidFile = scratch.file("pid")
            // The player execs in a shell that wrote its PID first, so the PID is the player's.
            let command = "cd \(scratch.path) && XDG_STATE_HOME=\(scratch.path)/state sh -c 'echo $$ > \(pidFile); exec \(repeaterPath) play ramp.wav --server \(server.name) --connect none'; "
                + "echo exit=$? > \(result); stty -a >> \(result)"
            let session = try TmuxSession(command: command, width: 60)
            #expect(try session.waitFor("L ▕"), "no screen: \((try? session.screen()) ?? "")")
            let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            kill(pid, SIGTERM)
            let text = try waitForResult(result)
            #expect(text.hasPrefix("exit=0"), "\(text)")
            #expect(text.contains(" icanon") && text.contains(" echo "), "terminal left in raw mode: \(text)")
            #expect(!session.alternateScreenOn(), "still on the alternate screen after SIGTERM")
        }
    }
}
