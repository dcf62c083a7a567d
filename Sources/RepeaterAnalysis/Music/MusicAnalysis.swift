/// The map of a recording: its tempo, beats, bars and key. Frames are sample frames at the
/// recording's own rate, counted from its first frame.
public struct MusicAnalysis: Sendable, Equatable {
    public var sampleRate: Int
    /// Frames analysed.
    public var frameCount: Int
    /// The main tempo in beats per minute: the tempo that lasts longest in `tempoChanges`; 0 when
    /// no beats were found (silence, or under 7.5 s of audio).
    public var tempoBPM: Double
    /// How sure the analysis is of `tempoBPM` against `tempoAlternativeBPM`, 0 (a coin toss, or
    /// no beats) to 1 (the other octave has no support at all). See `TempoOctave`.
    public var tempoConfidence: Double
    /// The other tempo octave weighed (twice or half `tempoBPM`); nil without beats.
    public var tempoAlternativeBPM: Double?
    /// The tempo map: each entry holds from its frame until the next one's. The first starts at
    /// the first beat; a steady piece has one entry. Empty when no beats were found.
    public var tempoChanges: [TempoChange]
    /// Every beat, ascending.
    public var beatFrames: [Int]
    /// The beats that start bars, a subset of `beatFrames`, every `beatsPerBar`-th beat. Bar 1
    /// starts at the first; beats before it are a pickup.
    public var downbeatFrames: [Int]
    /// Beats in a bar, detected (3 or 4); 0 when no bars were found.
    public var beatsPerBar: Int
    /// The key of the whole recording (of its last hour, if longer), or nil when there is no
    /// pitched content to judge by (silence, under 0.75 s of audio, or a rate below 16.8 kHz,
    /// where GetKeyMode's chromagram cannot reach C6).
    public var key: MusicalKey?

    public init(sampleRate: Int, frameCount: Int, tempoBPM: Double, tempoChanges: [TempoChange], beatFrames: [Int],
                downbeatFrames: [Int], beatsPerBar: Int, key: MusicalKey?, tempoConfidence: Double = 0, tempoAlternativeBPM: Double? = nil) {
        self.sampleRate = sampleRate
        self.frameCount = frameCount
        self.tempoBPM = tempoBPM
        self.tempoConfidence = tempoConfidence
        self.tempoAlternativeBPM = tempoAlternativeBPM
        self.tempoChanges = tempoChanges
        self.beatFrames = beatFrames
        self.downbeatFrames = downbeatFrames
        self.beatsPerBar = beatsPerBar
        self.key = key
    }

    /// The analysis of a recording with nothing to find: no beats, no bars, no key.
    public static func empty(sampleRate: Int, frameCount: Int) -> MusicAnalysis {
        MusicAnalysis(sampleRate: sampleRate, frameCount: frameCount, tempoBPM: 0, tempoChanges: [], beatFrames: [],
                      downbeatFrames: [], beatsPerBar: 0, key: nil)
    }
}

/// From `startFrame` on, the beats come `bpm` a minute.
public struct TempoChange: Sendable, Equatable {
    public var startFrame: Int
    public var bpm: Double

    public init(startFrame: Int, bpm: Double) {
        self.startFrame = startFrame
        self.bpm = bpm
    }
}

/// A key: its tonic's pitch class and its mode.
public struct MusicalKey: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Pitch class of the tonic, 0 (C) … 11 (B).
    public var tonic: Int
    public var isMinor: Bool

    public init(tonic: Int, isMinor: Bool) {
        self.tonic = ((tonic % 12) + 12) % 12
        self.isMinor = isMinor
    }

    /// "A minor", "F# major", "Eb major": sharps or flats as the key signature writes them, and of
    /// the two six-accidental keys the usual spellings, F# major and Eb minor.
    public var name: String {
        let sharps = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        let flats = ["C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"]
        // Keys whose signature (that of the relative major) has flats: F, Bb, Eb, Ab, Db (and Gb
        // for Eb minor).
        let relativeMajor = isMinor ? (tonic + 3) % 12 : tonic
        let flatMajors: Set = isMinor ? [5, 10, 3, 8, 1, 6] : [5, 10, 3, 8, 1]
        let names = flatMajors.contains(relativeMajor) ? flats : sharps
        return names[tonic] + (isMinor ? " minor" : " major")
    }

    public var description: String { name }
}

extension MusicalKey {
    /// The strongest of GetKeyMode's 24 key strengths (C…B major, then C…B minor), or nil when
    /// none is positive (no pitched content: silence, or noise).
    init?(strengths: [Double]) {
        guard strengths.count == 24, let best = strengths.indices.max(by: { strengths[$0] < strengths[$1] }),
              strengths[best] > 0, strengths[best].isFinite else { return nil }
        self.init(tonic: best % 12, isMinor: best >= 12)
    }
}
