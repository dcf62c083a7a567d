import Foundation
import RepeaterEngine

/// Status and events: a line on the terminal, JSON lines for programs.
extension Player {
    /// The source frame the listener hears now (the engine maps its output log back through JACK's
    /// playback latency, so this is right across wraps and gaps too).
    var audibleFrame: Int { engine.status.audibleFrame.load(ordering: .relaxed) }

    func seconds(_ frame: Int) -> Double { Double(frame) / Double(file.info.sampleRate) }

    func drainEvents() {
        let rate = file.info.sampleRate
        while let event = engine.events.pop() {
            switch event {
            case .finished(let frame, let cycle, _):
                finishedCycle = cycle
                emitEvent("end") { $0.add("frame", frame) }
            case .seeked(let frame):
                emitEvent("seek") { $0.add("frame", frame); $0.add("pos_s", self.seconds(frame)) }
            case .underrun(let frame):
                emitEvent("underrun") { $0.add("frame", frame) }
            case .loop(let a, let b, let enabled):
                emitEvent("loop") {
                    $0.add("a", a); $0.add("b", b)
                    $0.add("a_s", self.seconds(a)); $0.add("b_s", self.seconds(b))
                    $0.add("enabled", enabled)
                }
            case .wrap(let count, let from, let to, _):
                emitEvent("wrap") { $0.add("count", count); $0.add("from", from); $0.add("to", to) }
                trainerPassCompleted()
            case .pointSet(let isB, let frame):
                emitEvent(isB ? "b" : "a") { $0.add("frame", frame); $0.add("pos_s", self.seconds(frame)) }
            case .chimeStarted(let hour, let minute, let strikes):
                emitEvent("chime") { $0.add("time", "\(hour):\(minute < 10 ? "0" : "")\(minute)"); $0.add("strikes", strikes) }
            case .chimeEnded:
                emitEvent("chime-end") { _ in }
            case .chimeBusy:
                if options.status == .json {
                    emitEvent("chime-busy") { _ in }
                } else {
                    note("a chime is sounding: the new one is not queued")
                }
            case .refused(let reason, let frame):
                let a = engine.status.loopA.load(ordering: .relaxed), b = engine.status.loopB.load(ordering: .relaxed)
                switch reason {
                case .aNotBeforeB:
                    reportError("A \(formatTime(frame: frame, sampleRate: rate)) must be before B \(formatTime(frame: b, sampleRate: rate))")
                case .bNotAfterA:
                    reportError("B \(formatTime(frame: frame, sampleRate: rate)) must be after A \(formatTime(frame: a, sampleRate: rate))")
                }
            }
        }
    }

    func emitEvent(_ name: String, _ fill: (inout JSONLine) -> Void) {
        guard options.status == .json else { return }
        var line = JSONLine()
        line.add("event", name)
        fill(&line)
        emit(line)
    }

    func emit(_ line: JSONLine) { Console.writeOut(line.text + "\n") }

    func reportError(_ message: String) {
        if options.status == .json {
            var line = JSONLine()
            line.add("event", "error")
            line.add("message", message)
            emit(line)
        } else if painter != nil {
            show(message, isError: true)
        } else {
            clearStatusLine()
            Console.error(message)
        }
    }

    /// A note for the user: on the screen for a few seconds, else a line on stderr.
    func note(_ message: String) {
        if painter != nil { show(message, isError: false) } else {
            clearStatusLine()
            Console.note(message)
        }
    }

    private func show(_ text: String, isError: Bool) {
        message = (text, isError, Date().addingTimeInterval(5))
        printStatus()
    }

    /// Control thread, once per status update: takes the audio thread's meter records and load
    /// figures and closes the display window.
    func updateMeasurements() {
        let now = Date()
        let elapsed = now.timeIntervalSince(lastWindow)
        lastWindow = now
        engine.meters.drain(pre: preMeters, post: postMeters)
        preMeters.closeWindow(elapsed: elapsed)
        postMeters.closeWindow(elapsed: elapsed)
        if let load = client?.load {
            let busy = load.busyMicroseconds.load(ordering: .relaxed), period = load.periodMicroseconds.load(ordering: .relaxed)
            let window = period > lastPeriod ? Double(busy - lastBusy) / Double(period - lastPeriod) : 0
            (lastBusy, lastPeriod) = (busy, period)
            self.load = (window, load.takePeak())
        }
    }

    var shownLevels: [ChannelLevel] { options.meterStage == .pre ? preMeters.levels : postMeters.levels }

