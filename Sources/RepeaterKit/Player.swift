import CRepeaterSupport
import Foundation
import RepeaterEngine

/// Everything `repeater play` is told on the command line.
public struct PlayOptions: Sendable {
    public var path: String
    public var serverName: String?
    public var clientName = "repeater"
    public var connect: ConnectMode = .auto
    public var from: TimeSpec?
    public var startServer = false
    public var verbose = false
    public var status: StatusMode = .auto
    public var statusHz = 10.0
    public var quitOnEOF = false

    public init(path: String) { self.path = path }
}

/// The control thread of `repeater play`: owns the file, the engine, the disk reader and the JACK
/// client; turns keys, stdin lines and signals into engine commands; prints status and events.
public final class Player {
    private let options: PlayOptions
    private let file: AudioFile
    private let engine: Engine
    private let reader: DiskReader
    private var server: JackServerProcess?
    private var client: JackClient?
    private let terminal = Terminal()
    private var stdinOpen = true
    private var pendingInput: [UInt8] = []
    private var finishedCycle = -1
    private var lastStatusLineLength = 0

    /// Opens the file and checks the options; nothing touches JACK yet.
    public init(options: PlayOptions) throws(RepeaterError) {
        self.options = options
        file = try AudioFile(path: options.path)
        let info = file.info
        var startFrame = 0
        if let from = options.from {
            startFrame = from.frame(atRate: info.sampleRate)
            guard startFrame < info.frameCount else {
                throw .input("--from \(formatTime(frame: startFrame, sampleRate: info.sampleRate)) is past the end of '\(info.path)' (\(formatTime(frame: info.frameCount, sampleRate: info.sampleRate)))")
            }
        }
        engine = Engine(.init(channelCount: info.channelCount, startFrame: startFrame))
        reader = DiskReader(file: file, engine: engine)
    }

    /// Plays until the end, `q`/`quit`, or a signal. Returns the exit code.
    public func run() throws(RepeaterError) -> Int32 {
        let info = file.info
        if let promised = info.headerFrameCount {
            Console.warning("'\(info.path)' is cut short: its header promises \(formatTime(frame: promised, sampleRate: info.sampleRate)), the file holds \(formatTime(frame: info.frameCount, sampleRate: info.sampleRate)); playing what is there")
        }
        JackClient.setVerbose(options.verbose)
        if repeater_signals_install() != 0 { throw RepeaterError(.failure, "cannot install signal handlers") }
        if options.startServer {
            server = try startPrivateServer()
        }
        defer { shutDown() }
        let client = try JackClient(clientName: options.clientName, serverName: server?.name ?? options.serverName)
        self.client = client
        if client.sampleRate != info.sampleRate {
            Console.warning("'\(info.path)' is \(info.sampleRate) Hz but JACK runs at \(client.sampleRate) Hz: it plays \(String(format: "%.3f", Double(client.sampleRate) / Double(info.sampleRate)))x fast until resampling is added")
        }
        try client.registerOutputs(count: info.channelCount)
        reader.fill()  // the ring is full before the first cycle
        Engine.warmUpRuntime()  // the Swift runtime's first-use work happens here, not on the audio thread
        client.attach(engine: engine)
        _ = repeater_rtprobe_init()
        try client.activate()
        for warning in client.connect(options.connect) { Console.warning(warning) }
        reader.start()
        if Terminal.stdinIsTerminal { terminal.enterRawMode() }
        if options.status == .json {
            var line = JSONLine()
            line.add("event", "start")
            line.add("file", info.path)
            line.add("client", client.name)
            line.add("sample_rate", client.sampleRate)
            line.add("channels", info.channelCount)
            line.add("frames", info.frameCount)
            emit(line)
        }
        return try loop(client: client)
    }

    private func startPrivateServer() throws(RepeaterError) -> JackServerProcess {
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

    private func loop(client: JackClient) throws(RepeaterError) -> Int32 {
        let statusInterval = options.statusHz > 0 ? 1.0 / options.statusHz : 1.0
        var nextStatus = Date()
        while true {
            waitForInput(timeoutMilliseconds: 20)
            if repeater_signal_take() != 0 { return 0 }
            if client.notifications.serverShutdown.load(ordering: .relaxed) {
                throw RepeaterError(.jackShutdown, "the JACK server shut down; stopping")
            }
            if readInput() { return 0 }
            drainEvents()
            if finishedCycle >= 0 && engine.status.cycles.load(ordering: .relaxed) >= finishedCycle + 2 {
                return 0  // the last frame's cycle has completed downstream too
            }
            if Date() >= nextStatus {
                printStatus()
                nextStatus = Date().addingTimeInterval(statusInterval)
            }
        }
    }

    private func waitForInput(timeoutMilliseconds: Int32) {
        var fds = [pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)]
        if stdinOpen { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
    }

    /// Reads what stdin has; returns true when the user asked to quit.
    private func readInput() -> Bool {
        guard stdinOpen else { return false }
        var probe = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&probe, 1, 0) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(0, &buffer, buffer.count)
        if count <= 0 {
            stdinOpen = false
            return options.quitOnEOF
        }
        let bytes = Array(buffer[0..<count])
        if Terminal.stdinIsTerminal {
            for key in Key.decode(bytes) {
                if let command = command(for: key), perform(command) { return true }
            }
            return false
        }
        pendingInput += bytes
        while let newline = pendingInput.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pendingInput[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            pendingInput.removeSubrange(...newline)
            if line.isEmpty || line.hasPrefix("#") { continue }
            do {
                if perform(try ControlCommand(line: line)) { return true }
            } catch {
                reportError(error.message)
            }
        }
        return false
    }

