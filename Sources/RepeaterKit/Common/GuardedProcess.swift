import CRepeaterSupport
import Foundation

/// A child program under a guardian process (`repeater_spawn_guarded`): when this process ends in
/// any way, a crash included, the guardian sends the program one SIGTERM and waits for it. For the
/// private jackd of `--start-server` and of the tests: a server left running disturbs every later
/// run, and one killed uncleanly keeps a slot of JACK's 8-name registry.
public final class GuardedProcess: @unchecked Sendable {
    /// The program's process id (the one to signal).
    public let processIdentifier: Int32
    private let guardian: pid_t
    private var controlFD: Int32
    private var status: Int32?

    /// Starts `path` with `arguments`; its stdout and stderr go to `outputPath` (created or
    /// truncated), its stdin is /dev/null.
    public init(path: String, arguments: [String], outputPath: String) throws(RepeaterError) {
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw RepeaterError(.failure, "cannot write '\(outputPath)': \(String(cString: strerror(errno)))") }
        defer { close(output) }
        var cArguments: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var control: Int32 = -1
        var child: Int32 = -1
        let pid = repeater_spawn_guarded(path, &cArguments, output, &control, &child)
        guard pid > 0 else { throw RepeaterError(.failure, "cannot start \(path): \(String(cString: strerror(errno)))") }
        guardian = pid
        controlFD = control
        processIdentifier = child
    }

    deinit {
        if controlFD >= 0 { close(controlFD) }  // the guardian stops the program if it still runs
        _ = isRunning  // reap it if it is over
    }

    /// Whether the program still runs (its guardian ends within 0.1 s of it).
    public var isRunning: Bool {
        if status != nil { return false }
        var value: Int32 = 0
        let done = waitpid(guardian, &value, WNOHANG)
        if done == guardian || (done < 0 && errno == ECHILD) {
            status = done == guardian ? value : 0
            return false
        }
        return true
    }

    /// One SIGTERM to the program (while it runs: its pid cannot have been reused before its
    /// guardian reaped it, and the guardian ends right after).
    public func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    /// Waits up to `timeout` seconds for the program to end; true if it did.
    @discardableResult
    public func wait(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }
}
