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
                    clearStatusLine()
                    Console.note("a chime is sounding: the new one is not queued")
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
        } else {
            clearStatusLine()
            Console.error(message)
        }
    }

    func printStatus(force: Bool = false) {
        let info = file.info
        let rate = info.sampleRate
        let frame = audibleFrame
        let playing = engine.status.playing.load(ordering: .relaxed)
        let underruns = engine.status.underruns.load(ordering: .relaxed)
        let a = engine.status.loopA.load(ordering: .relaxed), b = engine.status.loopB.load(ordering: .relaxed)
        let loopOn = engine.status.loopOn.load(ordering: .relaxed)
        let passes = engine.status.passes.load(ordering: .relaxed)
        let state = finishedCycle >= 0 ? "ended" : (playing ? "playing" : "paused")
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
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
            line.add("rate", engine.controls.speed.load(ordering: .relaxed))
            line.add("pitch", engine.controls.pitchSemitones.load(ordering: .relaxed))
            line.add("latency", engine.status.processingLatency.load(ordering: .relaxed))
            line.add("loop", loopOn)
            line.add("loops", passes)
            line.add("underruns", underruns)
            line.add("xruns", client?.notifications.xruns.load(ordering: .relaxed) ?? 0)
            line.add("head_loads", reader.headLoads.load(ordering: .relaxed))
            line.add("head_load_max_ms", Double(reader.longestHeadLoadMicroseconds.load(ordering: .relaxed)) / 1000)
            line.add("lost_messages", engine.status.lostEvents.load(ordering: .relaxed) + engine.status.lostRequests.load(ordering: .relaxed))
            emit(line)
        case .lines:
            let loop = loopOn ? " loop \(time(a))-\(time(b)) x\(passes)" : ""
            Console.writeOut("\(state) \(time(frame)) / \(time(info.frameCount))\(loop) underruns \(underruns)\n")
        case .auto:
            guard Terminal.stderrIsTerminal || force else { return }
            let symbol = state == "playing" ? "▶" : (state == "paused" ? "⏸" : "■")
            let loop = loopOn ? "  ⟲ \(time(a)) – \(time(b)) ×\(passes)" : ""
            let speed = engine.controls.speed.load(ordering: .relaxed), pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
            let stretch = speed != 1 || pitch != 0 ? "  \(Int((speed * 100).rounded())) %" + (pitch != 0 ? " \(pitch > 0 ? "+" : "")\(pitch) st" : "") : ""
            let text = "\(symbol) \(time(frame)) / \(time(info.frameCount))\(stretch)\(loop)  underruns \(underruns)   (? keys)"
            if Terminal.stderrIsTerminal {
                Console.writeErr("\r\u{1b}[K" + text)
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
            Console.writeErr("\r\u{1b}[K")
            lastStatusLineLength = 0
        }
    }
}