    func printStatus(force: Bool = false) {
        let info = file.info
        let rate = info.sampleRate
        let frame = audibleFrame
        let playing = engine.status.playing.load(ordering: .relaxed)
        let underruns = engine.status.underruns.load(ordering: .relaxed)
        let xruns = client?.notifications.xruns.load(ordering: .relaxed) ?? 0
        let a = engine.status.loopA.load(ordering: .relaxed), b = engine.status.loopB.load(ordering: .relaxed)
        let loopOn = engine.status.loopOn.load(ordering: .relaxed)
        let passes = engine.status.passes.load(ordering: .relaxed)
        let state = finishedCycle >= 0 ? "ended" : (playing ? "playing" : "paused")
        let volume = engine.controls.volume.load(ordering: .relaxed), pan = engine.controls.pan.load(ordering: .relaxed)
        let speed = engine.controls.speed.load(ordering: .relaxed), pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
        func decibels(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-inf" }
        switch options.status {
        case .json:
            var line = JSONLine()
            line.add("state", state)
            line.add("frame", frame)
            line.add("pos_s", seconds(frame))
            line.add("duration_s", seconds(info.frameCount))
            line.add("a", a)
            line.add("a_s", seconds(a))
            line.add("b", b)
            line.add("b_s", seconds(b))
            line.add("rate", speed)
            line.add("pitch", pitch)
            line.add("volume", volume)
            line.add("volume_db", Volume.decibels(gain: volume))
            line.add("pan", pan)
            line.add("latency", engine.status.processingLatency.load(ordering: .relaxed))
            line.add("loop", loopOn)
            line.add("loops", passes)
            line.add("meter", options.meterStage.rawValue)
            line.addRaw("meters", "[" + shownLevels.map { level in
                var meter = JSONLine()
                meter.add("rms_db", level.rmsDB)
                meter.add("peak_db", level.peakDB)
                meter.add("hold_db", level.holdDB)
                meter.add("clipped", level.clipped)
                return meter.text
            }.joined(separator: ",") + "]")
            line.add("session", sessionPath ?? "")
            if let active = session.activeLoop { line.add("active_loop", active) }
            if let trainer {
                var fields = JSONLine()
                fields.add("from", trainer.from)
                fields.add("step", trainer.step)
                fields.add("every", trainer.every)
                fields.add("to", trainer.to)
                fields.add("speed", trainer.speed)
                fields.add("passes", trainer.passes)
                fields.add("done", trainer.isDone)
                line.addRaw("trainer", fields.text)
            }
            line.add("underruns", underruns)
            line.add("xruns", xruns)
            line.add("load", load.window, digits: 6)
            line.add("load_max", load.peak, digits: 6)
            line.add("head_loads", reader.headLoads.load(ordering: .relaxed))
            line.add("head_load_max_ms", Double(reader.longestHeadLoadMicroseconds.load(ordering: .relaxed)) / 1000)
            line.add("lost_messages", engine.status.lostEvents.load(ordering: .relaxed) + engine.status.lostRequests.load(ordering: .relaxed))
            emit(line)
        case .lines:
            let loop = loopOn ? " loop \(time(a))-\(time(b)) x\(passes)" : ""
            let labels = shownLevels.count == 2 ? ["L", "R"] : shownLevels.indices.map { String($0 + 1) }
            let meters = zip(labels, shownLevels).map { "\($0) \(decibels($1.rmsDB))/\(decibels($1.peakDB))" }.joined(separator: " ")
            Console.writeOut("\(state) \(time(frame)) / \(time(info.frameCount))\(loop) vol \(Volume.describe(volume)) pan \(Volume.describePan(pan)) | \(meters) dB | underruns \(underruns) xruns \(xruns) load \(String(format: "%.1f", load.window * 100))%\n")
        case .auto:
            if let painter {
                if let current = message, current.until < Date() { message = nil }
                var screen = ScreenState()
                screen.fileName = (info.path as NSString).lastPathComponent
                screen.state = state
                screen.sampleRate = rate
                screen.position = frame
                screen.duration = info.frameCount
                screen.speed = speed
                screen.pitch = pitch
                screen.volume = volume
                screen.pan = pan
                if let overview { (screen.overview, screen.overviewDone) = overview.snapshot() }
                screen.a = a
                screen.b = b
                screen.loopOn = loopOn
                screen.passes = passes
                screen.meterStage = options.meterStage.rawValue
                screen.meters = shownLevels
                screen.underruns = underruns
                screen.xruns = xruns
                (screen.load, screen.loadPeak) = load
                screen.message = message?.text
                screen.messageIsError = message?.isError ?? false
                screen.showHelp = showHelp
                screen.trainer = trainerLine
                screen.session = sessionLine
                screen.keyHelp = Player.keyHelp
                let size = painter.size
                painter.draw(Screen.render(screen, width: size.columns, color: painter.color, height: size.rows))
                return
            }
            guard Terminal.stderrIsTerminal || force else { return }
            let symbol = state == "playing" ? "▶" : (state == "paused" ? "‖" : "■")
            let loop = loopOn ? "  ⟲ \(time(a)) – \(time(b)) ×\(passes)" : ""
            let stretch = speed != 1 || pitch != 0 ? "  \(Int((speed * 100).rounded())) %" + (pitch != 0 ? " \(pitch > 0 ? "+" : "")\(pitch) st" : "") : ""
            let text = "\(symbol) \(time(frame)) / \(time(info.frameCount))\(stretch)\(loop)  vol \(Volume.describe(volume))  underruns \(underruns)   (? keys)"
            if Terminal.stderrIsTerminal {
                Console.writeErr("\r" + text + String(repeating: " ", count: max(0, lastStatusLineLength - text.count)))
                lastStatusLineLength = text.count
            } else {
                Console.writeErr(text + "\n")
            }
        case .none:
            if force { Console.writeOut("\(state) \(time(frame))\n") }
        }
    }

    func clearStatusLine() {
        if lastStatusLineLength > 0 && Terminal.stderrIsTerminal {
            Console.writeErr("\r" + String(repeating: " ", count: lastStatusLineLength) + "\r")
            lastStatusLineLength = 0
        }
    }
}
