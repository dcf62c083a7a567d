/// Chooses the beat level among the tracked pulse, half of it and twice it.
///
/// TempoTrackV2's prior peaks at 120 BPM, so a slow piece with busy subdivisions (a 60 BPM ballad
/// with eighth-note hi-hats) is tracked at twice its tempo, and a fast one can be tracked at half.
/// The rule: the beat is the densest pulse all of whose points carry onsets of comparable
/// strength. If every second tracked beat is much weaker than the others (`halvingRatio`), the
/// tracker followed a subdivision: the tempo is halved. If the points halfway between tracked
/// beats are about as strong as the beats (`doublingRatio`), it followed every other beat: the
/// tempo is doubled.
enum TempoOctave {
    enum Choice: Equatable { case keep, halve, double }

    struct Evidence {
        /// Mean onset strength of the even and odd tracked beats, and of the midpoints.
        var even: Double
        var odd: Double
        var midpoints: Double
        var choice: Choice
    }

    /// A phase this much weaker than the other is a subdivision.
    static let halvingRatio = 0.5
    /// Midpoints this strong (relative to the beats) are beats.
    static let doublingRatio = 0.85

    /// `beats` are detection-function indices; onset strength at a point is the largest
    /// detection-function value within ±`reach` values of it.
    static func evidence(detectionFunction df: [Double], beats: [Double], reach: Int = 2) -> Evidence {
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
        let midpoints = midSum / Double(max(1, beats.count - 1))
        var choice = Choice.keep
        if beats.count >= 8 {
            if min(even, odd) < halvingRatio * max(even, odd) {
                choice = .halve
            } else if midpoints >= doublingRatio * beatMean {
                choice = .double
            }
        }
        return Evidence(even: even, odd: odd, midpoints: midpoints / max(beatMean, .leastNormalMagnitude), choice: choice)
    }
}
