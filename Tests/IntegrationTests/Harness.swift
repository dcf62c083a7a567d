import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// Where `swift build` put the executables and the preload library.
let productsDirectory: String = {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        if FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("repeater").path) { return directory.path }
        directory = directory.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug").path
}()

let repeaterPath = productsDirectory + "/repeater"
let capturePath = productsDirectory + "/repeater-capture"

/// A private jackd for one test, from a small fixed pool of names (never a fresh name per run: a
/// server that dies uncleanly holds one of JACK's 8 registry slots). Stopped by SIGTERM and a wait.
final class TestServer {
    static let pool = ["repeater-test-0", "repeater-test-1", "repeater-test-2", "repeater-test-3"]
    let process: JackServerProcess
    private let lock: Int32
    var name: String { process.name }
    /// A capture client name unique to this server's user.
    let captureName = "cap\(UInt32.random(in: 1000...9999))"

    /// Takes the first pool name whose lock file is free (tests of other suites, or another run of
    /// the suite, hold theirs), so that two tests never start a server of the same name.
    /// `realtime`: `jackd -R` (the process threads get SCHED_FIFO), as a studio runs it and as the
    /// bit-exact and frame-exact checks need: an unprioritized dummy server on two cores busy with a
    /// build skips cycles now and then, and an xrun loses frames between any clients (CI caught it
    /// twice). `false` for what is about the plain server (doctor's warning, the allocation run).
    init(realtime: Bool = true) throws {
        var lastError: Error = RepeaterError(.jackUnavailable, "every test server name is in use")
        for name in Self.pool {
            let fd = open(NSTemporaryDirectory() + "\(name).lock", O_CREAT | O_RDWR, 0o644)
            guard fd >= 0 else { continue }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { close(fd); continue }
            do {
                process = try JackServerProcess(name: name, backend: .dummy(sampleRate: 48000, period: 256), realtime: realtime)
                lock = fd
                return
            } catch {
                lastError = error
                close(fd)
            }
        }
        throw lastError
    }

    deinit {
        process.stop()
        close(lock)  // releases the lock
    }
}

/// Every suite that runs a jackd lives in here: one server at a time. On two cores, several dummy
/// servers running at once (without real-time scheduling) starve each other and drop cycles, which a
/// bit-exact capture would report as a mismatch that has nothing to do with repeater.
@Suite(.serialized) enum JackSuites {}

/// The outcome of running a program to its end.
struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// A child process with its output going to files (so a chatty child never blocks on a pipe).
final class Child {
    let process = Process()
    let directory: String
    let stdoutPath: String
    let stderrPath: String
    private let input = Pipe()

    /// A write to a child that has exited gets EPIPE (reported by `send`), not a SIGPIPE that would
    /// end the whole test run.
    private static let pipeSignalIgnored: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    init(_ path: String, _ arguments: [String], environment: [String: String] = [:], in directory: String) throws {
        Self.pipeSignalIgnored
        self.directory = directory
        let id = UUID().uuidString.prefix(8)
        stdoutPath = directory + "/stdout-\(id)"
        stderrPath = directory + "/stderr-\(id)"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        env["JACK_NO_START_SERVER"] = "1"
        // Each run keeps its per-file session apart (tests that resume pass their own).
        env["XDG_STATE_HOME"] = directory + "/state-\(id)"
        // … and its analyses (a test that reuses a cache passes its own).
        env["XDG_CACHE_HOME"] = directory + "/cache-\(id)"
        // … and its configuration (calibrations, MIDI bindings), shared by the players of one test
        // only: calibrations are kept per set of connections, and the tests' delay clients all go
        // by one name, so a calibration that failed took another test's round trip.
        env["XDG_CONFIG_HOME"] = directory + "/config"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = input
        try process.run()
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    /// The program's name, for messages.
    var name: String { process.executableURL?.lastPathComponent ?? "child" }

    /// Why the child is no longer there to talk to: "player exited with status S: <stderr>".
    var exitReport: String {
        let status = process.isRunning ? "still running" : "exited with status \(process.terminationStatus)"
        let tail = stderr.split(separator: "\n").suffix(5).joined(separator: " | ")
        return "\(name == "repeater" ? "player" : name) \(status): \(tail.isEmpty ? "(nothing on stderr)" : tail)"
    }

    /// Sends one line to the child's stdin. A child that has exited (its stdin closed) is reported
    /// once as an issue of the test, with its status and stderr, and the test goes on: a closed
    /// pipe never ends the test run.
    func send(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            if !reportedExit {
                reportedExit = true
                Issue.record("could not send '\(line)': \(exitReport)", sourceLocation: sourceLocation)
            }
        }
    }
    private var reportedExit = false
    func closeInput() { try? input.fileHandleForWriting.close() }
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits until `predicate` holds on stdout (polling), or `timeout` seconds pass. A child that
    /// exits before it holds is reported as an issue with its status and stderr.
    func waitForOutput(timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(stdout) { return true }
            if !process.isRunning {
                if predicate(stdout) { return true }
                if !reportedExit {
                    reportedExit = true
                    Issue.record("waited for output in vain: \(exitReport)", sourceLocation: sourceLocation)
                }
                return false
            }
            usleep(20_000)
        }
        return false
    }

    /// Waits for the exit; after `timeout` seconds the child gets SIGTERM and the outcome says 124.
    func finish(timeout: Double = 30) -> Outcome {
        closeInput()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            signal(SIGTERM)
            process.waitUntilExit()
            return Outcome(status: 124, stdout: stdout, stderr: stderr)
        }
        return Outcome(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}

