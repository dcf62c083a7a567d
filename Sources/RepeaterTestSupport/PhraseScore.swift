import RepeaterAnalysis

/// How well phrases match the sentences of a `SpeechTrack`.
public struct PhraseScore: Sendable, CustomStringConvertible {
    public var sentenceCount = 0
    public var phraseCount = 0
    /// Sentences lying wholly inside one phrase (phrases never overlap, so at most one).
    public var insideOneCount = 0
    /// Phrases holding exactly one sentence.
    public var oneToOneCount = 0
    public var commaSentenceCount = 0
    /// Sentences with a comma that some phrase boundary cuts.
    public var commaSplitCount = 0
    /// Mean |phrase sound start − sentence start| over sentences that begin a phrase, and the
    /// same for ends; seconds.
    public var meanStartErrorSeconds = 0.0
    public var meanEndErrorSeconds = 0.0
    /// Mean signed (phrase start with pre-roll − sentence start): about −pre-roll when right.
    public var meanPlayStartOffsetSeconds = 0.0

    public var insideOnePercent: Double { sentenceCount == 0 ? 0 : 100 * Double(insideOneCount) / Double(sentenceCount) }

    public init(phrases: [Phrase], track: SpeechTrack) {
        let rate = Double(track.sampleRate)
        sentenceCount = track.placed.count
        phraseCount = phrases.count
        var startErrors: [Double] = [], endErrors: [Double] = [], playOffsets: [Double] = []
        var sentencesPerPhrase = [Int](repeating: 0, count: phrases.count)
        for placed in track.placed {
            let holder = phrases.firstIndex { $0.startFrame <= placed.startFrame && placed.endFrame <= $0.endFrame }
            if let holder {
                insideOneCount += 1
                sentencesPerPhrase[holder] += 1
                let phrase = phrases[holder]
                let isFirst = !track.placed.contains { $0.startFrame < placed.startFrame && $0.startFrame >= phrase.startFrame }
                let isLast = !track.placed.contains { $0.endFrame > placed.endFrame && $0.endFrame <= phrase.endFrame }
                if isFirst {
                    startErrors.append(abs(Double(phrase.soundStartFrame - placed.startFrame)) / rate)
                    playOffsets.append(Double(phrase.startFrame - placed.startFrame) / rate)
                }
                if isLast { endErrors.append(abs(Double(phrase.soundEndFrame - placed.endFrame)) / rate) }
            }
            if placed.sentence.hasComma {
                commaSentenceCount += 1
                let cut = phrases.contains { phrase in
                    (phrase.startFrame > placed.startFrame && phrase.startFrame < placed.endFrame)
                        || (phrase.endFrame > placed.startFrame && phrase.endFrame < placed.endFrame)
                }
                if cut { commaSplitCount += 1 }
            }
        }
        oneToOneCount = sentencesPerPhrase.filter { $0 == 1 }.count
        func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
        meanStartErrorSeconds = mean(startErrors)
        meanEndErrorSeconds = mean(endErrors)
        meanPlayStartOffsetSeconds = mean(playOffsets)
    }

    public var description: String {
        func format(_ value: Double, _ digits: Int = 3) -> String {
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            return String((value * scale).rounded() / scale)
        }
        return "sentences \(sentenceCount), phrases \(phraseCount), inside one phrase \(insideOneCount) (\(format(insideOnePercent, 1)) %), "
            + "one sentence per phrase \(oneToOneCount), comma sentences \(commaSentenceCount), split at a comma \(commaSplitCount), "
            + "mean boundary error start \(format(meanStartErrorSeconds)) s end \(format(meanEndErrorSeconds)) s, "
            + "play start \(format(meanPlayStartOffsetSeconds)) s from the sentence"
    }
}
