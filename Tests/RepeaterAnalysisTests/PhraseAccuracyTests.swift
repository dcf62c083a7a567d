import Foundation
import RepeaterAnalysis
import RepeaterTestSupport
import Testing

/// Phrases against the truth: espeak-ng sentences in six languages (en, fr, de, es, it, cmn), their
/// own silence trimmed, joined by pauses of known lengths (0.75–2.2 s, all above the 0.7 s
/// minimum), so every sentence's first and last frame is known.
@Suite("Phrase accuracy")
struct PhraseAccuracyTests {
    static let pauses = [0.75, 1.0, 1.3, 1.7, 2.2, 0.9]

    @Test("every sentence lies in one phrase and no comma pause splits one, at 120 and 200 words a minute",
          arguments: [true, false])
    func clean(slow: Bool) throws {
        let sentences = try Speech.sentences(slow: slow)
        let commaPauses = sentences.filter(\.hasComma).map(\.longestInternalPauseSeconds)
        let track = SpeechTrack.join(sentences, pauses: Self.pauses)
        let score = PhraseScore(phrases: detect(track.samples, sampleRate: track.sampleRate), track: track)
        print("\(slow ? 120 : 200) wpm, clean: \(score); comma pauses \(commaPauses.min()!)–\(commaPauses.max()!) s, "
              + "languages \(Set(sentences.map(\.voice)).sorted())")
        #expect(score.insideOnePercent >= 95)
        #expect(score.commaSplitCount == 0)
        #expect(score.oneToOneCount >= score.sentenceCount * 95 / 100)  // not glued either
        #expect(score.meanStartErrorSeconds < 0.03 && score.meanEndErrorSeconds < 0.03)
        #expect(abs(score.meanPlayStartOffsetSeconds + 0.2) < 0.03)  // the 0.2 s pre-roll
    }

    @Test("steady background noise between and under the sentences does not glue them", arguments: [Float(-40), -35])
    func noise(dBFS: Float) throws {
        let sentences = try Speech.sentences()
        let speechPower = sentences.flatMap(\.samples).reduce(0) { $0 + Double($1 * $1) } / Double(sentences.flatMap(\.samples).count)
        let track = SpeechTrack.join(sentences, pauses: Self.pauses, noiseDBFS: dBFS)
        let score = PhraseScore(phrases: detect(track.samples, sampleRate: track.sampleRate), track: track)
        let snr = 10 * log10(speechPower) - Double(dBFS)
        print("noise \(dBFS) dBFS (speech-to-noise \(Int(snr.rounded())) dB): \(score)")
        #expect(score.insideOnePercent >= 95)
        #expect(score.commaSplitCount == 0)
        #expect(score.phraseCount >= score.sentenceCount * 9 / 10)
    }

    @Test("at 10 dB speech-to-noise (−30 dBFS) most sentences still hold; at 7 dB the figures show the limit")
    func noiseLimit() throws {
        let sentences = try Speech.sentences()
        for dBFS: Float in [-30, -27] {
            let track = SpeechTrack.join(sentences, pauses: Self.pauses, noiseDBFS: dBFS)
            let score = PhraseScore(phrases: detect(track.samples, sampleRate: track.sampleRate), track: track)
            print("noise \(dBFS) dBFS: \(score)")
            if dBFS == -30 { #expect(score.insideOnePercent >= 90) }
        }
    }
}