/// Runs a program to its end.
func run(_ path: String, _ arguments: [String], environment: [String: String] = [:], in directory: String,
         timeout: Double = 30) throws -> Outcome {
    try Child(path, arguments, environment: environment, in: directory).finish(timeout: timeout)
}

/// Captures what `repeater play` sends: starts `repeater-capture` (with its log), runs the player
/// connected to it, then stops the capture and returns what it recorded (planar) and what the graph
/// reported losing between the two (`GraphLosses`), for `expectExactlyOnce` to allow for.
func captureRun(server: TestServer, ports: Int, playArguments: [String], scratch: ScratchDirectory,
                environment: [String: String] = [:]) throws -> (outcome: Outcome, channels: [[Float]], losses: GraphLosses) {
    let capture = try Child(capturePath, ["--server", server.name, "--name", server.captureName, "--ports", "\(ports)",
                                          "--out", scratch.file("capture.wav"), "--seconds", "30", "--log", scratch.file("capture.log")],
                            in: scratch.path)
    try #require(capture.waitForOutput { $0.contains("ready") }, "capture client did not start: \(capture.stderr)")
    let outcome = try run(repeaterPath, ["play"] + playArguments + ["--server", server.name, "--connect", "\(server.captureName):in_", "--status", "none"],
                          environment: environment, in: scratch.path)
    capture.signal(SIGTERM)
    let captured = capture.finish(timeout: 10)
    try #require(captured.status == 0, "capture failed: \(captured.stderr)")
    let (info, samples) = try readAll(scratch.file("capture.wav"))
    let channels = (0..<info.channelCount).map { channel in
        stride(from: channel, to: samples.count, by: info.channelCount).map { samples[$0] }
    }
    return (outcome, channels, GraphLosses(logPath: scratch.file("capture.log")))
}

/// Starts `repeater-capture` on `server` with ports in_1…in_`ports` (and, with `log`, its
/// first-frame time and transport changes in scratch's capture.log), and waits until it is ready.
func startCapture(server: TestServer, scratch: ScratchDirectory, ports: Int = 2, log: Bool = false, seconds: Int = 30) throws -> Child {
    var arguments = ["--server", server.name, "--name", server.captureName, "--ports", "\(ports)",
                     "--out", scratch.file("capture.wav"), "--seconds", "\(seconds)"]
    if log { arguments += ["--log", scratch.file("capture.log")] }
    let capture = try Child(capturePath, arguments, in: scratch.path)
    try #require(capture.waitForOutput { $0.contains("ready") }, "capture client did not start: \(capture.stderr)")
    return capture
}

/// A private, headless PipeWire for one test: `pipewire` with a runtime folder of its own (0700),
/// its dummy driver clocking the graph (quantum 1024 by default), no session manager. JACK clients
/// run on it under `pw-jack`. Stopped by one SIGTERM and a wait.
final class PipeWireServer {
    let runtime: String
    private var process: GuardedProcess?

