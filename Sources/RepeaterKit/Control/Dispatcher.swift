import Foundation
import RepeaterEngine

/// The JACK transport as the dispatcher drives it (`--transport drive`).
public protocol TransportControl: AnyObject {
    func startTransport()
    func stopTransport()
    var transportRolling: Bool { get }
}

/// The one command path: every source's `Command` ends up here, and nothing else changes the
/// player's state or talks to the engine. It checks a command against the file, sends the engine
/// what it needs, keeps the session's named loops and the trainer, and reports what happened to
/// the sinks, with the command's source.
///
/// Commands run in order. One that reads what the engine has made of the commands before it
/// (`save`, `loop save`) waits until the audio thread has taken them, and the commands after it
/// queue behind it.
public final class Dispatcher: CommandSink {
    let info: AudioFileInfo
    let engine: Engine
    let keeper: SessionKeeper
    let output: Output
    /// Set when the JACK transport can be driven (the player's JACK client).
    var transport: (any TransportControl)?
    /// The pedal's bindings, kept in midi.json (nil without `--midi`).
    var midiStore: MIDIBindingStore?
    var trainer: SpeedTrainer?
    var gapFrames: Int
    public private(set) var transportMode: TransportMode = .off
    /// MIDI learn: the action the next message is bound to.
    public private(set) var learning: MIDIAction?
    /// The cycle in which the engine played the last frame, or -1.
    public private(set) var finishedCycle = -1
    /// Why the run ends (the reason of the last save).
    public var exitReason = "quit"
    /// `status` asked for a status line now (the player has the measurements).
    var statusRequested = false
    /// The recording's map and practising with it (Dispatcher+Map.swift).
    var mapPractice = MapPractice()
    /// Lines and drills (Dispatcher+Lines.swift).
    var linePractice = LinePractice()
    var takePractice = TakePractice()
    private var queued: [Command] = []
    private var lastSentCycle = -1
    /// The last OSC sender: refusals the engine reports later go back to it.
    var lastReply: (any ReplyChannel)?
    /// The note view (hearing the part), when one runs.
    public var noteView: NoteView?

    init(info: AudioFileInfo, engine: Engine, keeper: SessionKeeper, output: Output, trainer: SpeedTrainer?, gapFrames: Int) {
        self.info = info
        self.engine = engine
        self.keeper = keeper
        self.output = output
        self.trainer = trainer
        self.gapFrames = gapFrames
    }

    var rate: Int { info.sampleRate }
    func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
    func seconds(_ frame: Int) -> Double { Double(frame) / Double(rate) }

    /// The source frame the listener hears now.
    var audibleFrame: Int { engine.status.audibleFrame.load(ordering: .relaxed) }
    var loopA: Int { engine.status.loopA.load(ordering: .relaxed) }
    var loopB: Int { engine.status.loopB.load(ordering: .relaxed) }
    var loopOn: Bool { engine.status.loopOn.load(ordering: .relaxed) }

    // MARK: the command path

    public func submit(_ command: Command) -> Bool {
        if command.reply != nil { lastReply = command.reply }
        if !queued.isEmpty || (Self.readsEngineState(command.action) && !engineCaughtUp) {
            queued.append(command)
            return false
        }
        return performNow(command)
    }

    public func reject(_ message: String, source: CommandSource, reply: (any ReplyChannel)?) {
        output.error(message, source: source)
        reply?.replyError(message)
    }

    /// Commands that read what the engine has made of the commands before them (A and B).
    static func readsEngineState(_ command: ControlCommand) -> Bool {
        switch command {
        case .save, .loopSave, .loopSaveNew: return true
        default: return false
        }
    }

    /// True once the audio thread has taken every command sent so far and published its status
    /// (a command is taken at the start of the next cycle; status is published at its end).
    var engineCaughtUp: Bool { engine.status.cycles.load(ordering: .relaxed) >= lastSentCycle + 2 }

    /// The control loop has something to look at every 20 ms: commands queued behind the engine, a
    /// command the engine has not taken yet, takes being written, or the last frame on its way out.
    var waitsOnEngine: Bool { !queued.isEmpty || !engineCaughtUp || finishedCycle >= 0 || !takePractice.pending.isEmpty }

    /// Control loop: runs queued commands whose turn has come; true for quit.
    func runQueued() -> Bool {
        while let head = queued.first {
            if Self.readsEngineState(head.action) && !engineCaughtUp { return false }
            queued.removeFirst()
            if performNow(head) { return true }
        }
        return false
    }

