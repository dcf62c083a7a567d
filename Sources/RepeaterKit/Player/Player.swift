import CRepeaterSupport
import Foundation
import RepeaterEngine

/// `repeater play`: the JACK run. It sets up the file, the engine, the disk reader and the JACK
/// client, wires the sources (keys or stdin, MIDI, OSC, the JACK transport through the engine) to
/// the one `Dispatcher`, and the sinks (screen, JSON or compact lines, OSC subscribers) to its
/// output; then it loops: wait for input, hand it on, drain the engine's events, print status, save.
public final class Player {
    let options: PlayOptions
    let file: AudioFile
    /// The sound at start: the session's, with the command line's options winning (after a
    /// reconnect: the state the player had when the server went away).
    var sound: SoundOptions
    var configuration: Engine.Configuration
    let keeper: SessionKeeper
    var trainer: SpeedTrainer?
    var transportMode: TransportMode
    // Made once the JACK server's rate is known (run()); the control thread only touches them after.
    var engine: Engine!
    var reader: DiskReader!
    private var supply: StretcherSupply!
    /// The audio thread's wake-up for the control loop (an eventfd; -1 if it could not be made).
    private var controlWakeFD: Int32 = -1
    /// The control loop's poll set (kept, so that a wait allocates nothing).
    private var fds: [pollfd] = []
    var dispatcher: Dispatcher!
    var measurements: Measurements!
    var server: JackServerProcess?
    var client: JackClient?
    private let terminal = Terminal()
    let output = Output()
    let stdout = StdoutWriter()
    var stdin: StdinSource!
    private var midi: MIDISource?
    var osc: OSCServer?
    /// The practice page (`--web`), bound before the run (Player+Surfaces.swift).
    public var surfaces: [any ControlSurface] = []
    var lastSurfaceStatus = Date.distantPast
    private var reportedLatency = 0
    private(set) var hasScreen = false
    private var startAnnounced = false
    private var fileWatch: FileWatch?
    /// The recording's map: made before the start for `--loop bars:`, else in the background.
    private var map = MapFeed()
    /// The recording's lines (subtitles, lyrics, phrases), if any.
    var lines: RecordingLines?
    /// Recording (`--record`): the take writers and the input meters.
    let takes: TakeWiring

    /// Opens the session and the file and checks the options; nothing touches JACK and nothing is
    /// written yet (a session that cannot be read is an error and stays as it is).
    public init(options: PlayOptions) throws(RepeaterError) {
        self.options = options
        let plan = try SessionPlan.resolve(options)
        file = try AudioFile(path: plan.audioPath)
        var session = plan.session
        try session.check(against: file.info, shown: "'\(plan.sessionPath ?? plan.audioPath)'")
        keeper = SessionKeeper(session: session, path: plan.sessionPath, backupOnFirstSave: plan.backupOnFirstSave)
        takes = TakeWiring(options: options, sessionPath: plan.sessionPath)
        trainer = options.trainer?.trainer ?? session.trainer
        transportMode = options.transport ?? session.transport.flatMap { TransportMode(name: $0) } ?? .off
        // Practising with the map: the command line wins over the session.
        if let snap = options.snap { keeper.session.snap = snap }
        if let beats = options.countIn { keeper.session.countInBeats = beats }
        if let click = options.click { keeper.session.click = click }
        var commandLineSound = options.sound
        if let bars = options.sound.loop?.bars {
            // A loop by bars needs the map before the first frame: from the cache, or made now.
            map = try MapFeed(barsLoop: bars, path: plan.audioPath, corrections: keeper.session.mapCorrections)
            if let frames = map.loopFrames { commandLineSound.loop = LoopSpec(start: .frames(frames.a), end: .frames(frames.b)) }
        }
        sound = plan.sound(commandLine: commandLineSound, given: options.givenSoundOptions, trainer: options.trainer)
        keeper.session.isolation = sound.isolation
        keeper.session.equalizer = sound.equalizer
        lines = try RecordingLines.chosen(options: options, plan: plan, info: file.info, keeper: keeper)
        for note in lines?.notes ?? [] { Console.note(note) }
        if let drill = options.drill {
            if keeper.session.drill != drill { keeper.session.drillLine = 1 }
            keeper.session.drill = drill
        }
        if keeper.session.drill != nil, lines == nil {
            throw .input("a drill needs lines: play with --subs FILE (SRT, WebVTT, LRC, Audacity labels) or --phrases auto")
        }
        var configuration = try sound.engineConfiguration(for: file.info)
        configuration.chimeTempo = options.chime.tempo
        // A drill starts at its line's first frame: the first thing heard, bit-exact (a seek there
        // after the start would wait for the disk and fade in).
        if let line = lines?.drillLine(keeper.session) { configuration.startFrame = line.startFrame }
        self.configuration = configuration
        // Now, so that a bad gong file or midi.json is an error before anything touches JACK.
        for path in [options.chime.lowPath, options.chime.highPath].compactMap({ $0 }) { _ = try Gongs.load(path: path, sampleRate: file.info.sampleRate) }
        if options.oscAllow != nil, options.osc == nil { throw .input("--osc-allow needs --osc [HOST:]PORT") }
        if options.midi {
            let path = MIDIBindingStore.defaultPath()
            if let data = FileManager.default.contents(atPath: path) { _ = try MIDIBindingStore.parse(data, shown: "'\(path)'") }
        }
    }

