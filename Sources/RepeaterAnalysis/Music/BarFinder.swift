/// Finds the meter and the bar lines from DownBeat's beat spectral difference.
///
/// DownBeat measures, at each beat, how much the low spectrum (below about 1.4 kHz: bass and
/// chords) changes from the beat before to the beat after: harmony changes at bar lines. It puts
/// the bar lines on the one phase whose change is largest on average, and needs the number of
/// beats per bar. Here:
/// - the meter: each candidate is tried, and the one whose strongest phase stands out most from
///   its other phases wins: with the true meter the bar-line changes all fall on one phase; with a
///   wrong one they spread over all phases and the contrast fades;
/// - the bar lines: DownBeat's rule (the bars are the phase with the largest total change), except
///   that the phase may move, at a cost: a beat the tracker inserted or lost (at a tempo change)
///   shifts every later bar line by a beat, and one phase for the whole piece then puts half of
///   them on the wrong beat. A move must be paid for by `rephaseCost` (in standard deviations of
///   the change: about four bars of clear evidence).
enum BarFinder {
    struct Bars {
        var beatsPerBar: Int
        /// Indices into the beats of the first beats of bars.
        var downbeatIndices: [Int]
        /// Each candidate's contrast, for diagnostics.
        var contrasts: [Int: Double]
    }

    static let candidates = [3, 4]
    static let rephaseCost = 8.0

    static func find(stream: QMStream, beats: [Double]) throws(MusicAnalysisError) -> Bars {
        // The spectral difference does not depend on the meter (DownBeat wants one to pick its
        // own phase, which is not used).
        let spectralDifference = try stream.downbeats(beats: beats, beatsPerBar: 4).spectralDifference
        var contrasts: [Int: Double] = [:]
        for beatsPerBar in candidates {
            contrasts[beatsPerBar] = contrast(spectralDifference: spectralDifference, beatsPerBar: beatsPerBar)
        }
        let beatsPerBar = candidates.max { contrasts[$0]! < contrasts[$1]! }!
        return Bars(beatsPerBar: beatsPerBar,
                    downbeatIndices: downbeats(spectralDifference: spectralDifference, beatCount: beats.count, beatsPerBar: beatsPerBar),
                    contrasts: contrasts)
    }

    /// How far the strongest phase's mean spectral change stands above the mean of the other
    /// phases, in standard deviations of the change. Entry k of `spectralDifference` is the change
    /// into beat k + 1.
    static func contrast(spectralDifference: [Double], beatsPerBar: Int) -> Double {
        guard spectralDifference.count >= 2 * beatsPerBar, let z = standardized(spectralDifference) else { return 0 }
        var sums = [Double](repeating: 0, count: beatsPerBar)
        var counts = [Double](repeating: 0, count: beatsPerBar)
        for (index, value) in z.enumerated() {
            sums[(index + 1) % beatsPerBar] += value
            counts[(index + 1) % beatsPerBar] += 1
        }
        let means = zip(sums, counts).map { $0 / $1 }
        let strongest = means.indices.max { means[$0] < means[$1] }!
        let others = means.indices.filter { $0 != strongest }.map { means[$0] }
        return means[strongest] - others.reduce(0, +) / Double(others.count)
    }

    /// The bar lines: the position in the bar of every beat, chosen by dynamic programming to
    /// maximise the standardized change summed over the bar lines, less `rephaseCost` for every
    /// beat whose position does not follow from the previous one. Deterministic: ties go to the
    /// lower position.
    static func downbeats(spectralDifference: [Double], beatCount: Int, beatsPerBar n: Int) -> [Int] {
        guard beatCount >= 1 else { return [] }
        let z = standardized(spectralDifference) ?? [Double](repeating: 0, count: spectralDifference.count)
        // Evidence that beat i starts a bar: the change into it (none for the first beat).
        func evidence(_ i: Int) -> Double { i >= 1 && i - 1 < z.count ? z[i - 1] : 0 }
        var score = (0..<n).map { $0 == 0 ? evidence(0) : 0.0 }
        var back = [[Int]](repeating: [Int](repeating: 0, count: n), count: beatCount)
        for i in 1..<max(1, beatCount) {
            var next = [Double](repeating: 0, count: n)
            for position in 0..<n {
                let follows = (position + n - 1) % n
                var best = score[follows], from = follows
                for previous in 0..<n where previous != follows && score[previous] - rephaseCost > best {
                    best = score[previous] - rephaseCost
                    from = previous
                }
                next[position] = best + (position == 0 ? evidence(i) : 0)
                back[i][position] = from
            }
            score = next
        }
        var position = score.indices.max { score[$0] < score[$1] || (score[$0] == score[$1] && $0 > $1) }!
        var positions = [Int](repeating: 0, count: beatCount)
        for i in stride(from: beatCount - 1, through: 0, by: -1) {
            positions[i] = position
            if i > 0 { position = back[i][position] }
        }
        return positions.indices.filter { positions[$0] == 0 }
    }

    private static func standardized(_ values: [Double]) -> [Double]? {
        guard !values.isEmpty else { return nil }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        guard variance > 0, variance.isFinite else { return nil }
        let deviation = variance.squareRoot()
        return values.map { ($0 - mean) / deviation }
    }
}
