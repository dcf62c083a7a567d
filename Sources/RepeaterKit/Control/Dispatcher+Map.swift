import Foundation
import RepeaterEngine

/// Where the recording's map stands, for the sinks.
public enum MapState: Equatable, Sendable {
    /// No analysis asked for (or none possible).
    case none
    /// The analysis runs: how far, 0…1.
    case analysing(Double)
    case ready
    /// The analysis failed: why.
    case failed(String)
}

/// The dispatcher's part for the map: what the analysis found, the user's corrections, and
/// practising with it.
struct MapPractice {
    var state = MapState.none
    /// What the analysis found (before the corrections).
    var detected: BeatGrid?
    /// What the player uses: the analysis with the session's corrections applied.
    var grid: BeatGrid?
    /// The count-in last sent to the engine (beats, frames a beat).
    var sentCountIn = (beats: 0, period: 0)
}

/// The map's part of the command path: loops by bars, snapping, the count-in and the metronome, and
/// corrections (saved in the session; they win over the analysis). The engine never reads the map:
/// it gets a `BeatTable` (the beats, the bars' first ones marked) and the count-in's length.
extension Dispatcher {
    var grid: BeatGrid? { mapPractice.grid }

    /// The analysis is done (or came from the cache): the corrections apply, the engine gets the beats.
    func mapReady(_ detected: BeatGrid, cached: Bool, announce: Bool = true) {
        mapPractice.detected = detected
        mapPractice.state = .ready
        applyCorrections(source: .player, announce: false)
        if announce { announceMap(cached: cached) }
    }

    /// The `map` event (and note) for the map in use.
    func announceMap(cached: Bool) {
        guard let grid = mapPractice.grid else { return }
        // (A recording without beats, speech or a test signal, gets no note: nothing is wrong.)
        output.event(PlayerEvent("map", note: grid.isEmpty ? nil : mapNote(grid, prefix: cached ? "map (cached)" : "map")) {
            $0.add("state", "ready")
            $0.add("cached", cached)
            self.describe(grid, into: &$0)
        })
    }

    func mapProgress(_ fraction: Double) { mapPractice.state = .analysing(fraction) }

    func mapFailed(_ message: String) {
        mapPractice.state = .failed(message)
        output.event(PlayerEvent("map", note: message) { $0.add("state", "failed"); $0.add("message", message) })
    }

    /// Applies the session's settings for practising with the map (at start).
    func applyMapSettings() {
        engine.controls.snap.store(snapCode(session.snap), ordering: .relaxed)
        engine.controls.clickOn.store(session.click, ordering: .relaxed)
        updateCountIn()
    }