    /// The line a drill in the session starts (or goes on) at.
    private var drillLine: MapLine? { lines?.drillLine(keeper.session) }

    /// The engine at the server's rate: a file at another rate is resampled (by libsoxr at speed 1
    /// and pitch 0, else by the stretcher).
    private func makeEngine(outputRate: Int) throws(RepeaterError) {
        var configuration = self.configuration
        configuration.sampleRate = outputRate
        configuration.startsHeld = true  // until the ports are connected: the first frame must reach them
        configuration.sourceSampleRate = file.info.sampleRate
        configuration.clickPort = true
        let engine = Engine(configuration, gongs: try Gongs.bank(sampleRate: outputRate, lowPath: options.chime.lowPath,
                                                                  highPath: options.chime.highPath),
                            clicks: Clicks.bank(sampleRate: outputRate))
        engine.controls.clickMix.store(options.clickMix, ordering: .relaxed)
        if controlWakeFD < 0 { controlWakeFD = repeater_wake_create() }  // (-1: the loop ticks at 20 ms)
        engine.controls.controlWake.store(controlWakeFD, ordering: .relaxed)
        engine.setSpeed(sound.speed)
        engine.setPitch(semitones: sound.pitch)
        self.engine = engine
        measurements = Measurements(engine: engine)
        reader = DiskReader(file: file, engine: engine)
        // The stretcher is told the output rate even when it also resamples: R3 sizes its analysis
        // from it, and a 1 kHz tone from 44.1 kHz measured THD+N −88 dB this way against −76 dB when
        // told the file's rate.
        supply = StretcherSupply(engine: engine, kind: sound.stretcher, sampleRate: outputRate)
        supply.measureAhead()
    }

    /// Plays until the end, `q`/`quit`, or a signal. Returns the exit code.
    public func run() throws(RepeaterError) -> Int32 {
        let info = file.info
        if let promised = info.headerFrameCount {
            Console.warning("'\(info.path)' is cut short: its header promises \(formatTime(frame: promised, sampleRate: info.sampleRate)), the file holds \(formatTime(frame: info.frameCount, sampleRate: info.sampleRate)); playing what is there")
        }
        fileWatch = FileWatch(info: info)
        JackClient.setVerbose(options.verbose)
        if repeater_signals_install() != 0 { throw RepeaterError(.failure, "cannot install signal handlers") }
        if options.startServer {
            server = try JackServerProcess.startPrivate()
        }
        defer { shutDown() }
        if let listen = options.osc {  // a port in use fails before JACK
            osc = try OSCServer(listen: listen, allow: options.oscAllow, statusHz: options.statusHz)
        }
        while true {
            switch try playOnce() {
            case .exit(let code): return code
            case .serverGone(let state):
                guard options.reconnect else {
                    throw RepeaterError(.jackShutdown, "the JACK server shut down; stopping")
                }
                if let code = waitForServer(resuming: state) { return code }
            }
        }
    }

    private enum Ending {
        case exit(Int32)
        /// The JACK server went away; the state to resume from.
        case serverGone(Session)
    }

