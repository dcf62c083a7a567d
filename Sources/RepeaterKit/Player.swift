import CRepeaterSupport
import Foundation
import RepeaterEngine

/// Everything `repeater play` is told on the command line.
public struct PlayOptions: Sendable {
    public var path: String
    public var serverName: String?
    public var clientName = "repeater"
    public var connect: ConnectMode = .auto
    public var sound = SoundOptions()
    public var chime = ChimeOptions()
    public var startServer = false
    public var verbose = false
    public var status: StatusMode = .auto
    public var statusHz = 10.0
    public var quitOnEOF = false
    /// What the meters show: the file's own level (pre) or what leaves the ports (post).
    public var meterStage: MeterStage = .post
    /// Which session to use, and `--fresh` (start over; a session file keeps its named loops).
    public var session: SessionChoice = .keyed
    public var fresh = false
    /// The sound options given on the command line (they win over the session's values).
    public var givenSoundOptions: Set<String> = []
    public var trainer: TrainerSpec?

    public init(path: String) { self.path = path }
}

/// Where the meters measure.
public enum MeterStage: String, Sendable {
    /// The file's own level, before volume and pan (as AVAudioPlayer reports it).
    case pre
    /// What leaves the ports, after volume and pan, the chime included.
    case post
}

/// The control thread of `repeater play`: owns the file, the engine, the disk reader and the JACK
/// client; turns keys, stdin lines and signals into engine commands; prints status and events.
public final class Player {
    let options: PlayOptions
    let file: AudioFile
    /// The sound at start: the session's, with the command line's options winning.
    let sound: SoundOptions
    private let configuration: Engine.Configuration
    // Made once the JACK server's rate is known (run()); the control thread only touches them after.
    private(set) var engine: Engine!
    private(set) var reader: DiskReader!
    private(set) var supply: StretcherSupply!
    private var server: JackServerProcess?
    var client: JackClient?
    private let terminal = Terminal()
    private var stdinOpen = true
    private var pendingInput: [UInt8] = []
    var finishedCycle = -1
    private var reportedLatency = 0
    var lastStatusLineLength = 0
    // meters, load and the screen (Player+Output.swift)
    var preMeters = LevelMeters(channelCount: 1)
    var postMeters = LevelMeters(channelCount: 1)
    var lastWindow = Date()
    var lastBusy = 0
    var lastPeriod = 0
    var load = (window: 0.0, peak: 0.0)
    var painter: ScreenPainter?
    var overview: WaveformOverview?
    var message: (text: String, isError: Bool, until: Date)?
    var showHelp = false
    // the session (Player+Session.swift)
    var session: Session
    let sessionPath: String?
    var lastSavedText: String?
    var lastSaveError: String?
    var backupOnFirstSave: Bool
    var nextAutosave = Date().addingTimeInterval(Player.autosaveInterval)
    var trainer: SpeedTrainer?
    var gapFrames = 0
    /// Why the run ends (the reason of the last save).
    var exitReason = "quit"
    /// Commands waiting for the engine to take the ones before them (Player+Commands.swift).
    var queuedCommands: [ControlCommand] = []
    var lastSentCycle = -1

    /// Opens the session and the file and checks the options; nothing touches JACK and nothing is
    /// written yet (a session that cannot be read is an error and stays as it is).
    public init(options: PlayOptions) throws(RepeaterError) {
        self.options = options
        let plan = try SessionPlan.resolve(options)
        file = try AudioFile(path: plan.audioPath)
        var session = plan.session
        try session.check(against: file.info, shown: "'\(plan.sessionPath ?? plan.audioPath)'")
        self.session = session
        sessionPath = plan.sessionPath
        backupOnFirstSave = plan.backupOnFirstSave
        trainer = options.trainer?.trainer ?? session.trainer
        sound = plan.sound(commandLine: options.sound, given: options.givenSoundOptions, trainer: options.trainer)
        var configuration = try sound.engineConfiguration(for: file.info)
        gapFrames = configuration.gapFrames
        configuration.chimeTempo = options.chime.tempo
        self.configuration = configuration
        // Load the gongs now, so that a bad gong file is an error before anything touches JACK.
        _ = try Gongs.bank(sampleRate: file.info.sampleRate, lowPath: options.chime.lowPath, highPath: options.chime.highPath)
    }