    /// On the way out: runs what is still queued (the engine has caught up or is gone).
    func flushQueued() {
        for command in queued where command.action != .quit { _ = performNow(command) }
        queued.removeAll()
    }

    /// Sends the engine a command with its source.
    func send(_ command: EngineCommand, _ source: CommandSource) {
        lastSentCycle = engine.status.cycles.load(ordering: .relaxed)
        if !engine.send(command, source: source) { output.error("the audio thread is not taking commands (queue full)", source: source) }
    }

    /// A refusal: an error event of the command's source, and back to its sender.
    @discardableResult
    func refuse(_ message: String, _ command: Command) -> Bool {
        reject(message, source: command.source, reply: command.reply)
        return false
    }

    /// Applies a command now; true for quit. Anything out of range is refused and changes nothing.
    func performNow(_ command: Command) -> Bool {
        let length = info.frameCount
        let a = loopA, b = loopB
        let source = command.source
        switch command.action {
        case .quit: return true
        case .play:
            if transportMode == .drive { transport?.startTransport() }
            send(.play, source)
        case .pause:
            if transportMode == .drive { transport?.stopTransport() } else { send(.pause, source) }
        case .toggle:
            if transportMode == .drive, let transport {
                if transport.transportRolling { transport.stopTransport() } else {
                    transport.startTransport()
                    send(.play, source)
                }
            } else {
                send(.toggle, source)
            }
        case .jumpToA: send(.seekToA, source)
        case .seek(let spec):
            let frame = spec.frame(atRate: rate)
            guard frame < length else { return refuse("seek \(time(frame)) is past the end (\(time(length)))", command) }
            send(.seek(frame: frame), source)
        case .seekBy(let seconds):
            let target = audibleFrame + Int((seconds * Double(rate)).rounded())
            send(.seek(frame: min(max(0, target), length - 1)), source)
        case .setA(let spec):
            guard let spec else { send(.setA(frame: nil), source); break }
            let frame = spec.frame(atRate: rate)
            guard frame < b else { return refuse("A \(time(frame)) must be before B \(time(b))", command) }
            send(.setA(frame: frame), source)
        case .setB(let spec):
            guard let spec else { send(.setB(frame: nil), source); break }
            let frame = spec.frame(atRate: rate)
            guard frame <= length else { return refuse("B \(time(frame)) is after the end (\(time(length)))", command) }
            guard frame > a else { return refuse("B \(time(frame)) must be after A \(time(a))", command) }
            send(.setB(frame: frame), source)
        case .abHere: send(.abHere, source)
        case .nudgeA(let seconds):
            let frame = max(0, a + Int((seconds * Double(rate)).rounded()))
            guard frame < b else { return refuse("A cannot move to or past B (\(time(b)))", command) }
            send(.setA(frame: frame), source)
        case .nudgeB(let seconds):
            let frame = min(length, b + Int((seconds * Double(rate)).rounded()))
            guard frame > a else { return refuse("B cannot move to or before A (\(time(a)))", command) }
            send(.setB(frame: frame), source)
        case .loop(let spec):
            do {
                let frames = try spec.frames(sampleRate: rate, frameCount: length)
                send(.setLoop(a: frames.a, b: frames.b), source)
            } catch {
                return refuse(error.message, command)
            }
        case .loopOn(let on): send(.loopEnabled(on), source)
        case .toggleLoop: send(.loopEnabled(!loopOn), source)
        case .gap(let spec):
            let frames = spec.frame(atRate: rate)
            guard frames <= 60 * rate else { return refuse("gap \(time(frames)) is longer than a minute", command) }
            send(.gap(frames: frames), source)
            gapFrames = frames
        case .chime(let hour, let minute): send(.chime(hour: hour, minute: minute), source)
        case .chimeNow:
            let now = ChimeOptions.now()
            send(.chime(hour: now.hour, minute: now.minute), source)
        case .rate(let value):
            guard (0.25...4).contains(value) else { return refuse("rate takes 0.25 to 4, not \(value)", command) }
            engine.setSpeed(value)
        case .pitch(let value):
            guard (-24...24).contains(value) else { return refuse("pitch takes -24 to 24 semitones, not \(value)", command) }
            engine.setPitch(semitones: value)
            noteView?.resetLoop()
        case .rateBy(let delta):
            let value = ((engine.controls.speed.load(ordering: .relaxed) + delta) * 100).rounded() / 100
            guard (0.25...4).contains(value) else { return refuse("speed stays between 0.25 and 4", command) }
            engine.setSpeed(value)
        case .pitchBy(let delta):
            let value = engine.controls.pitchSemitones.load(ordering: .relaxed) + delta
            guard (-24...24).contains(value) else { return refuse("pitch stays between -24 and +24 semitones", command) }
            engine.setPitch(semitones: value)
        case .resetRatePitch:
            engine.setSpeed(1)
            engine.setPitch(semitones: 0)
        case .volume(let gain):
            guard gain >= 0, gain <= Volume.maximum + 1e-9 else { return refuse("volume stays between silence and +12 dB", command) }
            engine.setLevel(volume: min(gain, Volume.maximum), pan: engine.controls.pan.load(ordering: .relaxed))
        case .volumeBy(let delta):
            let gain = Volume.stepped(engine.controls.volume.load(ordering: .relaxed), by: delta)
            engine.setLevel(volume: gain, pan: engine.controls.pan.load(ordering: .relaxed))
        case .pan(let value), .panBy(let value):
            guard info.channelCount <= 2 else { return refuse("pan works on mono and stereo files; this one has \(info.channelCount) channels", command) }
            var pan = value
            if case .panBy = command.action {
                pan = ((engine.controls.pan.load(ordering: .relaxed) + value) * 10).rounded() / 10
            } else if !(-1...1).contains(value) {
                return refuse("pan takes -1 (left) to 1 (right), not \(value)", command)
            }
            engine.setLevel(volume: engine.controls.volume.load(ordering: .relaxed), pan: min(1, max(-1, pan)))
        case .save, .loopSave, .loopSelect, .loopSelectIndex, .loopDelete, .listLoops, .trainer, .loopSaveNew:
            performSession(command)
        case .transport(let mode): setTransportMode(mode, source: source)
        case .learn(let action): learn(action, command)
        case .learnNext:
            let actions = MIDIAction.allCases.filter { $0 != .none && $0 != .selectLoop }
            let next = learning.flatMap { actions.firstIndex(of: $0) }.map { ($0 + 1) % actions.count } ?? 0
            learn(actions[next], command)
        case .map(let map): performMap(map, command)
        case .hearing(let hearing): performHearing(hearing, command)
        case .line(let line): performLine(line, command)
        case .take(let take): performTake(take, command)
        case .status: statusRequested = true
        case .help: output.showKeys(KeyMap.help)
        }
        return false
    }

