import Foundation
import RepeaterEngine

extension Player {
    /// The JSON `start` event: what plays, where, and the surfaces a program can reach it by.
    func startEventLine(client: JackClient) -> String {
        let info = file.info
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
        describeSurfaces(into: &line)
        if let osc {
            line.add("osc_port", osc.port)
            line.addRaw("osc_listen", "[" + osc.endpoints.map(JSONLine.quote).joined(separator: ",") + "]")
            line.addRaw("osc_allow", "[" + osc.allowed.map { JSONLine.quote($0.description) }.joined(separator: ",") + "]")
        }
        if options.record != nil {
            line.add("inputs", client.inputPortNames.count)
            line.add("takes_folder", takes.folder)
        }
        return line.text
    }

    /// Gathers the state every sink reads.
    func snapshot() -> StatusSnapshot {
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
        s.loopCache = LoopCacheState(rawValue: engine.status.loopCache.load(ordering: .relaxed)) ?? .off
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
        s.page = surfaces.first?.status
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
        if let capture = client?.capture { s.takes.input = takes.inputLevels(capture) }
        return s
    }

    func printStatus(force: Bool = false) {
        updateSurfaces()
        output.status(snapshot(), force: force)
    }

    /// For the benchmark (`REPEATER_CALLBACK_STATS=path`): the whole run's callback load (mean, p99.9
    /// and worst share of a period), xruns and underruns, as one JSON object.
    func writeCallbackStatistics() {
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
}
