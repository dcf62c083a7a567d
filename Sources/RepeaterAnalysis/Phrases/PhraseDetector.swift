import Foundation

/// Finds phrases in speech: stretches separated by pauses, for a learner to loop one at a time.
///
/// Feed the whole recording in blocks of any size (`process`), then ask for `phrases()`. The
/// result does not depend on how the recording was cut into blocks. It keeps one level per 10 ms
/// (1.4 MB per hour of audio) and decides at the end, so that the noise floor at any moment can
/// look 5 s both ways and an over-long phrase can be split at its longest pause; deciding takes
/// about a millisecond per minute of audio. Not thread-safe; not for the real-time thread.
///
/// How (details and the defaults' reasons in `Configuration`, the measurements in docs/phrases.md):
/// the level of each 10 ms frame (RMS over all channels, dBFS) is compared with the recording's
/// background, tracked over time (`PhraseBackground`: the 10th percentile of 0.2 s averages within
/// ±5 s, between the noise floor and 6 dB above it, so that a music bed's notes do not count as
/// speech). A Schmitt trigger with two thresholds above it (speech at +10 dB, release at +4 dB)
/// marks sound; a quiet stretch ends a phrase when it lasts the recording's pause threshold, read
/// from its own quiet stretches (`PauseThreshold`: 0.25–0.7 s, where they are fewest). Clicks and
/// breaths are dropped, fragments shorter than 0.5 s merged into a neighbour, phrases longer than
/// 8 s split at their longest internal pause, and each phrase gets 0.2 s before its first sound
/// and 0.3 s after its last.
public struct PhraseDetector: Sendable {
    public let sampleRate: Int
    public let channelCount: Int
    public let configuration: Configuration
    /// Sample frames per analysis frame: 10 ms at the recording's rate (441 at 44.1 kHz).
    public let hopFrameCount: Int

    private let hopSampleCount: Int
    private var hopSumOfSquares: Double = 0
    private var hopSamplesSeen = 0
    private var levelsDB: [Float] = []
    private var sampleCount = 0

    /// `channelCount` channels interleaved (1 for mono); `sampleRate` in Hz, at least 100.
    public init(sampleRate: Int, channelCount: Int = 1, configuration: Configuration = Configuration()) {
        precondition(sampleRate >= 100 && channelCount >= 1, "PhraseDetector needs a rate of at least 100 Hz and a channel")
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.configuration = configuration
        hopFrameCount = max(1, Int((Double(sampleRate) * configuration.analysisFrameSeconds).rounded()))
        hopSampleCount = hopFrameCount * channelCount
        levelsDB.reserveCapacity(1 << 16)
    }

    /// Frames processed so far.
    public var frameCount: Int { sampleCount / channelCount }

    /// Takes the next samples of the recording, interleaved. A block may end in the middle of a
    /// frame: the rest of that frame comes with the next block.
    public mutating func process(interleaved samples: UnsafeBufferPointer<Float>) {
        var index = 0
        sampleCount += samples.count
        while index < samples.count {
            let take = min(hopSampleCount - hopSamplesSeen, samples.count - index)
            // Float partial sums over at most one hop (≤ a few thousand samples) vectorize and stay
            // accurate to ~1e-4 dB; the hop's total is kept in Double.
            var partial: Float = 0
            if let base = samples.baseAddress {
                // A plain pointer loop: as fast as it gets in a debug build too (the tests run
                // an hour and a half of audio through here).
                var pointer = base + index
                let end = pointer + take
                while pointer < end {
                    partial += pointer.pointee * pointer.pointee
                    pointer += 1
                }
            }
            hopSumOfSquares += Double(partial)
            hopSamplesSeen += take
            index += take
            if hopSamplesSeen == hopSampleCount {
                levelsDB.append(Self.decibels(meanSquare: hopSumOfSquares / Double(hopSampleCount)))
                hopSumOfSquares = 0
                hopSamplesSeen = 0
            }
        }
    }

    /// Takes the next samples of the recording, interleaved.
    public mutating func process(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { process(interleaved: $0) }
    }

    /// The phrases in what was processed so far, in order, not overlapping. A last partial
    /// analysis frame counts as a frame.
    public func phrases() -> [Phrase] {
        var levels = levelsDB
        if hopSamplesSeen > 0 { levels.append(Self.decibels(meanSquare: hopSumOfSquares / Double(hopSamplesSeen))) }
        let hopSeconds = Double(hopFrameCount) / Double(sampleRate)
        let segments = PhraseSegmenter(levelsDB: levels, hopSeconds: hopSeconds, configuration: configuration).phraseHops()
        let lastFrame = frameCount
        return segments.map { segment in
            Phrase(startFrame: min(lastFrame, segment.startHop * hopFrameCount),
                   endFrame: min(lastFrame, segment.endHop * hopFrameCount),
                   soundStartFrame: min(lastFrame, segment.soundStartHop * hopFrameCount),
                   soundEndFrame: min(lastFrame, segment.soundEndHop * hopFrameCount))
        }
    }

    /// The level of one analysis frame; digital silence is −120 dBFS rather than −∞.
    static func decibels(meanSquare: Double) -> Float {
        Float(10 * log10(max(meanSquare, 1e-12)))
    }
}