    /// The engine at the server's rate: a file at another rate is resampled by the stretcher.
    private func makeEngine(outputRate: Int) throws(RepeaterError) {
        var configuration = self.configuration
        configuration.sampleRate = outputRate
        configuration.startsHeld = true  // until the ports are connected: the first frame must reach them
        configuration.sourceSampleRate = file.info.sampleRate
        let engine = Engine(configuration, gongs: try Gongs.bank(sampleRate: outputRate, lowPath: options.chime.lowPath,
                                                                  highPath: options.chime.highPath))
        engine.controls.speed.store(sound.speed, ordering: .relaxed)
        engine.controls.pitchSemitones.store(sound.pitch, ordering: .relaxed)
        self.engine = engine
        preMeters = LevelMeters(channelCount: engine.channelCount)
        postMeters = LevelMeters(channelCount: engine.outputChannelCount)
        reader = DiskReader(file: file, engine: engine)
        // The stretcher is told the output rate even when it also resamples: R3 sizes its analysis
        // from it, and a 1 kHz tone from 44.1 kHz measured THD+N −88 dB this way against −76 dB when
        // told the file's rate.
        supply = StretcherSupply(engine: engine, kind: sound.stretcher, sampleRate: outputRate)
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
            server = try JackServerProcess.startPrivate()
        }
        defer { shutDown() }
        let client = try JackClient(clientName: options.clientName, serverName: server?.name ?? options.serverName)
        self.client = client
        try makeEngine(outputRate: client.sampleRate)
        try client.registerOutputs(count: engine.outputChannelCount)
        reader.fill()  // the ring is full before the first cycle
        supply.service()  // a primed stretcher is queued before the first cycle when --rate/--pitch ask
        Engine.warmUpRuntime()  // the Swift runtime's first-use work happens here, not on the audio thread
        client.attach(engine: engine)
        _ = repeater_rtprobe_init()
        try client.activate()
        for warning in client.connect(options.connect) { Console.warning(warning) }
        engine.controls.latencyFrames.store(client.outputLatencyFrames, ordering: .relaxed)
        if let loop = session.loop, !loop.on, options.sound.loop == nil {
            send(.setLoop(a: loop.a, b: loop.b))  // the session's A and B, kept but off
            send(.loopEnabled(false))
        }
        send(.start)
        reader.start()
        if Terminal.stdinIsTerminal { terminal.enterRawMode() }
        if options.status == .auto && Terminal.stderrIsTerminal && ScreenPainter.terminalCanRedraw() {
            let painter = ScreenPainter()
            let overview = WaveformOverview()
            overview.start(path: info.path)
            painter.begin()
            self.painter = painter
            self.overview = overview
        }
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

    private func loop(client: JackClient) throws(RepeaterError) -> Int32 {
        let statusInterval = options.statusHz > 0 ? 1.0 / options.statusHz : 1.0
        var nextStatus = Date()
        while true {
            waitForInput(timeoutMilliseconds: 20)
            if repeater_signal_take() != 0 {
                exitReason = "signal"
                return 0
            }
            if client.notifications.serverShutdown.load(ordering: .relaxed) {
                exitReason = "shutdown"
                throw RepeaterError(.jackShutdown, "the JACK server shut down; stopping")
            }
            if readInput() || runQueuedCommands() { return 0 }
            supply.service()
            let latency = engine.status.processingLatency.load(ordering: .relaxed)
            if latency != reportedLatency {
                reportedLatency = latency
                client.recomputeLatencies()
            }
            drainEvents()
            if finishedCycle >= 0 && engine.status.cycles.load(ordering: .relaxed) >= finishedCycle + 2 {
                exitReason = "end"
                return 0  // the last frame's cycle has completed downstream too
            }
            autosaveIfDue()
            if Date() >= nextStatus {
                engine.controls.latencyFrames.store(client.outputLatencyFrames, ordering: .relaxed)
                updateMeasurements()
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
            if painter != nil { printStatus() }  // the key's effect on screen now, not at the next tick
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

    /// On the way out: lets the engine take what was sent (at most 0.3 s, only while the server runs),
    /// runs the session commands still queued, and saves.
    private func finishCommandsAndSave() {
        let deadline = Date().addingTimeInterval(0.3)
        while !engineCaughtUp, exitReason != "shutdown", Date() < deadline { usleep(2000) }
        for command in queuedCommands where command != .quit { _ = performNow(command) }
        queuedCommands.removeAll()
        saveSession(reason: exitReason)
    }

    /// The single way out: deactivate, join the disk thread, close, restore the terminal, stop a
    /// private server, and report what went wrong on the way.
    private func shutDown() {
        if engine != nil { finishCommandsAndSave() }  // before anything else can go wrong
        client?.deactivate()
        reader?.stop()
        supply?.drain()
        client?.close()
        client = nil
        painter?.end()
        painter = nil
        terminal.restore()
        clearStatusLine()
        overview?.cancel()
        let underruns = engine?.status.underruns.load(ordering: .relaxed) ?? 0
        if underruns > 0 { Console.warning("\(underruns) underruns: the disk reader was late \(underruns) times") }
        server?.stop()
        server = nil
    }
}
