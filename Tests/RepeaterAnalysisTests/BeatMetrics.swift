/// Beat-tracking scores against known beats (MIREX style).
enum BeatMetrics {
    /// The F-measure of `estimated` against `truth` (both in seconds, ascending): each true beat
    /// matches at most one estimate within ±`window` seconds, nearest first.
    static func fMeasure(estimated: [Double], truth: [Double], window: Double = 0.07) -> Double {
        if estimated.isEmpty && truth.isEmpty { return 1 }
        let matched = matches(estimated: estimated, truth: truth, window: window).count
        guard matched > 0 else { return 0 }
        let precision = Double(matched) / Double(estimated.count)
        let recall = Double(matched) / Double(truth.count)
        return 2 * precision * recall / (precision + recall)
    }

    /// One-to-one matches (estimate − truth, in seconds) within the window, greedily by distance.
    static func matches(estimated: [Double], truth: [Double], window: Double) -> [Double] {
        var pairs: [(distance: Double, estimate: Int, truth: Int)] = []
        var start = 0
        for (t, time) in truth.enumerated() {
            while start < estimated.count && estimated[start] < time - window { start += 1 }
            var e = start
            while e < estimated.count && estimated[e] <= time + window {
                pairs.append((abs(estimated[e] - time), e, t))
                e += 1
            }
        }
        pairs.sort { ($0.distance, $0.truth, $0.estimate) < ($1.distance, $1.truth, $1.estimate) }
        var usedEstimates = Set<Int>(), usedTruth = Set<Int>()
        var offsets: [Double] = []
        for pair in pairs where !usedEstimates.contains(pair.estimate) && !usedTruth.contains(pair.truth) {
            usedEstimates.insert(pair.estimate)
            usedTruth.insert(pair.truth)
            offsets.append(estimated[pair.estimate] - truth[pair.truth])
        }
        return offsets
    }

    /// `estimated` within `tolerance` (relative) of `truth`; half and double count as wrong.
    static func tempoMatches(_ estimated: Double, _ truth: Double, tolerance: Double = 0.02) -> Bool {
        abs(estimated - truth) <= tolerance * truth
    }
}
