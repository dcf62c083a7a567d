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
    private var sound: SoundOptions
    private var configuration: Engine.Configuration
    private let keeper: SessionKeeper
    private var trainer: SpeedTrainer?
    private var transportMode: TransportMode
    // Made once the JACK server's rate is known (run()); the control thread only touches them after.
    private var engine: Engine!
    private var reader: DiskReader!
    private var supply: StretcherSupply!
    private var dispatcher: Dispatcher!
    private var measurements: Measurements!
    private var server: JackServerProcess?
    private var client: JackClient?
    private let terminal = Terminal()
    private let output = Output()
    private let stdout = StdoutWriter()
    private var stdin: StdinSource!
    private var midi: MIDISource?
    private var osc: OSCServer?
    private var reportedLatency = 0
    private var hasScreen = false
    private var startAnnounced = false
    /// The file as opened (device, inode): a different one at its path later means it was replaced.
    private var fileIdentity: (device: UInt, inode: UInt)?
    private var fileWarnings: Set<String> = []
    private var nextFileCheck = Date()
    /// The recording's map, made in the background while it plays (unless it was made before the
    /// start for `--loop bars:`).
    private var mapRunner: MapAnalysisRunner?
    private var startGrid: (grid: BeatGrid, cached: Bool)?
    /// The recording's lines (subtitles, lyrics, phrases), if any.
    private var lines: RecordingLines?
    /// The take writers of this run (one per connection to JACK), and the input meters.
    private var recordings: [TakeRecorder] = []
    private var inputMeters: LevelMeters?
    private let noMeters = LevelMeters(channelCount: 0)
    /// The map once the background analysis delivered it (a reconnect hands it to the new dispatcher).
    private var knownGrid: (grid: BeatGrid, cached: Bool)?

    /// Opens the session and the file and checks the options; nothing touches JACK and nothing is
    /// written yet (a session that cannot be read is an error and stays as it is).
    public init(options: PlayOptions) throws(RepeaterError) {
        self.options = options
        let plan = try SessionPlan.resolve(options)
        file = try AudioFile(path: plan.audioPath)
        var session = plan.session
        try session.check(against: file.info, shown: "'\(plan.sessionPath ?? plan.audioPath)'")
        keeper = SessionKeeper(session: session, path: plan.sessionPath, backupOnFirstSave: plan.backupOnFirstSave)
        trainer = options.trainer?.trainer ?? session.trainer
        transportMode = options.transport ?? session.transport.flatMap { TransportMode(name: $0) } ?? .off
        // Practising with the map: the command line wins over the session.
        if let snap = options.snap { keeper.session.snap = snap }
        if let beats = options.countIn { keeper.session.countInBeats = beats }
        if let click = options.click { keeper.session.click = click }
        var commandLineSound = options.sound
        if let bars = options.sound.loop?.bars {
            // A loop by bars needs the map before the first frame: from the cache, or made now.
            var progress = ProgressBar(label: "analysing for --loop bars:", enabled: isatty(2) == 1, total: 1000, sampleRate: 0)
            let made = try MapAnalysis.grid(path: plan.audioPath, progress: { progress.update(fraction: $0) }, warn: { Console.warning($0) })
            if !made.cached { progress.finish() }
            let grid = keeper.session.mapCorrections.apply(to: made.grid)
            let frames: (a: Int, b: Int)
            do { frames = try grid.frames(ofBars: bars.lowerBound, bars.upperBound) } catch { throw .input("--loop bars:\(bars.lowerBound)-\(bars.upperBound): \(error.message)") }
            commandLineSound.loop = LoopSpec(start: .frames(frames.a), end: .frames(frames.b))
            startGrid = made
        }
        sound = plan.sound(commandLine: commandLineSound, given: options.givenSoundOptions, trainer: options.trainer)
        keeper.session.isolation = sound.isolation
        keeper.session.equalizer = sound.equalizer
        lines = try Self.loadLines(options: options, plan: plan, info: file.info, keeper: keeper)
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
        if let line = Self.drillLine(keeper.session, lines) { configuration.startFrame = line.startFrame }
        self.configuration = configuration
        // Now, so that a bad gong file or midi.json is an error before anything touches JACK.
        _ = try Gongs.bank(sampleRate: file.info.sampleRate, lowPath: options.chime.lowPath, highPath: options.chime.highPath)
        if options.oscAllow != nil, options.osc == nil { throw .input("--osc-allow needs --osc [HOST:]PORT") }
        if options.midi {
            let path = MIDIBindingStore.defaultPath()
            if let data = FileManager.default.contents(atPath: path) { _ = try MIDIBindingStore.parse(data, shown: "'\(path)'") }
        }
    }

    /// The line a drill in the session starts (or goes on) at.
    private var drillLine: MapLine? { Self.drillLine(keeper.session, lines) }

    private static func drillLine(_ session: Session, _ lines: RecordingLines?) -> MapLine? {
        guard session.drill != nil, let lines, !lines.lines.isEmpty else { return nil }
        return lines.lines[min(lines.lines.count, max(1, session.drillLine ?? 1)) - 1]
    }

    /// The lines to practise: `--subs FILE`, else `--phrases auto`, else the session's (a file beside
    /// it, or "auto"), else a file of the recording's name beside it. The session remembers the
    /// choice. A line file that cannot be read is one line naming the file, the line and the problem.
    private static func loadLines(options: PlayOptions, plan: SessionPlan, info: AudioFileInfo, keeper: SessionKeeper) throws(RepeaterError) -> RecordingLines? {
        let sessionFolder = plan.sessionPath.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        func remember(_ path: String) {
            guard let sessionPath = plan.sessionPath else { return }
            keeper.session.linesSource = Session.audioReference(path, sessionPath: sessionPath)
        }
        if let subs = options.subs {
            let lines = try RecordingLines.read(path: subs, info: info)
            remember(subs)
            return lines
        }
        if options.phrases {
            keeper.session.linesSource = "auto"
            return try RecordingLines.phrases(path: info.path)
        }
        if let source = keeper.session.linesSource {
            if source == "auto" { return try RecordingLines.phrases(path: info.path) }
            let path = source.hasPrefix("/") || sessionFolder.isEmpty ? source : (sessionFolder as NSString).appendingPathComponent(source)
            guard FileManager.default.fileExists(atPath: path) else {
                throw .input("the session's line file '\(source)' is missing (looked for \(path)): put it back, pass --subs FILE, or remove \"lines\" from the session")
            }
            return try RecordingLines.read(path: path, info: info)
        }
        if let sidecar = RecordingLines.sidecar(forAudio: info.path) {
            let lines = try RecordingLines.read(path: sidecar, info: info)
            remember(sidecar)
            return lines
        }
        return nil
    }

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
        engine.controls.speed.store(sound.speed, ordering: .relaxed)
        engine.controls.pitchSemitones.store(sound.pitch, ordering: .relaxed)
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
        var status = stat()
        if stat(info.path, &status) == 0 { fileIdentity = (UInt(status.st_dev), UInt(status.st_ino)) }
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
        if let capture = client.capture { setUpRecording(dispatcher, client: client, capture: capture) }
        if let drill = keeper.session.drill, let lines, let line = drillLine {
            dispatcher.startDrill(drill, at: lines.lines.firstIndex(of: line) ?? 0, source: .player,
                                  seek: configuration.startFrame != line.startFrame)
        }
        dispatcher.applyMapSettings()
        // A map known already (made for --loop bars:, or before a reconnect) is in effect before the
        // first cycle, so that a count-in comes before the first pass (and before a stretcher is primed).
        if let made = startGrid ?? knownGrid { dispatcher.mapReady(made.grid, cached: made.cached, announce: false) }
        reader.fill()  // the ring is full before the first cycle
        supply.service()  // a primed stretcher is queued before the first cycle when --rate/--pitch ask
        Engine.warmUpRuntime()  // the Swift runtime's first-use work happens here, not on the audio thread
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
            if let made = startGrid { dispatcher.announceMap(cached: made.cached) } else {
                let runner = MapAnalysisRunner()
                runner.start(path: info.path)
                mapRunner = runner
            }
        } else {
            output.event(PlayerEvent("server", note: "the JACK server is back: playing on from \(formatTime(frame: configuration.startFrame, sampleRate: info.sampleRate))") {
                $0.add("state", "back")
                $0.add("frame", self.configuration.startFrame)
            })
        }
        startNoteView(sampleRate: client.sampleRate)
        return try loop(client: client)
    }

    /// Recording (`--record`): the take writer on its thread, where takes go, how they are heard.
    private func setUpRecording(_ dispatcher: Dispatcher, client: JackClient, capture: InputCapture) {
        let recorder = TakeRecorder(capture: capture, sampleRate: client.sampleRate)
        recorder.start()
        recordings.append(recorder)
        dispatcher.takePractice.recorder = recorder
        dispatcher.takePractice.ports = client
        dispatcher.takePractice.folder = takesFolder
        dispatcher.takePractice.sessionFolder = keeper.path.map { URL(fileURLWithPath: $0).standardized.deletingLastPathComponent().path }
        dispatcher.takePractice.compare = options.compare
        dispatcher.takePractice.comparePan = options.comparePan
        dispatcher.takePractice.takesMax = options.takesMax
    }

    /// Takes live beside the session (`song.json` → `song.takes/`); without a session, in a
    /// temporary folder the start event names.
    private var takesFolder: String {
        if let path = keeper.path { return URL(fileURLWithPath: path).standardized.deletingPathExtension().path + ".takes" }
        return NSTemporaryDirectory() + "repeater-takes-\(getpid())"
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

    /// `--reconnect`: the session is saved; waits (polling twice a second, no spinning) for a server
    /// of the same name to answer, then resumes at the frame it stopped. q, `quit` and signals still
    /// end the run. Returns an exit code to end with, or nil to play on.
    private func waitForServer(resuming state: Session) -> Int32? {
        let name = server?.name ?? options.serverName ?? ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"] ?? "default"
        output.event(PlayerEvent("server", note: "the JACK server '\(name)' went away: waiting for it to come back (q quits)") {
            $0.add("state", "gone")
            $0.add("frame", state.position)
        })
        resume(from: state)
        let gate = WaitingSink(output: output)
        while true {
            var fds = [pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)]
            if stdin.isOpen { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), 500)
            if repeater_signal_take() != 0 { return 0 }
            if stdin.poll(into: gate) == .quit || gate.quit { return 0 }
            if JackServerProcess.isAnswering(name: name) { return nil }
        }
    }

    /// After the server went away: the next connection starts from `state` (the place it stopped,
    /// the loop, speed, pitch, volume, trainer), with the command line's other options.
    private func resume(from state: Session) {
        var session = state
        session.audio = keeper.session.audio
        let plan = SessionPlan(audioPath: file.info.path, sessionPath: keeper.path, session: session)
        sound = plan.sound(commandLine: options.sound, given: [], trainer: nil)
        trainer = session.trainer
        transportMode = session.transport.flatMap { TransportMode(name: $0) } ?? .off
        if var configuration = try? sound.engineConfiguration(for: file.info) {
            configuration.chimeTempo = options.chime.tempo
            self.configuration = configuration
        }
        keeper.session.loop = session.loop
    }

    private func addSinks(client: JackClient) {
        let info = file.info
        let isTerminal = Terminal.stdinIsTerminal
        stdin = StdinSource(isTerminal: isTerminal, quitOnEOF: options.quitOnEOF)
        if isTerminal { terminal.enterRawMode() }
        switch options.status {
        case .json:
            output.add(JSONSink(out: stdout))
            var line = JSONLine()
            line.add("event", "start")
            line.add("file", info.path)
            line.add("client", client.name)
            line.add("sample_rate", client.sampleRate)
            line.add("channels", info.channelCount)
            line.add("frames", info.frameCount)
            if options.midi { line.add("midi_port", client.name + ":control") }
            if let lines {
                line.add("lines", lines.source)
                line.add("line_count", lines.lines.count)
            }
            if let osc {
                line.add("osc_port", osc.port)
                line.addRaw("osc_listen", "[" + osc.endpoints.map(JSONLine.quote).joined(separator: ",") + "]")
                line.addRaw("osc_allow", "[" + osc.allowed.map { JSONLine.quote($0.description) }.joined(separator: ",") + "]")
            }
            if options.record != nil {
                line.add("inputs", client.inputPortNames.count)
                line.add("takes_folder", takesFolder)
            }
            stdout.eventLine(line.text)
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
    }

    /// The note view runs for the sinks that show it: the screen, JSON, OSC subscribers.
    private func startNoteView(sampleRate: Int) {
        guard hasScreen || options.status == .json || osc != nil else { return }
        let view = NoteView(engine: engine, sampleRate: sampleRate)
        view.start()
        dispatcher.noteView = view
    }

    private func loop(client: JackClient) throws(RepeaterError) -> Ending {
        let statusInterval = options.statusHz > 0 ? 1.0 / options.statusHz : 1.0
        var nextStatus = Date()
        while true {
            waitForInput(timeoutMilliseconds: 20)
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
            pollMap()
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

    /// The background analysis's news: its progress, the map when ready (the grid is kept for a
    /// reconnect), a cache entry it could not use, or why it failed.
    private func pollMap() {
        dispatcher.reclaimBeatTables()
        guard let runner = mapRunner else { return }
        for update in runner.poll() {
            switch update {
            case .progress(let fraction): dispatcher.mapProgress(fraction)
            case .ready(let grid, let cached):
                knownGrid = (grid, cached)
                dispatcher.mapReady(grid, cached: cached)
            case .warning(let message): output.note(message)
            case .failed(let message): dispatcher.mapFailed(message)
            }
        }
    }

    /// Once a second: the file cut short, deleted or replaced under the player gets one warning (and
    /// an event), and the session is saved; playback goes on with what can still be read.
    private func checkFile() {
        let info = file.info
        let cut = reader.cutShortAt.load(ordering: .relaxed)
        if cut >= 0 { warnFile("cut-short", frame: cut, "'\(info.path)' was cut short while playing: it now ends at \(formatTime(frame: cut, sampleRate: info.sampleRate)); playing what is there") }
        guard Date() >= nextFileCheck, let identity = fileIdentity else { return }
        nextFileCheck = Date().addingTimeInterval(1)
        var status = stat()
        if stat(info.path, &status) != 0 {
            warnFile("deleted", frame: nil, "'\(info.path)' was deleted while playing: playing on from the open file (the session keeps your place)")
        } else if UInt(status.st_dev) != identity.device || UInt(status.st_ino) != identity.inode {
            warnFile("replaced", frame: nil, "'\(info.path)' was replaced while playing: playing on from the old copy; the next start reads the new one")
        }
    }

    private func warnFile(_ change: String, frame: Int?, _ message: String) {
        guard fileWarnings.insert(change).inserted else { return }
        Console.warning(message)
        output.event(PlayerEvent("file") {
            $0.add("change", change)
            if let frame { $0.add("frame", frame) }
        })
        dispatcher.saveSession(reason: "file")
    }

    private func waitForInput(timeoutMilliseconds: Int32) {
        var fds = [pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)]
        if stdin?.isOpen == true { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
        if let osc { fds.append(pollfd(fd: osc.wakeFD, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
    }

    /// Gathers the state every sink reads.
    private func snapshot() -> StatusSnapshot {
        let info = file.info
        var s = StatusSnapshot()
        s.fileName = (info.path as NSString).lastPathComponent
        s.filePath = info.path
        s.state = dispatcher.stateName
        s.sampleRate = info.sampleRate
        s.frame = dispatcher.audibleFrame
        s.duration = info.frameCount
        s.a = dispatcher.loopA
        s.b = dispatcher.loopB
        s.loopOn = dispatcher.loopOn
        s.passes = engine.status.passes.load(ordering: .relaxed)
        s.rate = engine.controls.speed.load(ordering: .relaxed)
        s.pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        s.volume = engine.controls.volume.load(ordering: .relaxed)
        s.pan = engine.controls.pan.load(ordering: .relaxed)
        s.latency = engine.status.processingLatency.load(ordering: .relaxed)
        s.meterStage = options.meterStage
        s.levels = measurements.levels(options.meterStage)
        s.sessionPath = keeper.path ?? ""
        s.activeLoop = keeper.session.activeLoop
        s.sessionLine = dispatcher.sessionLine
        s.trainer = dispatcher.trainer
        s.trainerLine = dispatcher.trainerLine
        s.transport = dispatcher.transportMode
        s.transportRolling = engine.status.transportRolling.load(ordering: .relaxed)
        s.learning = dispatcher.learning
        if options.midi { s.midiIgnored = engine.status.midiIgnored.load(ordering: .relaxed) }
        if let osc { s.osc = osc.status }
        s.underruns = engine.status.underruns.load(ordering: .relaxed)
        s.xruns = client?.notifications.xruns.load(ordering: .relaxed) ?? 0
        s.missedCycles = client?.notifications.missedCycles.load(ordering: .relaxed) ?? 0
        s.lateCycles = client?.ahead?.late.load(ordering: .relaxed)
        (s.load, s.loadPeak) = measurements.load
        s.callbackPeak = measurements.callbackPeak
        s.headLoads = reader.headLoads.load(ordering: .relaxed)
        s.headLoadMaxMilliseconds = Double(reader.longestHeadLoadMicroseconds.load(ordering: .relaxed)) / 1000
        s.lostMessages = engine.status.lostEvents.load(ordering: .relaxed) + engine.status.lostRequests.load(ordering: .relaxed)
        s.map = dispatcher.mapSnapshot(at: s.frame)
        s.hearing = dispatcher.hearingSnapshot()
        s.lines = dispatcher.linesSnapshot(at: s.frame)
        s.takes = dispatcher.takesSnapshot()
        if let capture = client?.capture {
            if inputMeters?.channelCount != capture.channelCount { inputMeters = LevelMeters(channelCount: capture.channelCount) }
            capture.meters.drain(pre: inputMeters!, post: noMeters)
            s.takes.input = inputMeters!.closeWindow(elapsed: 1 / max(0.1, options.statusHz))
        }
        return s
    }

    private func printStatus(force: Bool = false) { output.status(snapshot(), force: force) }

    /// For the benchmark (`REPEATER_CALLBACK_STATS=path`): the whole run's callback load (mean, p99.9
    /// and worst share of a period), xruns and underruns, as one JSON object.
    private func writeCallbackStatistics() {
        guard let path = ProcessInfo.processInfo.environment["REPEATER_CALLBACK_STATS"], let client else { return }
        let summary = client.load.summary()
        var line = JSONLine()
        line.add("cycles", summary.cycles)
        line.add("mean", summary.mean, digits: 6)
        line.add("p999", summary.p999, digits: 6)
        line.add("worst", summary.worst, digits: 6)
        if let ahead = client.ahead {
            let render = ahead.load.summary()
            line.add("render_mean", render.mean, digits: 6)
            line.add("render_p999", render.p999, digits: 6)
            line.add("render_worst", render.worst, digits: 6)
            line.add("late", ahead.late.load(ordering: .relaxed))
            line.add("last_late_cycle", ahead.lastLateCycle.load(ordering: .relaxed))
        }
        line.add("xruns", client.notifications.xruns.load(ordering: .relaxed))
        line.add("missed_cycles", client.notifications.missedCycles.load(ordering: .relaxed))
        line.add("underruns", engine?.status.underruns.load(ordering: .relaxed) ?? 0)
        _ = FileManager.default.createFile(atPath: path, contents: Data((line.text + "\n").utf8))
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
        dispatcher?.noteView?.stop()
        for recorder in recordings { recorder.stop() }
        recordings.removeAll()
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
        mapRunner?.cancel()
        disconnect()
        output.close()
        terminal.restore()
        stdout.finish(timeout: 0.3)
        let underruns = engine?.status.underruns.load(ordering: .relaxed) ?? 0
        if underruns > 0 { Console.warning("\(underruns) underruns: the disk reader was late \(underruns) times") }
        server?.stop()
        server = nil
    }
}

/// Where commands go while the player waits for its JACK server: only quit does anything.
private final class WaitingSink: CommandSink {
    let output: Output
    private(set) var quit = false

    init(output: Output) { self.output = output }

    func submit(_ command: Command) -> Bool {
        if command.action == .quit {
            quit = true
            return true
        }
        reject("waiting for the JACK server to come back: only quit works now", source: command.source, reply: command.reply)
        return false
    }

    func reject(_ message: String, source: CommandSource, reply: (any ReplyChannel)?) {
        output.error(message, source: source)
        reply?.replyError(message)
    }
}