    /// One connection to JACK: client, engine, disk reader, dispatcher; plays until the way out or
    /// until the server goes away.
    private func playOnce() throws(RepeaterError) -> Ending {
        let info = file.info
        let client = try JackClient(clientName: options.clientName, serverName: server?.name ?? options.serverName)
        self.client = client
        try makeEngine(outputRate: client.sampleRate)
        try client.registerOutputs(count: engine.outputChannelCount)
        try client.registerClickPort()
        if options.midi { try client.registerMIDIInput() }
        if options.record != nil { try client.registerInputs(count: options.recordChannels, probe: Calibration.probe) }
        let dispatcher = Dispatcher(info: info, engine: engine, keeper: keeper, output: output, trainer: trainer,
                                    gapFrames: configuration.gapFrames)
        self.dispatcher = dispatcher
        dispatcher.transport = client
        if options.midi {
            dispatcher.midiStore = try MIDIBindingStore(path: MIDIBindingStore.defaultPath(), engine: engine)
            midi = MIDISource(engine: engine, dispatcher: dispatcher)
        }
        dispatcher.linePractice.lines = lines
        if let capture = client.capture { takes.attach(dispatcher, client: client, capture: capture) }
        if let drill = keeper.session.drill, let lines, let line = drillLine {
            dispatcher.startDrill(drill, at: lines.lines.firstIndex(of: line) ?? 0, source: .player,
                                  seek: configuration.startFrame != line.startFrame)
        }
        dispatcher.applyMapSettings()
        // A map known already (made for --loop bars:, or before a reconnect) is in effect before the
        // first cycle, so that a count-in comes before the first pass (and before a stretcher is primed).
        if let made = map.known { dispatcher.mapReady(made.grid, cached: made.cached, announce: false) }
        reader.fill()  // the ring is full before the first cycle
        supply.service()  // a primed stretcher is queued before the first cycle when --rate/--pitch ask
        // The Swift runtime's first-use work happens here, not on the audio thread (the stretch
        // stage's only when this run stretches: `Engine.setSpeed` and `setPitch` warm it up later).
        Engine.warmUpRuntime(stretching: false)
        // On a real-time server: two periods ahead. Measured on a 2-vCPU VM, Rubber Band's bursts (up to
        // 1–3 periods of work in one job) left one period of slack late 29–36 times in 80 s, two 0–3.
        client.attach(engine: engine, renderAhead: options.renderAhead ?? (client.isRealtime ? 2 : 0), adaptive: options.renderAhead == nil)
        _ = repeater_rtprobe_init()
        try client.activate()
        connectPorts(client)
        engine.controls.latencyFrames.store(client.outputLatencyFrames, ordering: .relaxed)
        if let loop = keeper.session.loop, !loop.on, options.sound.loop == nil || startAnnounced {
            dispatcher.send(.setLoop(a: loop.a, b: loop.b), .player)  // the session's A and B, kept but off
            dispatcher.send(.loopEnabled(false), .player)
        }
        if transportMode != .off { dispatcher.setTransportMode(transportMode, source: .player) }
        dispatcher.send(.start, .player)
        reader.start()
        if !startAnnounced {
            addSinks(client: client)
            if let osc {
                osc.start()
                for note in osc.notes { output.note(note) }
                if !osc.isLoopbackOnly {
                    output.note("OSC is open to the network on \(osc.endpoints.joined(separator: ", ")): anyone who can send from \(osc.allowed.map(\.description).joined(separator: ", ")) can steer this player")
                }
            }
            startAnnounced = true
            map.start(path: info.path, dispatcher: dispatcher)
        } else {
            output.event(PlayerEvent("server", note: "the JACK server is back: playing on from \(formatTime(frame: configuration.startFrame, sampleRate: info.sampleRate))") {
                $0.add("state", "back")
                $0.add("frame", self.configuration.startFrame)
            })
        }
        startNoteView(sampleRate: client.sampleRate)
        return try loop(client: client)
    }

    /// Connects the audio (and MIDI) ports by the connect rule. A rule that matches nothing yet (a
    /// recorder still starting, a server just back) is tried again for two seconds before the first
    /// frame plays; then the warning is given and playback starts anyway.
    private func connectPorts(_ client: JackClient) {
        var warnings = client.connect(options.connect)
        if case .pattern = options.connect {
            let deadline = Date().addingTimeInterval(2)
            while warnings.contains(where: { $0.hasPrefix("no JACK input port matches") }), Date() < deadline {
                usleep(100_000)
                warnings = client.connect(options.connect)
            }
        }
        for warning in warnings { Console.warning(warning) }
        for warning in client.connectClick(options.clickConnect) { Console.warning(warning) }
        if let record = options.record { for warning in client.connectInputs(record) { Console.warning(warning) } }
        if let pattern = options.midiConnect { for warning in client.connectMIDI(pattern) { Console.warning(warning) } }
    }

