import Foundation
import RepeaterAnalysis
import RepeaterEngine

/// `--status json`: one JSON object per line on stdout, periodic status and events (docs/manual.md: *JSON
/// status*). Notes go to stderr, as lines for people.
public final class JSONSink: OutputSink {
    private let out: StdoutWriter

    public init(out: StdoutWriter) { self.out = out }

    public func status(_ s: StatusSnapshot, force: Bool) { out.statusLine(Self.statusLine(s)) }

    /// The status as one JSON object (the practice page receives the same).
    public static func statusLine(_ s: StatusSnapshot) -> JSONLine {
        var line = JSONLine()
        line.add("state", s.state)
        line.add("frame", s.frame)
        line.add("pos_s", s.seconds(s.frame))
        line.add("duration_s", s.seconds(s.duration))
        line.add("a", s.a)
        line.add("a_s", s.seconds(s.a))
        line.add("b", s.b)
        line.add("b_s", s.seconds(s.b))
        line.add("rate", s.rate)
        line.add("pitch", s.pitch)
        line.add("volume", s.volume)
        line.add("volume_db", Volume.decibels(gain: s.volume))
        line.add("pan", s.pan)
        line.add("latency", s.latency)
        line.add("loop", s.loopOn)
        line.add("loops", s.passes)
        line.add("meter", s.meterStage.rawValue)
        line.addRaw("meters", Self.meters(s.levels))
        line.add("session", s.sessionPath)
        if let active = s.activeLoop { line.add("active_loop", active) }
        if let trainer = s.trainer {
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
        switch s.map.state {
        case .none: line.add("map", "none")
        case .analysing(let fraction):
            line.add("map", "analysing")
            line.add("map_progress", fraction, digits: 3)
        case .ready: line.add("map", "ready")
        case .failed: line.add("map", "failed")
        }
        if let bar = s.map.bar, let beat = s.map.beat {
            line.add("bar", bar)
            line.add("beat", beat)
        }
        if let tempo = s.map.tempoBPM { line.add("tempo_bpm", tempo) }
        if let bpb = s.map.beatsPerBar { line.add("beats_per_bar", bpb) }
        if let key = s.map.key { line.add("key", key) }
        line.add("snap", s.map.snap.rawValue)
        line.add("count_in", s.map.countIn)
        line.add("click", s.map.click)
        if s.lines.count > 0 {
            if let current = s.lines.current {
                var fields = JSONLine()
                fields.add("index", current.index)
                fields.add("text", current.text)
                fields.add("start_s", current.start)
                fields.add("end_s", current.end)
                line.addRaw("line", fields.text)
            } else {
                line.addRaw("line", "null")
            }
            if let drill = s.lines.drill {
                var fields = JSONLine()
                fields.add("line", drill.line)
                fields.add("pass", drill.pass)
                fields.add("passes", drill.passes)
                line.addRaw("drill", fields.text)
            }
        }
        if s.takes.enabled {
            line.addRaw("input", Self.meters(s.takes.input))
            var fields = JSONLine()
            fields.add("armed", s.takes.armed)
            fields.add("recording", s.takes.recording)
            fields.add("round_trip", s.takes.roundTrip)
            fields.add("measured", s.takes.measured)
            fields.add("takes", s.takes.takeCount)
            if let playing = s.takes.playing { fields.add("playing", playing) } else { fields.addRaw("playing", "null") }
            fields.add("dropped_blocks", s.takes.dropped)
            line.addRaw("record", fields.text)
        }
        line.add("loop_cache", s.loopCache.name)
        line.add("isolate", s.hearing.isolation.name)
        line.addRaw("eq", "[\(s.hearing.equalizer.text)]")
        if let report = s.hearing.notes {
            line.add("notes_mode", s.hearing.notesMode.rawValue)
            line.addRaw("notes", "[" + report.notes.map { note in
                var item = JSONLine()
                item.add("name", note.name)
                item.add("midi", note.midi)
                item.add("cents", Double(note.cents), digits: 1)
                item.add("level_db", Double(note.levelDB), digits: 1)
                return item.text
            }.joined(separator: ",") + "]")
            if let chord = report.chord { line.add("chord", chord) } else { line.addRaw("chord", "null") }
        }
        line.add("underruns", s.underruns)
        line.add("xruns", s.xruns)
        line.add("missed_cycles", s.missedCycles)
        if let late = s.lateCycles { line.add("late", late) }
        line.add("load", s.load, digits: 6)
        line.add("load_max", s.loadPeak, digits: 6)
        if let peak = s.callbackPeak { line.add("callback_max", peak, digits: 6) }
        line.add("head_loads", s.headLoads)
        line.add("head_load_max_ms", s.headLoadMaxMilliseconds)
        line.add("lost_messages", s.lostMessages)
        line.add("transport", s.transport.name)
        if s.transport != .off { line.add("transport_rolling", s.transportRolling) }
        if let learning = s.learning { line.add("learning", learning.name) }
        if let ignored = s.midiIgnored { line.add("midi_ignored", ignored) }
        if let osc = s.osc {
            line.add("osc_errors", osc.errors)
            line.add("osc_refused", osc.refused)
            line.add("osc_dropped", osc.dropped)
            line.add("osc_subscribers", osc.subscribers)
        }
        if let page = s.page {
            line.add("web_clients", page.clients)
            line.add("web_refused", page.refused)
            line.add("web_errors", page.errors)
            line.add("web_dropped", page.dropped)
            line.add("web_coalesced", page.coalesced)
        }
        return line
    }

    public func event(_ event: PlayerEvent) { out.eventLine(event.json) }

    public func note(_ text: String) { Console.note(text) }

    public func error(_ text: String, source: CommandSource) {
        out.eventLine(PlayerEvent("error", source: source) { $0.add("message", text) }.json)
    }

    public func showKeys(_ help: String) { Console.writeErr(help + "\n") }
}

/// `--status lines`: a compact line per update on stdout; notes and errors on stderr.
public final class LinesSink: OutputSink {
    private let out: StdoutWriter

