/// The user's corrections to a recording's beats and bars, kept in the session (`"map"`) and applied
/// over whatever the analysis found, so they win and survive a new analysis. Each is a setting, not
/// a step: applying them twice gives the same grid.
public struct MapCorrections: Equatable, Sendable {
    /// Doublings (+) or halvings (−) of the detected beats: a tracker that locked on half or double
    /// the tempo.
    public var tempoOctaves = 0
    /// A steady tempo the user set: the beats become an even grid at it, through the bar's first
    /// beat (the marked one, else the first detected).
    public var tempoBPM: Double?
    /// Every beat moved by this many frames (later when positive).
    public var nudgeFrames = 0
    /// A frame the user marked as the start of a bar: the nearest beat starts one, and bars are
    /// counted every `beatsPerBar` beats from it.
    public var downbeatFrame: Int?
    public var beatsPerBar: Int?

    public init() {}

    public var isEmpty: Bool { self == MapCorrections() }

    /// Bars are counted anew from a beat (not taken as the analysis found them).
    private var recountsBars: Bool { downbeatFrame != nil || beatsPerBar != nil || tempoBPM != nil || tempoOctaves != 0 }

    /// The grid the player uses: `detected` with these corrections applied.
    public func apply(to detected: BeatGrid) -> BeatGrid {
        let rate = detected.sampleRate, length = detected.frameCount
        var beats = detected.beatFrames
        // The beat bars are counted from, before the nudge: the marked one, else the analysis's first bar.
        let anchor = downbeatFrame.map { $0 - nudgeFrames } ?? detected.downbeatFrames.first ?? beats.first ?? 0
        if let tempoBPM, tempoBPM > 0 {
            let period = 60 * Double(rate) / tempoBPM
            let first = Double(anchor) - (Double(anchor) / period).rounded(.down) * period
            beats = stride(from: first, to: Double(length), by: period).map { Int($0.rounded()) }
        } else {
            for _ in 0..<max(0, tempoOctaves) { beats = Self.doubled(beats, frameCount: length) }
            for _ in 0..<max(0, -tempoOctaves) { beats = Self.halved(beats, keeping: anchor) }
        }
        beats = beats.map { $0 + nudgeFrames }.filter { $0 >= 0 && $0 < length }
        var downbeats: [Int]
        let bpb = max(1, beatsPerBar ?? (detected.beatsPerBar > 0 ? detected.beatsPerBar : 4))
        if recountsBars, !beats.isEmpty {
            let marked = anchor + nudgeFrames
            let index = beats.indices.min { abs(beats[$0] - marked) < abs(beats[$1] - marked) } ?? 0
            downbeats = beats.indices.filter { ($0 - index) % bpb == 0 }.map { beats[$0] }
        } else {
            downbeats = detected.downbeatFrames.map { $0 + nudgeFrames }.filter { $0 >= 0 && $0 < length }
        }
        let beatSet = Set(beats)
        downbeats = downbeats.filter { beatSet.contains($0) }
        if isEmpty { return detected }
        let steady = tempoBPM != nil || tempoOctaves != 0
        // A tempo the user set (or doubled, or halved) is sure; other corrections keep the analysis's doubt.
        return BeatGrid(sampleRate: rate, frameCount: length, beatFrames: beats, downbeatFrames: downbeats,
                        beatsPerBar: recountsBars ? bpb : detected.beatsPerBar, key: detected.key,
                        tempoBPM: tempoBPM ?? (steady ? nil : detected.tempoBPM),
                        tempoChanges: steady ? [] : detected.tempoChanges.map { TempoSpan(startFrame: $0.startFrame + nudgeFrames, bpm: $0.bpm) },
                        tempoConfidence: steady ? 1 : detected.tempoConfidence,
                        tempoAlternativeBPM: steady ? nil : detected.tempoAlternativeBPM)
    }

    /// A beat between every two, and one after the last (half a beat later) when it fits.
    static func doubled(_ beats: [Int], frameCount: Int) -> [Int] {
        guard beats.count >= 2 else { return beats }
        var out: [Int] = []
        for (beat, next) in zip(beats, beats.dropFirst()) { out += [beat, (beat + next) / 2] }
        out.append(beats[beats.count - 1])
        let half = (beats[beats.count - 1] - beats[beats.count - 2]) / 2
        if beats[beats.count - 1] + half < frameCount { out.append(beats[beats.count - 1] + half) }
        return out
    }

    /// Every other beat, keeping the one nearest `anchor`.
    static func halved(_ beats: [Int], keeping anchor: Int) -> [Int] {
        guard let index = beats.indices.min(by: { abs(beats[$0] - anchor) < abs(beats[$1] - anchor) }) else { return beats }
        return beats.indices.filter { ($0 - index) % 2 == 0 }.map { beats[$0] }
    }
}