    private func addSinks(client: JackClient) {
        let info = file.info
        let isTerminal = Terminal.stdinIsTerminal
        stdin = StdinSource(isTerminal: isTerminal, quitOnEOF: options.quitOnEOF)
        if isTerminal { terminal.enterRawMode() }
        switch options.status {
        case .json:
            output.add(JSONSink(out: stdout))
            stdout.eventLine(startEventLine(client: client))
        case .lines: output.add(LinesSink(out: stdout))
        case .none: output.add(QuietSink(out: stdout))
        case .auto:
            if Terminal.stderrIsTerminal && ScreenPainter.terminalCanRedraw() {
                output.add(ScreenSink(path: info.path, keyHelp: KeyMap.help))
                hasScreen = true
            } else {
                output.add(StatusLineSink())
            }
        }
        if let osc { output.add(osc.feedback) }
        startSurfaces()
    }

    /// The note view runs for the sinks that show it: the screen, JSON, OSC subscribers.
    private func startNoteView(sampleRate: Int) {
        guard hasScreen || options.status == .json || osc != nil || !surfaces.isEmpty else { return }
        let view = NoteView(engine: engine, sampleRate: sampleRate)
        view.start()
        dispatcher.noteView = view
    }

    private func loop(client: JackClient) throws(RepeaterError) -> Ending {
        let statusInterval = options.statusHz > 0 ? 1.0 / options.statusHz : 1.0
        var nextStatus = Date()
        while true {
            waitForInput(timeoutMilliseconds: waitMilliseconds(untilStatus: nextStatus))
            if repeater_signal_take() != 0 {
                dispatcher.exitReason = "signal"
                return .exit(0)
            }
            if client.notifications.serverShutdown.load(ordering: .relaxed) {
                dispatcher.exitReason = "shutdown"
                if options.reconnect {
                    dispatcher.drainEvents()
                    dispatcher.saveSession(reason: "shutdown")
                    let state = dispatcher.currentSession()
                    disconnect()
                    return .serverGone(state)
                }
                return .serverGone(dispatcher.currentSession())
            }
            checkFile()
            switch stdin.poll(into: dispatcher) {
            case .quit: return .exit(0)
            case .keys: if hasScreen { printStatus() }  // the key's effect on screen now, not at the next tick
            case .nothing: break
            }
            if osc?.poll(into: dispatcher, output: output) == true { return .exit(0) }
            if pollSurfaces() { return .exit(0) }
            map.poll(into: dispatcher, output: output)
            if midi?.poll() == true { return .exit(0) }
            if dispatcher.runQueued() { return .exit(0) }
            if dispatcher.statusRequested {
                dispatcher.statusRequested = false
                printStatus(force: true)
            }
            supply.service()
            let latency = engine.status.processingLatency.load(ordering: .relaxed)
            if latency != reportedLatency {
                reportedLatency = latency
                client.recomputeLatencies()
            }
            dispatcher.drainEvents()
            // The last frame's cycle has completed downstream: two cycles after the engine's (and
            // the periods it renders ahead).
            let margin = 2 + (client.ahead?.depth ?? 0)
            if dispatcher.finishedCycle >= 0 && engine.status.cycles.load(ordering: .relaxed) >= dispatcher.finishedCycle + margin {
                dispatcher.exitReason = "end"
                return .exit(0)
            }
            dispatcher.autosaveIfDue()
            if Date() >= nextStatus {
                engine.controls.latencyFrames.store(client.outputLatencyFrames, ordering: .relaxed)
                measurements.update(engine: engine, load: client.renderLoad, callback: client.ahead != nil ? client.load : nil)
                printStatus()
                nextStatus = Date().addingTimeInterval(statusInterval)
            }
        }
    }