    public init(out: StdoutWriter) { self.out = out }

    public func status(_ s: StatusSnapshot, force: Bool) {
        func decibels(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-inf" }
        let loop = s.loopOn ? " loop \(s.time(s.a))-\(s.time(s.b)) x\(s.passes)" : ""
        let labels = s.levels.count == 2 ? ["L", "R"] : s.levels.indices.map { String($0 + 1) }
        let meters = zip(labels, s.levels).map { "\($0) \(decibels($1.rmsDB))/\(decibels($1.peakDB))" }.joined(separator: " ")
        out.plainStatusLine("\(s.state) \(s.time(s.frame)) / \(s.time(s.duration))\(loop) vol \(Volume.describe(s.volume)) pan \(Volume.describePan(s.pan)) | \(meters) dB | underruns \(s.underruns) xruns \(s.xruns) load \(String(format: "%.1f", s.load * 100))%")
    }

    public func event(_ event: PlayerEvent) {
        if let note = event.note { Console.note(note) }
    }

    public func note(_ text: String) { Console.note(text) }
    public func error(_ text: String, source: CommandSource) { Console.error(text) }
    public func showKeys(_ help: String) { Console.writeErr(help + "\n") }
}

/// `--status none`: nothing periodic; `status` prints "state position"; notes and errors on stderr.
public final class QuietSink: OutputSink {
    private let out: StdoutWriter

    public init(out: StdoutWriter) { self.out = out }

    public func status(_ s: StatusSnapshot, force: Bool) {
        if force { out.plainStatusLine("\(s.state) \(s.time(s.frame))") }
    }

    public func event(_ event: PlayerEvent) {
        if let note = event.note { Console.note(note) }
    }

    public func note(_ text: String) { Console.note(text) }
    public func error(_ text: String, source: CommandSource) { Console.error(text) }
    public func showKeys(_ help: String) { Console.writeErr(help + "\n") }
}

extension JSONSink {
    /// Meters as a JSON list: per channel RMS, peak and held peak in dBFS (null: silence), and clips.
    static func meters(_ levels: [ChannelLevel]) -> String {
        "[" + levels.map { level in
            var meter = JSONLine()
            meter.add("rms_db", level.rmsDB)
            meter.add("peak_db", level.peakDB)
            meter.add("hold_db", level.holdDB)
            meter.add("clipped", level.clipped)
            return meter.text
        }.joined(separator: ",") + "]"
    }
}
