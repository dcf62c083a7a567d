import Foundation

/// Sentences joined by silences of known lengths, so that every sentence's true first and last
/// frame is known: the ground truth phrase detection is scored against.
public struct SpeechTrack: Sendable {
    public struct Placed: Sendable {
        public var sentence: SpokenSentence
        /// The sentence's first frame, and one past its last.
        public var startFrame: Int
        public var endFrame: Int
    }

    public var samples: [Float]
    public var sampleRate: Int
    public var placed: [Placed]

    /// `sentences` in order, `pauses[i]` seconds of silence after sentence i (cycled), with
    /// `edgeSeconds` of silence before the first and after the last. All sentences must share a
    /// rate. With `noiseDBFS`, white noise of that RMS level is added everywhere (a steady room
    /// background); `seed` makes it repeatable.
    public static func join(_ sentences: [SpokenSentence], pauses: [Double], edgeSeconds: Double = 1.0,
                            noiseDBFS: Float? = nil, seed: UInt64 = 1) -> SpeechTrack {
        let rate = sentences.first?.sampleRate ?? 22_050
        var samples = [Float](repeating: 0, count: Int(edgeSeconds * Double(rate)))
        var placed: [Placed] = []
        for (index, sentence) in sentences.enumerated() {
            precondition(sentence.sampleRate == rate, "SpeechTrack.join: sentences at different rates")
            let start = samples.count
            samples.append(contentsOf: sentence.samples)
            placed.append(Placed(sentence: sentence, startFrame: start, endFrame: samples.count))
            let pause = index + 1 < sentences.count ? pauses[index % pauses.count] : edgeSeconds
            samples.append(contentsOf: [Float](repeating: 0, count: Int(pause * Double(rate))))
        }
        if let noiseDBFS {
            var random = SplitMix64(seed: seed)
            // Uniform noise in ±a has RMS a/√3.
            let amplitude = Float(pow(10, Double(noiseDBFS) / 20) * 3.0.squareRoot())
            for index in samples.indices { samples[index] += amplitude * (2 * random.nextUnit() - 1) }
        }
        return SpeechTrack(samples: samples, sampleRate: rate, placed: placed)
    }

    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }
}

/// A small deterministic generator for test signals (the standard one is not seedable).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func nextUnit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}