    /// Whether a private PipeWire starts on this machine (tried once).
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/pw-jack") else { return false }
        guard let server = try? PipeWireServer() else { return false }
        server.stop()
        return true
    }()

    init() throws {
        runtime = NSTemporaryDirectory() + "repeater-pw-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Under a guardian, like the test jackd: a crashed test leaves no pipewire running, and
        // (`stopScript`) none of its clients either.
        let process = try GuardedProcess(path: "/bin/sh", arguments: ["-c", Self.stopScript, "repeater-pw", runtime],
                                         outputPath: "/dev/null")
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: runtime + "/pipewire-0") {
            if Date() > deadline || !process.isRunning {
                stop()
                throw RepeaterError(.jackUnavailable, "pipewire did not start")
            }
            usleep(50_000)
        }
        usleep(300_000)
    }

    deinit { stop() }

    /// Runs pipewire on the runtime folder `$1`; on SIGTERM (`stop`, or the guardian when the test
    /// process ends in any way) first sends one SIGTERM to every process whose environment names
    /// that folder (the clients the tests started on it: players, captures, delay lines), then to
    /// pipewire, waits for it and removes the folder. PipeWire's JACK library does not tell its clients that the
    /// server has gone, as jackd's does: without this a test that died left them running. The
    /// folder's name is this process's and random, so only this server's clients match.
    static let stopScript = #"""
        rt="$1"
        XDG_RUNTIME_DIR="$rt" /usr/bin/pipewire &
        pw=$!
        stop() {
            for env in /proc/[0-9]*/environ; do
                pid=${env#/proc/}; pid=${pid%/environ}
                [ "$pid" = "$$" ] || [ "$pid" = "$pw" ] && continue
                if tr '\0' '\n' < "$env" 2>/dev/null | grep -qxF "XDG_RUNTIME_DIR=$rt"; then kill -TERM "$pid" 2>/dev/null; fi
            done
            kill -TERM "$pw"
            wait "$pw"
            rm -rf -- "$rt"
            exit 0
        }
        trap stop TERM
        wait "$pw"
        """#

    /// What a client needs to find this PipeWire.
    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime] }

    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.wait(timeout: 30)
        try? FileManager.default.removeItem(atPath: runtime)
    }
}

/// The JSON objects in a player's stdout, in order.
func jsonLines(_ stdout: String) -> [[String: Any]] {
    stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// The periodic status lines in a player's stdout (events carry an "event" field, and some of them,
/// the map's and the drill's, a "state" too: they are left out).
func statusLines(_ stdout: String) -> [[String: Any]] { jsonLines(stdout).filter { $0["event"] == nil && $0["state"] != nil } }

/// The JSON events named `name` in a player's stdout, in order.
func events(_ stdout: String, _ name: String) -> [[String: Any]] { jsonLines(stdout).filter { $0["event"] as? String == name } }

/// The JSON events named `event` in a player's stdout, in order.
func jsonEvents(_ text: String, _ event: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        guard line.contains("\"event\":\"\(event)\"") else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }
}

/// What `boundSockets` looks for.
enum SocketKind {
    case udp
    case tcpListening
}

/// The UDP sockets, or the listening TCP sockets, process `pid` holds, as `127.0.0.1:9000` /
/// `[::1]:9000`: its descriptors' socket inodes looked up in /proc/net/udp{,6} or /proc/net/tcp{,6}
/// (what the kernel says is bound, whatever the program thinks it asked for).
func boundSockets(of pid: Int32, kind: SocketKind) -> [String] {
    let folder = "/proc/\(pid)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let inodes = Set(names.compactMap { name -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name), target.hasPrefix("socket:[") else { return nil }
        return String(target.dropFirst(8).dropLast())
    })
    let tables = kind == .udp ? [("/proc/net/udp", false), ("/proc/net/udp6", true)] : [("/proc/net/tcp", false), ("/proc/net/tcp6", true)]
    var found: [String] = []
    for (file, v6) in tables {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, inodes.contains(String(fields[9])), kind == .udp || fields[3] == "0A" else { continue }  // 0A: LISTEN
            let local = fields[1].split(separator: ":")
            guard local.count == 2, let port = Int(local[1], radix: 16) else { continue }
            let address = procAddress(String(local[0]), v6: v6)
            found.append((v6 ? "[\(address)]" : address) + ":\(port)")
        }
    }
    return found.sorted()
}

/// An address as /proc/net/udp* and tcp* print it: 32-bit words in the host's (little-endian) order.
private func procAddress(_ hex: String, v6: Bool) -> String {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while let next = hex.index(index, offsetBy: 8, limitedBy: hex.endIndex), index < hex.endIndex {
        let word = UInt32(hex[index..<next], radix: 16) ?? 0
        bytes += [UInt8(word & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word >> 16 & 0xFF), UInt8(word >> 24)]
        index = next
    }
    var text = [CChar](repeating: 0, count: 64)
    _ = inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, &text, 64)
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// CPU time (s) of the thread of `pid` named `name`, from /proc (utime + stime).
func threadCPUSeconds(pid: Int32, name: String) -> Double? {
    let folder = "/proc/\(pid)/task"
    for task in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
        guard let comm = try? String(contentsOfFile: "\(folder)/\(task)/comm", encoding: .utf8),
              comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
              let stat = try? String(contentsOfFile: "\(folder)/\(task)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")  // state is field 3: index 0 here
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
    return nil
}

/// Counts, in the new part of a growing file, lines that contain a text (the player's stdout).
final class LineWatcher {
    private let handle: FileHandle
    private var pending = Data()
    private let needle: Data
    private(set) var count = 0

    init(path: String, needle: String) throws {
        handle = try #require(FileHandle(forReadingAtPath: path))
        self.needle = Data(needle.utf8)
        _ = handle.readDataToEndOfFile()  // what is there already does not count
    }

    /// Reads what was appended; the count of whole lines with the needle so far.
    func update() -> Int {
        pending += handle.readDataToEndOfFile()
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            if pending[pending.startIndex..<newline].range(of: needle) != nil { count += 1 }
            pending = Data(pending[(newline + 1)...])
        }
        return count
    }
}

/// A flood beside a player: `send(index)` `perSecond` times a second for 5 s on a thread of its own,
/// while `transport off` on stdin is timed, every 150 ms, from its writing to its event (the
/// control thread's answer). What was sent, what `send` said failed, how long it took, the latencies.
func floodTimingStdin(_ player: Child, perSecond: Int = 10_000, send: @escaping @Sendable (Int) -> Bool) throws -> (sent: Int, failed: Int, seconds: Double, latencies: [Double]) {
    nonisolated(unsafe) var sent = 0, failed = 0
    nonisolated(unsafe) var sendingSeconds = 0.0
    let sending = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        let start = Date()
        while true {
            let elapsed = Date().timeIntervalSince(start)
            guard elapsed < 5 else { break }
            while sent < Int(elapsed * Double(perSecond)) {
                if !send(sent) { failed += 1 }
                sent += 1
            }
            usleep(500)
        }
        sendingSeconds = Date().timeIntervalSince(start)
        sending.signal()
    }
    let watcher = try LineWatcher(path: player.stdoutPath, needle: "\"event\":\"transport-mode\"")
    var latencies: [Double] = []
    let floodEnd = Date().addingTimeInterval(4.8)
    usleep(200_000)
    while Date() < floodEnd {
        let expected = watcher.count + 1
        let written = Date()
        player.send("transport off")
        while watcher.update() < expected, Date().timeIntervalSince(written) < 2 { usleep(500) }
        latencies.append(Date().timeIntervalSince(written))
        usleep(150_000)
    }
    sending.wait()
    return (sent, failed, sendingSeconds, latencies)
}

/// Four seconds (by default) of 16-bit white noise at 48 kHz, the same every time: material whose
/// every 64-frame window stands in one place only, for captures compared frame by frame.
func writeNoise(_ path: String, seconds: Int = 4) throws {
    var state: UInt32 = 2024
    let samples = (0..<(48_000 * seconds)).map { _ -> Float in
        state = state &* 1_103_515_245 &+ 12_345
        return Float(Int16(truncatingIfNeeded: state >> 8) / 4) / 32_768
    }
    let writer = try AudioFileWriter(path: path, format: .wav16, sampleRate: 48_000, channelCount: 1)
    try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
    writer.close()
}