    // MARK: the JACK transport

    func setTransportMode(_ mode: TransportMode, source: CommandSource) {
        transportMode = mode
        engine.controls.transportMode.store(mode.rawValue, ordering: .relaxed)
        if mode == .drive, engine.status.playing.load(ordering: .relaxed), transport?.transportRolling == false {
            transport?.startTransport()  // repeater plays: the transport rolls with it
        }
        output.event(PlayerEvent("transport-mode", source: source, note: "transport: \(mode.name)") { $0.add("mode", mode.name) })
    }

    // MARK: MIDI learn

    private func learn(_ action: MIDIAction?, _ command: Command) {
        guard midiStore != nil else { refuse("MIDI learn needs the MIDI port: play with --midi", command); return }
        learning = action
        engine.controls.midiLearning.store(action != nil, ordering: .relaxed)
        if let action {
            output.event(PlayerEvent("learn", source: command.source, note: "MIDI learn: press the pedal for '\(action.name)'") { $0.add("action", action.name) })
        } else {
            output.event(PlayerEvent("learn", source: command.source, note: "MIDI learn off") { $0.add("action", "off") })
        }
    }

    /// A MIDI report from the audio thread: learnt, turned into a command, or (done already) reported.
    func midiReport(_ report: MIDIReport) -> Bool {
        if let action = learning {
            learning = nil
            engine.controls.midiLearning.store(false, ordering: .relaxed)
            let message = report.message
            midiStore?.bind(message, to: action)
            switch midiStore?.save() {
            case .some(.failure(let error)): output.error(error.message, source: .midi)
            default: break
            }
            output.event(PlayerEvent("learned", source: .midi, note: "MIDI: \(message.description) now does '\(action.name)'") {
                $0.add("message", message.description)
                $0.add("action", action.name)
            })
            return false
        }
        output.event(PlayerEvent("midi", source: .midi) {
            $0.add("message", report.message.description)
            $0.add("action", report.action.name)
            $0.add("frame", report.audibleFrame)
        })
        if report.performed { return false }
        let action: ControlCommand
        switch report.action {
        case .playPause: action = .toggle
        case .faster: action = .rateBy(0.05)
        case .slower: action = .rateBy(-0.05)
        case .chime: action = .chimeNow
        case .back: action = .seekBy(-5)
        case .selectLoop: action = .loopSelectIndex(Int(report.message.number))
        case .abHere: action = .abHere
        case .loopToggle: action = .toggleLoop
        case .restart: action = .jumpToA
        case .isolate: action = .hearing(.isolateNext)
        case .click: action = .map(.click(nil))
        case .nextLine: action = .line(.next)
        case .none: return false
        }
        return submit(Command(action, source: .midi))
    }