    /// The file cut short, deleted or replaced under the player gets one warning (and an event), and
    /// the session is saved; playback goes on with what can still be read.
    private func checkFile() {
        guard let change = fileWatch?.check(cutShortAt: reader.cutShortAt.load(ordering: .relaxed)) else { return }
        Console.warning(change.message)
        output.event(PlayerEvent("file") {
            $0.add("change", change.change.rawValue)
            if let frame = change.frame { $0.add("frame", frame) }
        })
        dispatcher.saveSession(reason: "file")
    }

    /// How long the control loop may sleep. It is woken by its inputs (signals, keys, OSC, the
    /// page) and by the audio thread when that hands it something (events, MIDI presses, buffers to
    /// free, a request for loop-cache memory: `Engine.takeControlWork`), so it sleeps until the next
    /// status window (at most 100 ms: the file watch, a server's shutdown, the map's progress). While
    /// it waits on the engine (queued commands, takes being written, the end of the file) it looks
    /// every 20 ms, as it did always before: 50 wake-ups a second were a fifth of a speed-1 player's
    /// CPU.
    private func waitMilliseconds(untilStatus nextStatus: Date) -> Int32 {
        if controlWakeFD < 0 || dispatcher.waitsOnEngine { return 20 }
        let untilStatus = Int(nextStatus.timeIntervalSinceNow * 1000) + 1
        return Int32(max(0, min(100, untilStatus)))
    }

    private func waitForInput(timeoutMilliseconds: Int32) {
        fds.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0))
        if stdin?.isOpen == true { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
        if let osc { fds.append(pollfd(fd: osc.wakeFD, events: Int16(POLLIN), revents: 0)) }
        for surface in surfaces { fds.append(pollfd(fd: surface.wakeFD, events: Int16(POLLIN), revents: 0)) }
        if controlWakeFD >= 0 { fds.append(pollfd(fd: controlWakeFD, events: Int16(POLLIN), revents: 0)) }
        engine.controls.controlAsleep.store(true, ordering: .sequentiallyConsistent)
        _ = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        engine.controls.controlAsleep.store(false, ordering: .sequentiallyConsistent)
        // The audio side's eventfd is the last entry; it is read only when it was written.
        if controlWakeFD >= 0, let last = fds.last, last.revents & Int16(POLLIN) != 0 { repeater_wake_drain(controlWakeFD) }
    }

    /// On the way out: lets the engine take what was sent (at most 0.3 s, only while the server runs),
    /// runs the session commands still queued, and saves.
    private func finishCommandsAndSave() {
        let deadline = Date().addingTimeInterval(0.3)
        while !dispatcher.engineCaughtUp, dispatcher.exitReason != "shutdown", Date() < deadline { usleep(2000) }
        dispatcher.flushQueued()
        dispatcher.drainEvents()
        // Takes whose input is all in are written (at most a second); one still playing is dropped.
        let takesDeadline = Date().addingTimeInterval(1)
        while !dispatcher.takePractice.pending.isEmpty, Date() < takesDeadline {
            usleep(20_000)
            dispatcher.pollTakes()
        }
        dispatcher.saveSession(reason: dispatcher.exitReason)
    }

    /// The JACK side of one connection, taken down: deactivate, join the disk thread, free the
    /// stretchers, close the client.
    private func disconnect() {
        dispatcher?.noteView?.stop(waitingAtMost: 0.2)
        takes.stop()
        client?.deactivate()
        writeCallbackStatistics()
        reader?.stop()
        supply?.drain()
        client?.close()
        client = nil
    }

    /// The single way out: save, stop a driven transport, deactivate, join the disk thread, close,
    /// restore the terminal, stop a private server, and report what went wrong on the way.
    private func shutDown() {
        if dispatcher != nil, client != nil {
            finishCommandsAndSave()  // before anything else can go wrong
            if dispatcher.transportMode == .drive, dispatcher.exitReason != "shutdown" { client?.stopTransport() }
        }
        osc?.stop()
        stopSurfaces()
        map.cancel()
        disconnect()
        output.close()
        terminal.restore()
        stdout.finish(timeout: 0.3)
        let underruns = engine?.status.underruns.load(ordering: .relaxed) ?? 0
        if underruns > 0 { Console.warning("\(underruns) underruns: the disk reader was late \(underruns) times") }
        server?.stop()
        server = nil
        if controlWakeFD >= 0 {
            close(controlWakeFD)  // (the audio thread is gone: the client is closed)
            controlWakeFD = -1
        }
    }
}

