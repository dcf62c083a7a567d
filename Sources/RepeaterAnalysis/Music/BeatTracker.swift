/// The beats of a recording, from its onset detection function, by TempoTrackV2, with three
/// changes to how qm-vamp-plugins uses it (each says why where it is made):
/// 1. Each beat-period estimate sits at the centre of the window it was measured on
///    (`qm_beat_periods`), not 2.2 s early.
/// 2. The tempo octave is chosen by `TempoOctave`'s rule, and the beats are tracked again with the
///    prior centred there.
/// 3. Beats in leading and trailing silence are dropped (`audibleBeats`).
enum BeatTracker {
    /// Detection-function indices of the beats, ascending; empty when the input is too short
    /// (under about 7.5 s) or silent.
    static func beats(layout: QMStream.Layout, detectionFunction detection: [Double]) throws(MusicAnalysisError) -> [Double] {
        try track(layout: layout, detectionFunction: detection).beats
    }

    /// The beats, and the evidence the octave was chosen on (nil without beats).
    static func track(layout: QMStream.Layout, detectionFunction detection: [Double]) throws(MusicAnalysisError)
        -> (beats: [Double], octave: TempoOctave.Evidence?) {
        guard let periods = try QMStream.beatPeriods(layout: layout, detectionFunction: detection) else { return ([], nil) }
        var beats = try QMStream.beats(layout: layout, detectionFunction: detection, periods: periods)
        guard beats.count >= 2 else { return ([], nil) }
        let octave = TempoOctave.evidence(detectionFunction: detection, beats: beats)
        if octave.choice != .keep {
            let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
            let bpm = 60 * Double(layout.sampleRate) / (TempoMap.median(intervals) * Double(layout.stepFrameCount))
            let target = octave.choice == .halve ? bpm / 2 : bpm * 2
            guard let constrained = try QMStream.beatPeriods(layout: layout, detectionFunction: detection,
                                                             inputTempoBPM: target, constrainTempo: true) else { return ([], nil) }
            beats = try QMStream.beats(layout: layout, detectionFunction: detection, periods: constrained)
        }
        return (audibleBeats(beats, detectionFunction: detection), octave)
    }

    /// The beats within the music: the tracker carries its beat on through leading and trailing
    /// silence, where nothing is heard. Silence is where the detection function stays below 1 % of
    /// its 99th percentile; beats more than half a beat into it are dropped.
    static func audibleBeats(_ beats: [Double], detectionFunction detection: [Double]) -> [Double] {
        guard beats.count >= 2, !detection.isEmpty else { return beats }
        let sorted = detection.sorted()
        let threshold = 0.01 * sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        guard threshold > 0, let first = detection.firstIndex(where: { $0 > threshold }),
              let last = detection.lastIndex(where: { $0 > threshold }) else { return [] }
        let halfBeat = TempoMap.median(zip(beats.dropFirst(), beats).map { $0 - $1 }) / 2
        return beats.filter { $0 >= Double(first) - halfBeat && $0 <= Double(last) + halfBeat }
    }
}
