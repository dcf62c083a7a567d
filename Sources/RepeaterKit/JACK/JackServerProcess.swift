import CJack
import Foundation

/// A private `jackd` started as a child process: for `--start-server` and for the tests.
///
/// It is stopped only by one SIGTERM and a wait (never SIGKILL, never by name): a jackd that dies
/// uncleanly keeps its slot in JACK's shared-memory registry, which has room for 8 server names.
/// It runs under a guardian (`GuardedProcess`), so that it is stopped so even when this process
/// crashes.
public final class JackServerProcess: @unchecked Sendable {
    public enum Backend: Equatable, Sendable {
        case dummy(sampleRate: Int, period: Int)
        case alsa(device: String, sampleRate: Int, period: Int)

        public var label: String {
            switch self {
            case .dummy(let rate, let period): return "dummy backend, \(rate) Hz, \(period) frames"
            case .alsa(let device, let rate, let period): return "ALSA \(device), \(rate) Hz, \(period) frames"
            }
        }
    }

    public let name: String
    public let backend: Backend
    public let logPath: String
    private let process: GuardedProcess

    /// Starts `jackd -n name` and waits (up to `timeout` seconds) until clients can connect.
    /// `realtime`: `jackd -R` (the process threads get SCHED_FIFO), for measuring headroom.
    public init(name: String, backend: Backend, realtime: Bool = false, timeout: Double = 15) throws(RepeaterError) {
        self.name = name
        self.backend = backend
        logPath = NSTemporaryDirectory() + "repeater-jackd-\(name).log"
        if JackServerProcess.isAnswering(name: name) {
            throw RepeaterError(.jackUnavailable, "a JACK server named '\(name)' is already running")
        }
        JackServerProcess.repairStale(name: name)
        var arguments = ["-n", name, realtime ? "-R" : "--no-realtime"]
        switch backend {
        case .dummy(let rate, let period):
            arguments += ["-d", "dummy", "-r", "\(rate)", "-p", "\(period)"]
        case .alsa(let device, let rate, let period):
            arguments += ["-d", "alsa", "-d", device, "-r", "\(rate)", "-p", "\(period)", "-P"]
        }
        guard let jackd = JackServerProcess.findJackd() else {
            throw RepeaterError(.jackUnavailable, "jackd is not installed: apt-get install jackd2")
        }
        do { process = try GuardedProcess(path: jackd, arguments: arguments, outputPath: logPath) } catch {
            throw RepeaterError(.jackUnavailable, "could not start jackd: \(error.message)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while !JackServerProcess.isAnswering(name: name) {
            if !process.isRunning || Date() > deadline {
                stop()
                let tail = (try? String(contentsOfFile: logPath, encoding: .utf8))?
                    .split(separator: "\n").last.map(String.init) ?? ""
                throw RepeaterError(.jackUnavailable, "jackd (\(backend.label)) did not start: \(tail)")
            }
            usleep(50_000)
        }
        if !process.isRunning {  // another jackd of this name answered, and ours gave up
            throw RepeaterError(.jackUnavailable, "a JACK server named '\(name)' is already running")
        }
    }

    deinit { stop() }

    public var processIdentifier: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// One SIGTERM, then a wait of up to `timeout` seconds (jackd takes ~6 s when a client died
    /// under it). Idempotent.
    public func stop(timeout: Double = 20) {
        guard process.isRunning else { return }
        process.terminate()
        if !process.wait(timeout: timeout) {
            let line = "repeater: jackd '\(name)' (pid \(process.processIdentifier)) did not stop within \(Int(timeout)) s; left running\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// True when a client can connect to the server `name` (checked without ever starting one).
    public static func isAnswering(name: String) -> Bool {
        guard let client = openJackClient(name: "repeater-probe", serverName: name).client else { return false }
        jack_client_close(client)
        return true
    }

    /// Files a jackd of this name leaves in /dev/shm when it dies uncleanly. With them present, a
    /// new server of the same name refuses to start ("server already active").
    public static func staleFiles(name: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []
        return names.filter { $0.hasPrefix("jack_\(name)_") || ($0.hasPrefix("jack_sem.") && $0.contains("_\(name)_")) }
            .map { "/dev/shm/" + $0 }
    }

    /// Removes the leftovers of a dead server of this name, when no process serves it. Starting and
    /// then cleanly stopping a server of that name afterwards frees its registry slot.
    public static func repairStale(name: String) {
        let files = staleFiles(name: name)
        guard !files.isEmpty, !isAnswering(name: name), !jackdProcessExists(name: name) else { return }
        for file in files { try? FileManager.default.removeItem(atPath: file) }
    }

    /// True when a jackd process serving `name` exists (whether or not it answers yet).
    public static func jackdProcessExists(name: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in entries where pid.allSatisfy(\.isNumber) {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let first = arguments.first, first.hasSuffix("jackd") || first.hasSuffix("jackdmp") else { continue }
            if let index = arguments.firstIndex(where: { $0 == "-n" || $0 == "--name" }), index + 1 < arguments.count,
               arguments[index + 1] == name { return true }
        }
        return false
    }

    static func findJackd() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/jackd"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// `--start-server`: a private server (ALSA with a sound card, else dummy) under a name from a
    /// small fixed pool, announced in one line.
    public static func startPrivate() throws(RepeaterError) -> JackServerProcess {
        // A fixed, small pool of names: a server that dies uncleanly keeps its name's slot in JACK's
        // 8-slot registry, so never a fresh name per run.
        let pool = (0..<4).map { "repeater-private-\($0)" }
        guard let name = pool.first(where: { !JackServerProcess.isAnswering(name: $0) && !JackServerProcess.jackdProcessExists(name: $0) }) else {
            throw RepeaterError(.jackUnavailable, "all private server names (repeater-private-0…3) are in use")
        }
        var backend = JackServerProcess.preferredBackend()
        do {
            let server = try JackServerProcess(name: name, backend: backend)
            Console.note("started a private JACK server '\(name)' (\(backend.label)); it stops when repeater exits")
            return server
        } catch {
            guard case .alsa = backend else { throw error }
            Console.warning("ALSA did not start (\(error.message)); using the dummy backend")
            backend = .dummy(sampleRate: 48000, period: 256)
            let server = try JackServerProcess(name: name, backend: backend)
            Console.note("started a private JACK server '\(name)' (\(backend.label)): silent, for trying repeater out")
            return server
        }
    }

    /// The backend `--start-server` uses: ALSA when the machine has a sound card, else dummy.
    public static func preferredBackend() -> Backend {
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        if cards.contains("[") { return .alsa(device: "hw:0", sampleRate: 48000, period: 256) }
        return .dummy(sampleRate: 48000, period: 256)
    }
}
