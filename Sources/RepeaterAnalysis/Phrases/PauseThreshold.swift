import Foundation

/// How long a quiet stretch must last to end a phrase, read from the recording's own pauses.
///
/// The quiet stretches between sounds fall into two groups: those inside a sentence (stop
/// closures, commas, breaths: mostly under 0.25 s, espeak-ng's commas up to 0.35 s at 120 words a
/// minute) and those between sentences (0.3–2 s, longer in a slow lesson). The threshold is the
/// duration in 0.25–0.7 s around which the fewest stretches lie (within a factor of 1.22 either
/// way: ±0.2 in natural log); where that many lie around a run of durations, the longest of the
/// first run (a sentence cut in two is worse for a learner than two sentences in one phrase, and
/// a later run is a hole among the sentence pauses of a short recording), leaving at least a
/// quarter of the stretches of
/// 0.25 s or more above it (so that a recording whose pauses are all short does not put it above
/// all of them). Measured (docs/phrases.md): 0.26–0.5 s on the real-speech set, about 0.6 s on
/// espeak-ng's speech, whose commas last up to 0.35 s (0.57 s in noise) and sentence pauses 0.75 s
/// or more.
struct PauseThreshold {
    /// The quiet stretches between sounding runs (not before the first nor after the last), in hops.
    static func quietRuns(_ sounding: [Bool]) -> [Int] {
        var runs: [Int] = []
        guard var index = sounding.firstIndex(of: true) else { return [] }
        while index < sounding.count {
            guard !sounding[index] else { index += 1; continue }
            let start = index
            while index < sounding.count, !sounding[index] { index += 1 }
            if index < sounding.count { runs.append(index - start) }
        }
        return runs
    }

    /// The threshold in hops of `hopSeconds`, for the quiet stretches of `sounding`.
    static func hops(sounding: [Bool], hopSeconds: Double, configuration: PhraseDetector.Configuration) -> Int {
        let range = configuration.pauseThresholdRangeSeconds
        let stretches = quietRuns(sounding).map { Double($0) * hopSeconds }
        let long = stretches.filter { $0 >= range.lowerBound }
        let halfWidth = configuration.pauseDensityHalfWidth
        var candidates: [(count: Int, seconds: Double)] = []
        var candidate = range.lowerBound
        while candidate <= range.upperBound + 1e-9 {
            let above = long.filter { $0 >= candidate }.count
            if Double(above) < configuration.longPauseShare * Double(long.count) { break }
            candidates.append((stretches.filter { abs(log($0 / candidate)) <= halfWidth }.count, candidate))
            candidate += 0.01
        }
        // The first run of the fewest, and its longest.
        var best: (count: Int, seconds: Double)?
        if let fewest = candidates.map(\.count).min(), var index = candidates.firstIndex(where: { $0.count == fewest }) {
            while index + 1 < candidates.count, candidates[index + 1].count == fewest { index += 1 }
            best = candidates[index]
        }
        let seconds = best?.seconds ?? (range.lowerBound * range.upperBound).squareRoot()
        return max(1, Int((seconds / hopSeconds).rounded()))
    }
}
