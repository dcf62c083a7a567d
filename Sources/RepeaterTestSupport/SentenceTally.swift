/// How phrases (frame ranges, rolls included, as a drill plays them) treat sentences whose voiced
/// spans are known. Each sentence counts once, in the first of these that applies:
/// - **split**: two or more phrases overlap its voiced span (a boundary between phrases inside it);
/// - **cut**: no phrase holds its whole voiced span (an edge of a phrase inside it, or missed);
/// - **merged**: the phrase holding it also overlaps another sentence's voiced span;
/// - **whole and alone**: the phrase holding it holds nothing of any other sentence.
public struct SentenceTally: Sendable {
    public var sentenceCount = 0
    public var wholeAndAloneCount = 0
    public var mergedCount = 0
    public var splitCount = 0
    public var cutCount = 0
    public var phraseCount = 0

    public init() {}

    /// `phrases` in order and not overlapping; `voicedSpans` in order.
    public init(phrases: [Range<Int>], voicedSpans: [Range<Int>]) {
        sentenceCount = voicedSpans.count
        phraseCount = phrases.count
        for (index, span) in voicedSpans.enumerated() {
            let overlapping = phrases.filter { $0.overlaps(span) }
            if overlapping.count >= 2 {
                splitCount += 1
            } else if let phrase = overlapping.first, phrase.lowerBound <= span.lowerBound, span.upperBound <= phrase.upperBound {
                let others = voicedSpans.indices.contains { $0 != index && phrase.overlaps(voicedSpans[$0]) }
                if others { mergedCount += 1 } else { wholeAndAloneCount += 1 }
            } else {
                cutCount += 1
            }
        }
    }

    public var wholeAndAlonePercent: Double { sentenceCount == 0 ? 0 : 100 * Double(wholeAndAloneCount) / Double(sentenceCount) }
    /// Sentences with a phrase boundary inside their voiced span.
    public var brokenCount: Int { splitCount + cutCount }

    public static func + (a: SentenceTally, b: SentenceTally) -> SentenceTally {
        var sum = a
        sum.sentenceCount += b.sentenceCount
        sum.wholeAndAloneCount += b.wholeAndAloneCount
        sum.mergedCount += b.mergedCount
        sum.splitCount += b.splitCount
        sum.cutCount += b.cutCount
        sum.phraseCount += b.phraseCount
        return sum
    }

    public static let tableHeader = "recording                  rate   sentences  phrases  whole and alone   merged  split  cut"

    /// One row of the table the tests print, under `tableHeader`.
    public func tableRow(_ name: String, rate: String) -> String {
        let percent = String((wholeAndAlonePercent * 10).rounded() / 10)
        return name.padding(toLength: 26, withPad: " ", startingAt: 0) + " " + rate.padding(toLength: 6, withPad: " ", startingAt: 0)
            + pad(sentenceCount, 10) + pad(phraseCount, 9) + pad(wholeAndAloneCount, 8) + " (" + percent + " %)".padding(toLength: 8, withPad: " ", startingAt: 0)
            + pad(mergedCount, 7) + pad(splitCount, 7) + pad(cutCount, 5)
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
