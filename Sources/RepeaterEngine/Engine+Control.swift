/// Audio thread: commands from the control thread, MIDI presses from the JACK MIDI port, and the
/// JACK transport. Each is carried out here, in order, and every event it causes carries its source.
extension Engine {
    /// Control thread. Queues a command; false when the ring is full (the audio thread is not
    /// taking commands).
    @discardableResult
    public func send(_ command: EngineCommand, source: CommandSource = .player) -> Bool {
        commands.push(SourcedCommand(command, source: source))
    }

    func takeCommands() {
        while let sourced = commands.pop() {
            currentSource = sourced.source
            perform(sourced.command)
        }
        currentSource = .player
        status.playing.store(wantPlaying, ordering: .relaxed)
    }

    private func perform(_ command: EngineCommand) {
        switch command {
        case .play: setPlaying(true)
        case .start:
            held = false
            if !rampingUp { rampPosition = 0 }  // paused or waiting for the transport: silent from the start
            countInBeforeTheFirstPass()
        case .pause: setPlaying(false)
        case .toggle: setPlaying(!wantPlaying)
        case .seek(let frame):
            pendingSeek = max(0, frame)
            seekSource = currentSource
        case .seekToA:
            pendingSeek = loopA
            seekSource = currentSource
        case .setLoop(let a, let b):
            loopSource = currentSource
            setLoop(a: a, b: b)
        case .setA(let frame):
            loopSource = currentSource
            if let frame { setA(frame) } else { setA(hereFrame(isB: false)) }
        case .setB(let frame):
            if let frame { setB(frame) } else { setB(hereFrame(isB: true)) }
        case .loopEnabled(let on): setLoopEnabled(on)
        case .gap(let frames): gapFrames = max(0, frames)
        case .chime(let hour, let minute): startChime(hour: hour, minute: minute)
        case .abHere: abHere()
        case .setLoopAtWrap(let a, let b, let gap): queueLoop(a: a, b: b, gapFrames: gap)
        case .finishAtWrap:
            queuedA = -1
            finishQueued = true
        case .cancelAtWrap:
            queuedA = -1
            finishQueued = false
        case .compare(let take, let mode, let atGap, let pan): takeCompare(bits: take, mode: mode, atGap: atGap, pan: pan)
        case .compareOff: dropTake()
        case .isolate(let mode): isolate(mode)
        case .equalize(let low, let mid, let high): equalizer.setGains(lowDB: low, midDB: mid, highDB: high)
        case .countIn(let beats, let period):
            countInBeats = max(0, min(16, beats))
            countInPeriod = max(0, period)
            countInBeforeTheFirstPass()
        }
    }

    /// Playing starts at A with a count-in: it comes before the first pass too, once, whichever of
    /// `.countIn` and `.start` comes first (the player sends the count-in before the first cycle, so
    /// that it is in the stream before a stretcher is primed on it).
    private func countInBeforeTheFirstPass() {
        if countInBeats > 0, loopOn, playhead == loopA, !hasPlayed, streamEnd == 0, !pendingCountIn {
            pendingCountIn = true
            countInLeadIn = true
        }
    }

    private func setPlaying(_ playing: Bool) {
        wantPlaying = playing
        post(.playing(playing))
    }

    /// Resolves "here" against what the listener hears now (at this point of the cycle), and
    /// reports the frame chosen.
    func hereFrame(isB: Bool) -> Int {
        var frame = audibleFrame()
        let snap = controls.snap.load(ordering: .relaxed)
        if snap != 0, let table = beatTable { frame = table.pointee.nearest(to: frame, accented: snap == 2) }
        post(.pointSet(isB: isB, frame: frame))
        return frame
    }

    /// "A/B here" in turn: A; then B (the loop on); then the loop off, A and B cleared. A loop turned
    /// on some other way is turned off by the next press.
    private func abHere() {
        if loopOn {
            abStep = 0
            loopSource = currentSource
            loopOn = false
            requestedA = 0
            loopA = 0
            loopB = configuration.sourceFrameCount
            if readySlot(for: 0) < 0 { requestHead(for: 0) }
            post(.loop(a: loopA, b: loopB, enabled: false))
            return
        }
        if abStep == 0 {
            loopSource = currentSource
            let frame = hereFrame(isB: false)
            if frame >= loopB { loopB = configuration.sourceFrameCount }  // an old B behind it goes
            setA(frame)
            abStep = 1
        } else {
            setB(hereFrame(isB: true))
            abStep = loopOn ? 0 : 1  // refused (B not after A): the next press tries B again
        }
    }

    // MARK: MIDI

    /// Audio thread, before `render`: one event of this cycle from the MIDI port, at frame `offset`
    /// of the cycle. Decoded here; anything repeater does not act on is counted and dropped.
    public func receiveMIDI(offset: Int, bytes: UnsafePointer<UInt8>, count: Int) {
        guard let message = MIDIMessage.decode(bytes, count: count), midiCount < midiCapacity else {
            status.midiIgnored.add(1, ordering: .relaxed)
            return
        }
        let learning = controls.midiLearning.load(ordering: .relaxed)
        if !learning, !message.isPress { return }  // a release
        midiMessages[midiCount] = message
        midiOffsets[midiCount] = offset
        midiCount += 1
    }

    /// At the message's frame: acts on a press bound to a real-time action; reports every press
    /// (and, while learning, every message) to the control thread.
    func performMIDI(_ message: MIDIMessage) {
        var report = MIDIReport(message: message, action: .none, performed: false,
                                outputFrame: renderedFrames &+ cycleOffset, audibleFrame: audibleFrame())
        if controls.midiLearning.load(ordering: .relaxed) {
            pushReport(report)
            return
        }
        report.action = midiBindings.action(for: message)
        guard report.action != .none else { return }
        currentSource = .midi
        defer { currentSource = .player }
        let driving = controls.transportMode.load(ordering: .relaxed) == TransportMode.drive.rawValue
        switch report.action {
        case .playPause where !driving:
            setPlaying(!wantPlaying)
            status.playing.store(wantPlaying, ordering: .relaxed)
            report.performed = true
        case .abHere:
            abHere()
            report.performed = true
        case .loopToggle:
            setLoopEnabled(!loopOn)
            report.performed = true
        case .restart:
            pendingSeek = loopA
            seekSource = .midi
            report.performed = true
        default:
            break  // the control thread does it (play/pause while driving the transport: it starts it)
        }
        pushReport(report)
    }

    private func pushReport(_ report: MIDIReport) {
        if !midiReports.push(report) { status.lostEvents.add(1, ordering: .relaxed) }
        controlWorkPending = true
    }

    // MARK: transport

    /// Audio thread, before `render`: the JACK transport's state this cycle. Followed (paused while
    /// it stands, with the usual fade) in the `follow` and `drive` modes; ignored otherwise.
    public func setTransport(rolling: Bool) {
        let followed = controls.transportMode.load(ordering: .relaxed) != TransportMode.off.rawValue
        let gate = followed ? rolling : true
        if gate != transportRolling {
            transportRolling = gate
            var silentYet = held
            if renderedFrames == 0 { silentYet = true }  // (no `||`: its right side would capture self)
            if !gate, silentYet { rampPosition = 0 }  // nothing sounds yet: stay silent
            status.transportRolling.store(gate, ordering: .relaxed)
            if followed { post(.transport(rolling: gate), source: .transport) }
        }
    }
}
