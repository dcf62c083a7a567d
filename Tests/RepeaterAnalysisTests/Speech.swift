import RepeaterAnalysis
import RepeaterTestSupport
import Testing

/// The sentence corpus spoken once per test run and speed (espeak-ng takes ~20 ms a sentence).
enum Speech {
    static let slow: Result<[SpokenSentence], Error> = speakAll(wordsPerMinute: 120)
    static let fast: Result<[SpokenSentence], Error> = speakAll(wordsPerMinute: 200)

    private static func speakAll(wordsPerMinute: Int) -> Result<[SpokenSentence], Error> {
        Result {
            try SentenceCorpus.byVoice.flatMap { voice, texts in
                try texts.map { try SpokenSentence.speak($0, voice: voice, wordsPerMinute: wordsPerMinute) }
            }
        }
    }

    static func sentences(slow: Bool = true) throws -> [SpokenSentence] { try (slow ? Speech.slow : Speech.fast).get() }

    static func sentence(_ text: String, voice: String = "en", wordsPerMinute: Int = 160) throws -> SpokenSentence {
        try SpokenSentence.speak(text, voice: voice, wordsPerMinute: wordsPerMinute)
    }
}

func detect(_ samples: [Float], sampleRate: Int, channelCount: Int = 1, blockFrameCount: Int = 4096,
            configuration: PhraseDetector.Configuration = .init()) -> [Phrase] {
    var detector = PhraseDetector(sampleRate: sampleRate, channelCount: channelCount, configuration: configuration)
    var start = 0
    let blockSampleCount = blockFrameCount * channelCount
    samples.withUnsafeBufferPointer { all in
        while start < all.count {
            let end = min(all.count, start + blockSampleCount)
            detector.process(interleaved: UnsafeBufferPointer(rebasing: all[start..<end]))
            start = end
        }
    }
    return detector.phrases()
}

func seconds(_ frames: Int, _ rate: Int) -> Double { Double(frames) / Double(rate) }