    // MARK: engine events

    /// Control loop: turns the engine's events into output, steps the trainer on wraps.
    func drainEvents() {
        while let sourced = engine.events.pop() {
            let source = sourced.source
            switch sourced.event {
            case .finished(let frame, let cycle, let outputFrame):
                finishedCycle = cycle
                takesFinished(outputFrame: outputFrame)
                output.event(PlayerEvent("end") { $0.add("frame", frame) })
            case .seeked(let frame):
                takesInterrupted(answersToo: true)
                output.event(PlayerEvent("seek", source: source) { $0.add("frame", frame); $0.add("pos_s", self.seconds(frame)) })
            case .underrun(let frame):
                output.event(PlayerEvent("underrun") { $0.add("frame", frame) })
            case .loop(let a, let b, let enabled):
                takesInterrupted(answersToo: false)
                updateCountIn(a: a, b: b)
                noteView?.resetLoop()
                output.event(PlayerEvent("loop", source: source) {
                    $0.add("a", a); $0.add("b", b)
                    $0.add("a_s", self.seconds(a)); $0.add("b_s", self.seconds(b))
                    $0.add("enabled", enabled)
                })
            case .wrap(let count, let from, let to, let outputFrame):
                output.event(PlayerEvent("wrap") { $0.add("count", count); $0.add("from", from); $0.add("to", to) })
                takesWrapped(from: from, to: to, outputFrame: outputFrame)
                trainerPassCompleted()
                drillWrapped(from: from, to: to)
            case .passStarted(let frame, let outputFrame):
                takesPassStarted(frame: frame, outputFrame: outputFrame)
            case .pointSet(let isB, let frame):
                output.event(PlayerEvent(isB ? "b" : "a", source: source) { $0.add("frame", frame); $0.add("pos_s", self.seconds(frame)) })
            case .chimeStarted(let hour, let minute, let strikes):
                output.event(PlayerEvent("chime", source: source) { $0.add("time", "\(hour):\(minute < 10 ? "0" : "")\(minute)"); $0.add("strikes", strikes) })
            case .chimeEnded:
                output.event(PlayerEvent("chime-end"))
            case .chimeBusy:
                output.event(PlayerEvent("chime-busy", source: source, note: "a chime is sounding: the new one is not queued"))
            case .playing(let playing):
                if !playing { takesInterrupted(answersToo: true) }
                output.event(PlayerEvent(playing ? "play" : "pause", source: source))
            case .transport(let rolling):
                output.event(PlayerEvent("transport", source: .transport, note: rolling ? nil : "waiting for transport") { $0.add("rolling", rolling) })
            case .isolation(let delay):
                takePractice.isolationDelay = delay
                isolationApplied(delayFrames: delay, source: source)
            case .loopCache(let state, let reason):
                let note = reason == .tooLong ? "the loop is too long for the loop cache (\(engine.configuration.loopCacheBytes >> 20) MiB): it plays live" : nil
                output.event(PlayerEvent("loop-cache", note: note) { $0.add("state", state.name); $0.add("reason", reason.name) })
            case .isolationRefused:
                reject("this isolation needs a stereo file", source: source, reply: source == .osc ? lastReply : nil)
            case .refused(let reason, let frame):
                let message: String
                switch reason {
                case .aNotBeforeB: message = "A \(time(frame)) must be before B \(time(loopB))"
                case .bNotAfterA: message = "B \(time(frame)) must be after A \(time(loopA))"
                }
                reject(message, source: source, reply: source == .osc ? lastReply : nil)
            }
        }
        pollTakes()
    }

    /// The player's state in words: "ended", "paused", "waiting for transport" or "playing".
    var stateName: String {
        if finishedCycle >= 0 { return "ended" }
        if !engine.status.playing.load(ordering: .relaxed) { return "paused" }
        if transportMode != .off && !engine.status.transportRolling.load(ordering: .relaxed) { return "waiting for transport" }
        return "playing"
    }
}
