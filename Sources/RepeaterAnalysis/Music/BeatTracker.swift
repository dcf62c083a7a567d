/// The beats of a recording, from its onset detection function, by TempoTrackV2, with four
/// changes to how qm-vamp-plugins uses it (each says why where it is made):
/// 1. Each beat-period estimate sits at the centre of the window it was measured on
///    (`qm_beat_periods`), not 2.2 s early.
/// 2. A recording whose onsets do not repeat at the tracked beat (`PulseClarity`: a steady tone,
///    speech, noise) has no beats: the tracker finds "beats" in anything.
/// 3. The tempo octave is chosen by `TempoOctave`'s rule, and the beats are tracked again with the
///    prior centred on the tempo chosen, which also keeps the tracker from wandering to another
///    octave for a few bars (a tempo change nobody hears).
/// 4. Beats in leading and trailing silence are dropped (`audibleBeats`).
enum BeatTracker {
    struct Tracked {
        /// Detection-function indices of the beats, ascending.
        var beats: [Double]
        /// The evidence the octave was chosen on (nil without beats).
        var octave: TempoOctave.Evidence?
        /// How clearly the onsets repeat at the tracked beat (0 without a tracked beat).
        var clarity: Double
    }

    /// Detection-function indices of the beats, ascending; empty when the input is too short
    /// (under about 7.5 s), silent, or has no pulse.
    static func beats(layout: QMStream.Layout, detectionFunction detection: [Double]) throws(MusicAnalysisError) -> [Double] {
        try track(layout: layout, detectionFunction: detection).beats
    }

    static func track(layout: QMStream.Layout, detectionFunction detection: [Double]) throws(MusicAnalysisError) -> Tracked {
        let none = Tracked(beats: [], octave: nil, clarity: 0)
        guard let periods = try QMStream.beatPeriods(layout: layout, detectionFunction: detection) else { return none }
        let free = try QMStream.beats(layout: layout, detectionFunction: detection, periods: periods)
        guard free.count >= 2 else { return none }
        let lag = TempoMap.median(zip(free.dropFirst(), free).map { $0 - $1 })
        let clarity = PulseClarity.at(lag: lag, detectionFunction: detection)
        guard clarity >= PulseClarity.minimum else { return Tracked(beats: [], octave: nil, clarity: clarity) }
        let stepSeconds = Double(layout.stepFrameCount) / Double(layout.sampleRate)
        let octave = TempoOctave.evidence(detectionFunction: detection, beats: free, stepSeconds: stepSeconds)
        guard let constrained = try QMStream.beatPeriods(layout: layout, detectionFunction: detection,
                                                         inputTempoBPM: octave.chosenBPM, constrainTempo: true) else { return none }
        let beats = try QMStream.beats(layout: layout, detectionFunction: detection, periods: constrained)
        return Tracked(beats: audibleBeats(beats, detectionFunction: detection), octave: octave, clarity: clarity)
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