    private func command(for key: Key) -> ControlCommand? {
        switch key {
        case .character("q"), .character("Q"): return .quit
        case .character(" "): return .toggle
        case .character("?"), .character("h"): return .help
        case .left: return .seekBy(-5)
        case .right: return .seekBy(5)
        default: return nil
        }
    }

    /// Applies a command; returns true for quit.
    private func perform(_ command: ControlCommand) -> Bool {
        let rate = file.info.sampleRate
        switch command {
        case .quit: return true
        case .play: send(.play)
        case .pause: send(.pause)
        case .toggle: send(.toggle)
        case .seek(let time):
            let frame = time.frame(atRate: rate)
            guard frame < file.info.frameCount else {
                reportError("seek \(formatTime(frame: frame, sampleRate: rate)) is past the end (\(formatTime(frame: file.info.frameCount, sampleRate: rate)))")
                return false
            }
            send(.seek(frame: frame))
        case .seekBy(let seconds):
            let target = audibleFrame + Int((seconds * Double(rate)).rounded())
            send(.seek(frame: min(max(0, target), file.info.frameCount - 1)))
        case .status: printStatus(force: true)
        case .help:
            clearStatusLine()
            Console.writeErr("keys: space play/pause · ←/→ seek 5 s · q quit · ? this help\n")
        }
        return false
    }

    private func send(_ command: EngineCommand) {
        if !engine.commands.push(command) { reportError("the audio thread is not taking commands (queue full)") }
    }

    /// The source frame the listener hears now: the playhead minus what is still queued downstream.
    private var audibleFrame: Int {
        let latency = client?.outputLatencyFrames ?? 0
        return max(0, engine.status.playheadFrame.load(ordering: .relaxed) - latency)
    }

    private func drainEvents() {
        while let event = engine.events.pop() {
            switch event {
            case .finished(let frame, let cycle, _):
                finishedCycle = cycle
                emitEvent("end") { $0.add("frame", frame) }
            case .seeked(let frame):
                emitEvent("seek") { $0.add("frame", frame); $0.add("pos_s", self.seconds(frame)) }
            case .underrun(let frame):
                emitEvent("underrun") { $0.add("frame", frame) }
            default:
                break
            }
        }
    }

    private func seconds(_ frame: Int) -> Double { Double(frame) / Double(file.info.sampleRate) }

    private func emitEvent(_ name: String, _ fill: (inout JSONLine) -> Void) {
        guard options.status == .json else { return }
        var line = JSONLine()
        line.add("event", name)
        fill(&line)
        emit(line)
    }

    private func emit(_ line: JSONLine) { Console.writeOut(line.text + "\n") }

    private func reportError(_ message: String) {
        if options.status == .json {
            var line = JSONLine()
            line.add("event", "error")
            line.add("message", message)
            emit(line)
        } else {
            clearStatusLine()
            Console.error(message)
        }
    }

    private func printStatus(force: Bool = false) {
        let info = file.info
        let frame = audibleFrame
        let playing = engine.status.playing.load(ordering: .relaxed)
        let underruns = engine.status.underruns.load(ordering: .relaxed)
        let state = finishedCycle >= 0 ? "ended" : (playing ? "playing" : "paused")
        switch options.status {
        case .json:
            var line = JSONLine()
            line.add("state", state)
            line.add("frame", frame)
            line.add("pos_s", seconds(frame))
            line.add("duration_s", seconds(info.frameCount))
            line.add("underruns", underruns)
            line.add("xruns", client?.notifications.xruns.load(ordering: .relaxed) ?? 0)
            emit(line)
        case .lines:
            Console.writeOut("\(state) \(formatTime(frame: frame, sampleRate: info.sampleRate)) / \(formatTime(frame: info.frameCount, sampleRate: info.sampleRate)) underruns \(underruns)\n")
        case .auto:
            guard Terminal.stderrIsTerminal || force else { return }
            let symbol = state == "playing" ? "▶" : (state == "paused" ? "⏸" : "■")
            let text = "\(symbol) \(formatTime(frame: frame, sampleRate: info.sampleRate)) / \(formatTime(frame: info.frameCount, sampleRate: info.sampleRate))  underruns \(underruns)   (? keys)"
            if Terminal.stderrIsTerminal {
                Console.writeErr("\r\u{1b}[K" + text)
                lastStatusLineLength = text.count
            } else {
                Console.writeErr(text + "\n")
            }
        case .none:
            if force { Console.writeOut("\(state) \(formatTime(frame: frame, sampleRate: info.sampleRate))\n") }
        }
    }

    private func clearStatusLine() {
        if lastStatusLineLength > 0 && Terminal.stderrIsTerminal {
            Console.writeErr("\r\u{1b}[K")
            lastStatusLineLength = 0
        }
    }

    /// The single way out: deactivate, join the disk thread, close, restore the terminal, stop a
    /// private server, and report what went wrong on the way.
    private func shutDown() {
        client?.deactivate()
        reader.stop()
        client?.close()
        client = nil
        terminal.restore()
        clearStatusLine()
        let underruns = engine.status.underruns.load(ordering: .relaxed)
        if underruns > 0 { Console.warning("\(underruns) underruns: the disk reader was late \(underruns) times") }
        server?.stop()
        server = nil
    }
}
