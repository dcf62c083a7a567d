extension PhraseDetector {
    /// The detector's parameters. Every default is chosen for shadowing and repeat-after-me
    /// drills, where phrases of 0.5–8 s are what a learner can hold in memory and say back.
    public struct Configuration: Sendable, Equatable {
        /// Analysis frame (hop and window): 10 ms, fine enough for boundaries (a syllable is
        /// 100–250 ms), coarse enough to keep an hour in 360 000 levels.
        public var analysisFrameSeconds = 0.01
        /// A quiet stretch ends a phrase when it lasts the recording's pause threshold, read from
        /// its own quiet stretches (`PauseThreshold`), within this range: 0.25–0.7 s. Pauses
        /// between sentences in read or conversational speech are 0.3–1.5 s; pauses at commas,
        /// breaths and stop closures inside a sentence 0.05–0.3 s (espeak-ng's commas measure
        /// 0.10–0.16 s at 200 words a minute and 0.26–0.35 s at 120). Below 0.25 s a sentence's own
        /// pauses would cut it; above 0.7 s (the one rule of earlier versions) sentences a short
        /// breath apart run together.
        public var pauseThresholdRangeSeconds = 0.25...0.7
        /// The threshold is where the fewest quiet stretches lie within this factor of it
        /// (natural log): ±0.2, a factor of 1.22, wide enough that one stray stretch does not make a
        /// valley, narrow enough to fit between commas of 0.35 s and sentence pauses of 0.75 s.
        public var pauseDensityHalfWidth = 0.2
        /// …and leaves at least this share of the stretches of 0.25 s or more above it: a quarter.
        public var longPauseShare = 0.25
        /// Kept before a phrase's first sound: 0.2 s, so a soft onset (/s/, /f/, /h/, a breathy
        /// vowel) that stays under the speech threshold still plays, and the loop does not start
        /// with a click into a consonant.
        public var preRollSeconds = 0.2
        /// Kept after its last sound: 0.3 s, for final consonants, a fading vowel and
        /// reverberation that fall under the release threshold while still audible (on recorded
        /// voices a sentence's voice fades 0.2–0.25 s past that point when it is 10 dB quieter
        /// than its neighbours). Where the rolls of neighbours would overlap (a pause shorter than
        /// 0.5 s) they meet in the middle of the pause.
        public var postRollSeconds = 0.3
        /// Fragments shorter than this (first to last sound) are merged into the nearer
        /// neighbour: 0.5 s, the shortest useful drill (a short word with its rolls is ~0.9 s).
        public var minimumPhraseSeconds = 0.5
        /// A fragment merges only across a pause of at most this much: 1.5 s. Further away it
        /// is on its own ("Yes." between two long silences stays a phrase).
        public var mergeGapSeconds = 1.5
        /// Phrases longer than this are split at their longest internal pause, again until none
        /// is: 8 s, about what a learner can repeat after one hearing.
        public var maximumPhraseSeconds = 8.0
        /// Sound starts a phrase this far above the background (`PhraseBackground`): 10 dB. Voiced speech is 25–50 dB
        /// above a room's noise; steady noise in a 10 ms frame fluctuates by ±1–2 dB around its
        /// level, so 10 dB is never reached by it, and bursts that do reach it are judged by their
        /// length and loudness (below). Measured on espeak-ng speech in white noise (tests):
        /// 10/4 dB keeps ≥ 95 % of sentences whole down to 10 dB speech-to-noise, 12/6 dB only
        /// down to 15 dB (70 % at 10 dB).
        public var speechMarginDB: Float = 10
        /// Sound continues while it stays this far above the background: 4 dB. The hysteresis keeps weak
        /// consonants and decays (4–10 dB) inside a phrase; noise that crosses 4 dB while quiet
        /// does not matter, since only 10 dB turns sound on again.
        public var releaseMarginDB: Float = 4
        /// The noise floor at a moment is the lowest `floorSmoothingSeconds` average level within
        /// ±half this window: 10 s, long enough to contain a pause between phrases of up to 8 s,
        /// short enough to follow a changing background (a fan switched on) within 5 s.
        public var floorWindowSeconds = 10.0
        /// The local floor may sit at most `floorRiseLimitDB` (12 dB) above the lowest 0.2 s
        /// average within ±half this window (60 s). Without it, sound lasting longer than half the
        /// local window with no 0.2 s dip (a speaker who does not pause for 5 s, a sustained tone)
        /// would become "background" and vanish; with it, a background that grows by up to 12 dB
        /// (a fan, traffic) is still followed within 5 s.
        public var floorLongWindowSeconds = 60.0
        public var floorRiseLimitDB: Float = 12
        /// 0.2 s: averaging first makes the minimum robust to dropouts and edits (a 50 ms hole of
        /// digital silence in noise moves the 0.2 s average by ~1 dB) while a 0.7 s pause still
        /// holds a clean 0.2 s of background.
        public var floorSmoothingSeconds = 0.2
        /// The background is this percentile of the 0.2 s averages within ±`floorWindowSeconds`/2:
        /// the 10th, and at most `backgroundRiseLimitDB` (6 dB) above the noise floor
        /// (`PhraseBackground` says why).
        public var backgroundPercentile = 0.1
        public var backgroundRiseLimitDB: Float = 6
        /// The floor is never taken below −70 dBFS: digital silence, dither and 16-bit noise would
        /// otherwise put the thresholds near −100 dBFS, where reverberation tails and breaths
        /// count as speech and glue phrases together. Speech recorded at any usable level is far above.
        public var floorMinimumDBFS: Float = -70
        /// A burst with less sound than this is a click, pop or tap, dropped: 0.1 s (the shortest
        /// word is longer; a click is 1–3 frames).
        public var minimumSoundSeconds = 0.1
        /// A burst whose loudest frame is this much below the median loudest frame of the
        /// recording's bursts is a breath, a chair or a distant noise, dropped: 25 dB (breaths are
        /// 30–40 dB below voiced speech; a quiet speaker is within 10–15 dB of the others).
        public var quietBurstDB: Float = 25
        /// How far back from a phrase's onset (the first frame above the speech threshold) its
        /// first sound is looked for among frames above the release threshold: 0.3 s.
        public var onsetSearchSeconds = 0.3

        public init() {}
    }
}