    func performMap(_ map: MapCommand, _ command: Command) {
        let source = command.source
        switch map {
        case .loopBars(let first, let last):
            guard let grid = mapPractice.grid else { refuse(mapMissing("loop bars"), command); return }
            do {
                let frames = try grid.frames(ofBars: first, last)
                send(.setLoop(a: frames.a, b: frames.b), source)
                output.note("loop: bars \(first)–\(last) (\(time(frames.a)) – \(time(frames.b)))")
            } catch {
                refuse(error.message, command)
            }
        case .snap(let mode): setSnap(mode, source: source)
        case .snapNext:
            let modes = SnapMode.allCases
            setSnap(modes[(modes.firstIndex(of: session.snap)! + 1) % modes.count], source: source)
        case .countIn(let beats): setCountIn(beats, source: source)
        case .countInNext:
            let bar = max(1, mapPractice.grid?.beatsPerBar ?? 4)
            let next = session.countInBeats == 0 ? bar : session.countInBeats == bar ? 2 * bar : 0
            setCountIn(next, source: source)
        case .click(let on):
            let value = on ?? !session.click
            session.click = value
            engine.controls.clickOn.store(value, ordering: .relaxed)
            if value, mapPractice.grid == nil { output.note(mapMissing("the click") + "; it starts when the map is ready") }
            output.event(PlayerEvent("click", source: source, note: "click \(value ? "on" : "off")") { $0.add("on", value) })
        case .clickMix(let on):
            engine.controls.clickMix.store(on, ordering: .relaxed)
            output.event(PlayerEvent("click-mix", source: source, note: "clicks \(on ? "also in out_1/out_2" : "on the click port only")") { $0.add("on", on) })
        case .tempo(let bpm):
            guard mapPractice.detected != nil else { refuse(mapMissing("tempo"), command); return }
            session.mapCorrections.tempoBPM = bpm
            session.mapCorrections.tempoOctaves = 0
            applyCorrections(source: source, announce: true)
        case .tempoDouble, .tempoHalve:
            guard mapPractice.detected != nil else { refuse(mapMissing("tempo"), command); return }
            let up = map == .tempoDouble
            if let bpm = session.mapCorrections.tempoBPM {
                let next = up ? bpm * 2 : bpm / 2
                guard (20...400).contains(next) else { refuse("tempo \(next) BPM is outside 20 to 400", command); return }
                session.mapCorrections.tempoBPM = next
            } else {
                guard abs(session.mapCorrections.tempoOctaves + (up ? 1 : -1)) <= 4 else { refuse("the tempo has been doubled or halved four times already", command); return }
                session.mapCorrections.tempoOctaves += up ? 1 : -1
            }
            applyCorrections(source: source, announce: true)
        case .tempoDetected:
            session.mapCorrections.tempoBPM = nil
            session.mapCorrections.tempoOctaves = 0
            applyCorrections(source: source, announce: true)
        case .gridNudge(let seconds):
            guard mapPractice.detected != nil else { refuse(mapMissing("grid"), command); return }
            session.mapCorrections.nudgeFrames += Int((seconds * Double(rate)).rounded())
            applyCorrections(source: source, announce: true)
        case .downbeat(let spec):
            guard let grid = mapPractice.grid, !grid.isEmpty else { refuse(mapMissing("downbeat"), command); return }
            let heard = spec?.frame(atRate: rate) ?? audibleFrame
            guard let beat = grid.nearest(to: heard, bars: false) else { refuse(mapMissing("downbeat"), command); return }
            session.mapCorrections.downbeatFrame = beat
            applyCorrections(source: source, announce: true)
        case .beatsPerBar(let beats):
            guard mapPractice.detected != nil else { refuse(mapMissing("beats-per-bar"), command); return }
            session.mapCorrections.beatsPerBar = beats
            applyCorrections(source: source, announce: true)
        case .reset:
            session.mapCorrections = MapCorrections()
            applyCorrections(source: source, announce: true)
        case .show:
            guard let grid = mapPractice.grid else { refuse(mapMissing("map"), command); return }
            output.event(PlayerEvent("map", source: source, note: mapNote(grid, prefix: "map")) {
                $0.add("state", "ready")
                self.describe(grid, into: &$0)
            })
        }
    }

    /// The grid from the analysis and the session's corrections; the engine gets its beats, the
    /// count-in follows the loop's tempo, and the session is saved when a correction changed it.
    func applyCorrections(source: CommandSource, announce: Bool) {
        guard let detected = mapPractice.detected else { return }
        let grid = session.mapCorrections.apply(to: detected)
        mapPractice.grid = grid
        reclaimBeatTables()
        if !engine.beatTables.push(BeatTable.handOver(BeatTable(frames: grid.beatFrames, downbeats: Set(grid.downbeatFrames)))) {
            output.error("the audio thread is not taking the beats (queue full)", source: source)
        }
        updateCountIn()
        guard announce else { return }
        output.event(PlayerEvent("map", source: source, note: mapNote(grid, prefix: "map corrected")) {
            $0.add("state", "corrected")
            self.describe(grid, into: &$0)
        })
        saveSession(reason: "map", source: source)
    }

    /// Frees the beat tables the engine is done with.
    func reclaimBeatTables() {
        while let bits = engine.usedBeatTables.pop() { BeatTable.free(bits) }
    }

