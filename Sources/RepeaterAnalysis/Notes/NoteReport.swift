/// What sounds in one analysed stretch of audio: the spectrum's energy per piano key, the notes
/// found (fundamentals, not overtones), and a chord name. A value, safe to hand to another thread.
public struct NoteReport: Sendable, Equatable {
    /// One sounding note: the MIDI key nearest its fundamental and how far off it is.
    public struct Note: Sendable, Equatable {
        /// "A4", "F#3", "Bb2": pitch class (in the analyser's spelling) and scientific octave (C4 = MIDI 60).
        public var name: String
        /// MIDI key nearest the estimated fundamental (A4 = 69 = 440 Hz).
        public var midi: Int
        /// Offset of the fundamental from `midi`'s equal-tempered pitch (A4 = 440 Hz), −50 … +50 cents.
        public var cents: Float
        /// The estimated fundamental in Hz.
        public var frequencyHz: Float
        /// Energy of the partials attributed to this note, in dB relative to a full-scale sine (0 dB).
        public var levelDB: Float

        public init(name: String, midi: Int, cents: Float, frequencyHz: Float, levelDB: Float) {
            self.name = name
            self.midi = midi
            self.cents = cents
            self.frequencyHz = frequencyHz
            self.levelDB = levelDB
        }
    }

    /// The lowest key `keyLevels` covers: MIDI 21, A0.
    public static let lowestKey = 21
    /// The highest key `keyLevels` covers: MIDI 108, C8.
    public static let highestKey = 108
    /// The level `keyLevels` holds for a key where no spectral peak was found.
    public static let floorDB: Float = -120

    /// Spectral energy per key, `keyLevels[midi - lowestKey]` for MIDI `lowestKey … highestKey`
    /// (88 keys, A0 … C8), in dB relative to a full-scale sine: the summed power of the spectral
    /// peaks whose frequency is nearest that key. Overtones show here (as on Transcribe!'s keyboard);
    /// `floorDB` where there is no peak.
    public var keyLevels: [Float]
    /// Up to 6 notes, strongest (`levelDB`) first; empty for silence and for sounds with no pitch.
    public var notes: [Note]
    /// A chord name ("C", "Am7", "C/E", "F#m7b5/E"), or nil when no chord from the vocabulary sounds.
    public var chord: String?

    public init(keyLevels: [Float], notes: [Note], chord: String?) {
        self.keyLevels = keyLevels
        self.notes = notes
        self.chord = chord
    }

    /// `chord` as a value (root, quality, bass), e.g. to show it without the bass.
    public var chordName: ChordName? { chord.flatMap { ChordName(parsing: $0) } }

    /// A report of nothing: every key at `floorDB`, no notes, no chord.
    public static var silent: NoteReport {
        NoteReport(keyLevels: [Float](repeating: floorDB, count: highestKey - lowestKey + 1), notes: [], chord: nil)
    }

    /// The level of MIDI key `midi`, or `floorDB` outside the covered range.
    public func level(ofKey midi: Int) -> Float {
        (Self.lowestKey...Self.highestKey).contains(midi) ? keyLevels[midi - Self.lowestKey] : Self.floorDB
    }
}
