import Foundation

/// `repeater analyze`'s output: a map for people, or one JSON object for scripts.
public enum MapReport {
    /// The JSON object: `sample_rate`, `frames`, `tempo_bpm`, `tempo_confidence` (0–1),
    /// `tempo_alternative_bpm` (the other octave weighed, or null), `tempo_changes`, `beats` and
    /// `downbeats` (seconds, 6 decimals), `beat_frames`, `downbeat_frames`, `beats_per_bar`, `key`,
    /// `cached`.
    public static func json(_ grid: BeatGrid, cached: Bool) -> String {
        let rate = Double(grid.sampleRate)
        func seconds(_ frames: [Int]) -> String { "[" + frames.map { String(format: "%.6f", Double($0) / rate) }.joined(separator: ",") + "]" }
        func list(_ frames: [Int]) -> String { "[" + frames.map(String.init).joined(separator: ",") + "]" }
        var line = JSONLine()
        line.add("sample_rate", grid.sampleRate)
        line.add("frames", grid.frameCount)
        line.add("tempo_bpm", grid.tempoBPM, digits: 3)
        line.add("tempo_confidence", grid.tempoConfidence, digits: 3)
        if let alternative = grid.tempoAlternativeBPM { line.add("tempo_alternative_bpm", alternative, digits: 3) } else { line.addRaw("tempo_alternative_bpm", "null") }
        line.addRaw("tempo_changes", "[" + grid.tempoChanges.map { span in
            var change = JSONLine()
            change.add("start_s", Double(span.startFrame) / rate, digits: 6)
            change.add("start_frame", span.startFrame)
            change.add("bpm", span.bpm, digits: 3)
            return change.text
        }.joined(separator: ",") + "]")
        line.addRaw("beats", seconds(grid.beatFrames))
        line.addRaw("downbeats", seconds(grid.downbeatFrames))
        line.addRaw("beat_frames", list(grid.beatFrames))
        line.addRaw("downbeat_frames", list(grid.downbeatFrames))
        line.add("beats_per_bar", grid.beatsPerBar)
        if let key = grid.key { line.add("key", key) } else { line.addRaw("key", "null") }
        line.add("cached", cached)
        return line.text
    }

    /// The key and the stdin command that switch the tempo to `other` (its double or half).
    public static func switchName(to other: Double, from tempo: Double) -> String {
        other > tempo ? "* (tempo double)" : "/ (tempo half)"
    }

    /// A few lines for people.
    public static func text(_ grid: BeatGrid, path: String, cached: Bool) -> String {
        let rate = grid.sampleRate
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
        var lines = ["file:          \(path)"]
        guard !grid.isEmpty else {
            lines.append("beats:         none found (no steady pulse in this recording)")
            lines.append("key:           \(grid.key ?? "unknown")")
            return lines.joined(separator: "\n")
        }
        if grid.tempoChanges.count > 1 {
            lines.append("tempo:         " + String(format: "%.1f BPM mostly; it changes:", grid.tempoBPM))
            for span in grid.tempoChanges { lines.append("               from \(time(span.startFrame)): " + String(format: "%.1f BPM", span.bpm)) }
        } else {
            lines.append("tempo:         " + String(format: "%.1f BPM", grid.tempoBPM))
        }
        if let other = grid.unsureAlternativeBPM {
            lines.append("               " + String(format: "or %.1f BPM? (sure %.2f of 1); in play, %@ switches to it", other, grid.tempoConfidence,
                                                   Self.switchName(to: other, from: grid.tempoBPM)))
        }
        lines.append("beats:         \(grid.beatFrames.count), the first at \(time(grid.beatFrames[0]))")
        if let first = grid.downbeatFrames.first {
            let pickup = grid.beatFrames.filter { $0 < first }.count
            lines.append("bars:          \(grid.barCount) of \(grid.beatsPerBar) beats; bar 1 at \(time(first))" + (pickup > 0 ? " (after a pickup of \(pickup) beat\(pickup == 1 ? "" : "s"))" : ""))
        } else {
            lines.append("bars:          none found")
        }
        lines.append("key:           \(grid.key ?? "unknown")")
        lines.append("cached:        \(cached ? "yes (analysed before)" : "now, under \(MapCache.folder())")")
        let bars = zip(grid.downbeatFrames.indices, grid.downbeatFrames).prefix(64).map { "\($0 + 1) \(time($1))" }
        if !bars.isEmpty { lines.append("bar starts:    " + bars.joined(separator: " · ") + (grid.barCount > 64 ? " · …" : "")) }
        return lines.joined(separator: "\n")
    }
}
