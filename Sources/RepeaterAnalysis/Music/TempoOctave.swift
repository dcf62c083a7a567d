import Foundation

/// Chooses the beat level a listener would tap among the tracked pulse, half of it and twice it,
/// and says how sure the choice is.
///
/// TempoTrackV2's prior (a Rayleigh curve over beat periods, peaking at 120 BPM) already leans
/// towards the tempos listeners tap; on real recordings its own octave is the references' on all
/// but a few (docs/manual.md, *The map*). So the octave is changed only on clear evidence:
/// - **halve** when every second tracked beat is much weaker than the others (`halvingRatio`):
///   the tracker followed a subdivision (eighth-note hi-hats under a 60 BPM ballad); or when the
///   tracked tempo is above `fastestBPM`, which nobody taps (the tracker's fastest period is
///   258 BPM, and it lands there on busy sixteenths);
/// - **double** when the points halfway between the tracked beats are as strong as the beats
///   (`doublingRatio`) and twice the tempo is still moderate (at most `doubledCeilingBPM`): the
///   tracker followed every other beat of a slow-sounding piece.
/// Busy subdivisions alone are no reason to double: a 130 BPM piece with strong eighths is tapped
/// at 130 (the rule before doubled it to 260).
enum TempoOctave {
    enum Choice: Equatable { case keep, halve, double }

    struct Evidence {
        /// Mean onset strength of the even and odd tracked beats, and of the midpoints (relative to
        /// the beats' mean).
        var even: Double
        var odd: Double
        var midpoints: Double
        /// The tracker's own tempo (median beat interval).
        var trackedBPM: Double
        var choice: Choice
        /// The tempo chosen, and the other octave weighed.
        var chosenBPM: Double
        var alternativeBPM: Double
        /// 0 (a coin toss) … 1: see `confidence(…)`.
        var confidence: Double
    }

    /// A phase this much weaker than the other is a subdivision (the synthetic ballads' hi-hat
    /// off-beats are 0.15 of the beats; the most alternating real recording here is 0.35).
    static let halvingRatio = 0.25
    /// Midpoints this strong (relative to the beats) are beats…
    static let doublingRatio = 0.85
    /// …if the doubled tempo is at most this.
    static let doubledCeilingBPM = 160.0
    /// Above this the tempo is halved, whatever the accents.
    static let fastestBPM = 200.0
    /// The tempo listeners prefer to tap, and the spread of that preference (in octaves), for the
    /// confidence: a log-normal curve, as tapping studies describe it.
    static let preferredBPM = 120.0
    static let preferenceOctaves = 0.6

    /// `beats` are detection-function indices; onset strength at a point is the largest
    /// detection-function value within ±`reach` values of it. `stepSeconds`: one index's duration.
    static func evidence(detectionFunction df: [Double], beats: [Double], stepSeconds: Double, reach: Int = 2) -> Evidence {
        func strength(at position: Double) -> Double {
            let centre = Int(position.rounded())
            let low = max(0, centre - reach), high = min(df.count - 1, centre + reach)
            guard low <= high else { return 0 }
            return df[low...high].max()!
        }
        var sums = [0.0, 0.0], counts = [0.0, 0.0]
        for (index, beat) in beats.enumerated() {
            sums[index % 2] += strength(at: beat)
            counts[index % 2] += 1
        }
        var midSum = 0.0
        for (a, b) in zip(beats, beats.dropFirst()) { midSum += strength(at: (a + b) / 2) }
        let even = sums[0] / max(1, counts[0]), odd = sums[1] / max(1, counts[1])
        let beatMean = (sums[0] + sums[1]) / max(1, counts[0] + counts[1])
        let midpoints = midSum / Double(max(1, beats.count - 1)) / max(beatMean, .leastNormalMagnitude)
        let alternation = min(even, odd) / max(even, odd, .leastNormalMagnitude)
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        let tracked = intervals.isEmpty ? 0 : 60 / (TempoMap.median(intervals) * stepSeconds)

        var choice = Choice.keep
        if beats.count >= 8 {
            if tracked > fastestBPM || alternation < halvingRatio {
                choice = .halve
            } else if midpoints >= doublingRatio && 2 * tracked <= doubledCeilingBPM {
                choice = .double
            }
        }
        let (chosen, alternative, margin) = decision(choice: choice, trackedBPM: tracked, alternation: alternation, midpoints: midpoints)
        return Evidence(even: even, odd: odd, midpoints: midpoints, trackedBPM: tracked, choice: choice, chosenBPM: chosen,
                        alternativeBPM: alternative, confidence: confidence(chosenBPM: chosen, alternativeBPM: alternative, evidenceMargin: margin))
    }

    /// The tempo chosen, the other octave, and how far the accents are from flipping the choice
    /// (0 at the threshold, 1 far from it). Kept: the alternative is the octave whose rule came
    /// nearer to firing.
    private static func decision(choice: Choice, trackedBPM t: Double, alternation: Double, midpoints: Double)
        -> (chosen: Double, alternative: Double, margin: Double) {
        func unit(_ x: Double) -> Double { min(1, max(0, x)) }
        // 1 when the phases are equal, 0 at the halving threshold (log scale).
        let halvingMargin = unit(log(max(alternation, 1e-6) / halvingRatio) / log(1 / halvingRatio))
        // The accents' case for doubling, whether or not the tempo allows it: midpoints as strong as
        // the beats make 131 BPM "131 (or 262?)", though only a slow tempo is doubled.
        let doublingMargin = unit((doublingRatio - midpoints) / doublingRatio)
        switch choice {
        case .halve: return (t / 2, t, t > fastestBPM ? 1 : 1 - halvingMargin)
        case .double: return (2 * t, t, unit((midpoints - doublingRatio) / (1 - doublingRatio)))
        case .keep:
            return doublingMargin < halvingMargin || (doublingMargin == halvingMargin && t < preferredBPM)
                ? (t, 2 * t, doublingMargin) : (t, t / 2, halvingMargin)
        }
    }

    /// Half the accents' margin, half how much more usual the chosen tempo is than the
    /// alternative on the listeners' preference curve (0 when equally usual: 80 against 160).
    static func confidence(chosenBPM: Double, alternativeBPM: Double, evidenceMargin: Double) -> Double {
        guard chosenBPM > 0, alternativeBPM > 0 else { return 0 }
        func preference(_ bpm: Double) -> Double {
            let octaves = log2(bpm / preferredBPM) / preferenceOctaves
            return exp(-0.5 * octaves * octaves)
        }
        let chosen = preference(chosenBPM), other = preference(alternativeBPM)
        let preferenceMargin = min(1, max(0, 2 * chosen / (chosen + other) - 1))
        return 0.5 * evidenceMargin + 0.5 * preferenceMargin
    }
}