    /// Sends the engine the count-in at the loop's tempo (the median beat in A…B), when it changed.
    /// `a`, `b`: the loop as a `loop` event reported it (the published status may lag it by a cycle).
    func updateCountIn(a: Int? = nil, b: Int? = nil) {
        let beats = session.countInBeats
        var period = 0
        if beats > 0, let grid = mapPractice.grid, let interval = grid.medianInterval(from: a ?? loopA, to: b ?? loopB) {
            period = Int(interval.rounded())
        }
        let next = (beats: period > 0 ? beats : 0, period: period)
        guard next != mapPractice.sentCountIn else { return }
        mapPractice.sentCountIn = next
        send(.countIn(beats: next.beats, periodFrames: next.period), .player)
    }

    /// What the sinks show of the map at `frame` (the frame heard).
    func mapSnapshot(at frame: Int) -> MapSnapshot {
        var snapshot = MapSnapshot()
        snapshot.state = mapPractice.state
        snapshot.snap = session.snap
        snapshot.countIn = session.countInBeats
        snapshot.click = session.click
        guard let grid = mapPractice.grid, !grid.isEmpty else { return snapshot }
        if let position = grid.barAndBeat(at: frame) { (snapshot.bar, snapshot.beat) = (position.bar, position.beat) }
        snapshot.tempoBPM = grid.tempoBPM
        snapshot.tempoAlternativeBPM = grid.unsureAlternativeBPM
        snapshot.beatsPerBar = grid.beatsPerBar
        snapshot.key = grid.key
        snapshot.downbeatFrames = grid.downbeatFrames
        return snapshot
    }

    private func setSnap(_ mode: SnapMode, source: CommandSource) {
        session.snap = mode
        engine.controls.snap.store(snapCode(mode), ordering: .relaxed)
        if mode != .off, mapPractice.grid == nil { output.note(mapMissing("snapping") + "; A/B here snaps once the map is ready") }
        output.event(PlayerEvent("snap", source: source, note: "snap: \(mode.rawValue)") { $0.add("mode", mode.rawValue) })
    }

    private func setCountIn(_ beats: Int, source: CommandSource) {
        session.countInBeats = beats
        updateCountIn()
        if beats > 0, mapPractice.grid == nil { output.note(mapMissing("the count-in") + "; it starts when the map is ready") }
        output.event(PlayerEvent("count-in", source: source, note: beats == 0 ? "count-in off" : "count-in: \(beats) clicks") { $0.add("beats", beats) })
    }

    private func snapCode(_ mode: SnapMode) -> UInt8 {
        switch mode {
        case .off: return 0
        case .beat: return 1
        case .bar: return 2
        }
    }

    private func mapMissing(_ what: String) -> String {
        switch mapPractice.state {
        case .analysing(let fraction): return "\(what) needs the map: the analysis is at \(Int(fraction * 100)) %"
        case .failed(let message): return "\(what) needs the map, and the analysis failed (\(message))"
        case .none, .ready: return "\(what) needs the map, and there is none for this recording"
        }
    }

    func mapNote(_ grid: BeatGrid, prefix: String) -> String {
        guard !grid.isEmpty else { return "\(prefix): no beats found" }
        var tempo = String(format: "%.1f BPM", grid.tempoBPM)
        if let other = grid.unsureAlternativeBPM { tempo += String(format: " (or %.1f? %@ switches)", other, MapReport.switchName(to: other, from: grid.tempoBPM)) }
        var parts = [tempo, "\(grid.beatsPerBar) beats a bar", "\(grid.barCount) bars"]
        if let key = grid.key { parts.append(key) }
        return "\(prefix): " + parts.joined(separator: ", ")
    }

    func describe(_ grid: BeatGrid, into line: inout JSONLine) {
        line.add("tempo_bpm", grid.tempoBPM)
        line.add("tempo_confidence", grid.tempoConfidence, digits: 3)
        if let alternative = grid.tempoAlternativeBPM { line.add("tempo_alternative_bpm", alternative, digits: 3) } else { line.addRaw("tempo_alternative_bpm", "null") }
        line.add("beats_per_bar", grid.beatsPerBar)
        line.add("beats", grid.beatFrames.count)
        line.add("bars", grid.barCount)
        if let key = grid.key { line.add("key", key) } else { line.addRaw("key", "null") }
    }
}
