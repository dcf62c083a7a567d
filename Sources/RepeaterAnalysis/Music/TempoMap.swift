/// The tempo map, read from the beats: the fewest stretches of steady tempo that explain where the
/// beats fall, and the tempo of each.
///
/// Each stretch is a straight line through its beats' frames against their count (its slope is
/// the period); the stretches are chosen by dynamic programming to minimise the squared misfit
/// (in beats) plus `changePenalty` for every change. A change must therefore explain more of the
/// beats' placement than the tracker's jitter does: beats fall on whole detection-function steps
/// (11.6 ms), so at 160 BPM successive intervals differ by 4 % and more, and a rule that compares
/// a few intervals (the one before) saw a tempo change every few bars of steady music. A stretch is
/// at least `minimumBeats` long (eight bars of four), and neighbours within `mergeRatio` are one.
enum TempoMap {
    /// Squared misfit, in beats², that a change must remove: a 4 % change held for 16 beats each
    /// side removes about 1.
    static let changePenalty = 1.0
    static let minimumBeats = 32
    /// Stretches whose tempos differ by less than this are one.
    static let mergeRatio = 0.04

    static func changes(beatFrames: [Int], sampleRate: Int) -> [TempoChange] {
        guard beatFrames.count >= 2 else { return [] }
        let fit = LineFit(beatFrames.map(Double.init))
        let period = fit.slope(0, beatFrames.count - 1)
        guard period > 0 else { return [] }
        var bounds = segment(fit, period: period)
        // Neighbours within `mergeRatio` are one stretch (refitted), until none are.
        var merged = true
        while merged && bounds.count > 2 {
            merged = false
            for k in 1..<(bounds.count - 1) {
                let before = fit.slope(bounds[k - 1], bounds[k]), after = fit.slope(bounds[k], bounds[k + 1])
                if abs(before - after) < mergeRatio * min(before, after) {
                    bounds.remove(at: k)
                    merged = true
                    break
                }
            }
        }
        return (0..<(bounds.count - 1)).map { k in
            TempoChange(startFrame: beatFrames[bounds[k]], bpm: 60 * Double(sampleRate) / fit.slope(bounds[k], bounds[k + 1]))
        }
    }

    /// The stretches' bounds (beat indices, first 0, last the last beat; neighbouring stretches
    /// share their bound's beat). Candidate bounds are every `stride`-th beat, so that an hour of
    /// beats costs what a few minutes do.
    private static func segment(_ fit: LineFit, period: Double) -> [Int] {
        let last = fit.count - 1
        let stride = max(1, fit.count / 1000)
        let minimum = max(minimumBeats, stride)
        guard last >= 2 * minimum else { return [0, last] }
        var candidates = Array(Swift.stride(from: 0, to: last, by: stride))
        candidates.append(last)
        var best = [Double](repeating: .infinity, count: candidates.count)
        var from = [Int](repeating: -1, count: candidates.count)
        best[0] = -changePenalty
        for j in 1..<candidates.count {
            for i in 0..<j where candidates[j] - candidates[i] >= minimum || (i == 0 && j == candidates.count - 1) {
                guard best[i].isFinite else { continue }
                let cost = best[i] + fit.squaredMisfit(candidates[i], candidates[j]) / (period * period) + changePenalty
                if cost < best[j] { (best[j], from[j]) = (cost, i) }
            }
        }
        var bounds = [last]
        var j = candidates.count - 1
        while from[j] > 0 {
            j = from[j]
            bounds.append(candidates[j])
        }
        bounds.append(0)
        return bounds.reversed()
    }

    /// The tempo that lasts longest (to `endFrame`, the last beat).
    static func mainTempo(_ changes: [TempoChange], endFrame: Int) -> Double {
        var best = (frames: -1, bpm: 0.0)
        for (index, change) in changes.enumerated() {
            let end = index + 1 < changes.count ? changes[index + 1].startFrame : endFrame
            if end - change.startFrame > best.frames { best = (end - change.startFrame, change.bpm) }
        }
        return best.bpm
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// Least-squares lines through (i, y[i]) over any range of i, each in constant time (from prefix
/// sums, shifted by the first value to keep them exact in doubles).
struct LineFit {
    let count: Int
    private var sumY: [Double] = [0], sumYY: [Double] = [0], sumIY: [Double] = [0]

    init(_ values: [Double]) {
        count = values.count
        let origin = values.first ?? 0
        for (i, value) in values.enumerated() {
            let y = value - origin
            sumY.append(sumY[i] + y)
            sumYY.append(sumYY[i] + y * y)
            sumIY.append(sumIY[i] + Double(i) * y)
        }
    }

    /// Moments of i = a…b (inclusive): n, Σi, Σi², Σy, Σy², Σiy.
    private func moments(_ a: Int, _ b: Int) -> (n: Double, si: Double, sii: Double, sy: Double, syy: Double, siy: Double) {
        let n = Double(b - a + 1)
        func sumTo(_ k: Int) -> Double { Double(k) * Double(k + 1) / 2 }
        func squaresTo(_ k: Int) -> Double { Double(k) * Double(k + 1) * Double(2 * k + 1) / 6 }
        return (n, sumTo(b) - sumTo(a - 1), squaresTo(b) - squaresTo(a - 1),
                sumY[b + 1] - sumY[a], sumYY[b + 1] - sumYY[a], sumIY[b + 1] - sumIY[a])
    }

    /// The slope over i = a…b (b > a).
    func slope(_ a: Int, _ b: Int) -> Double {
        let m = moments(a, b)
        let sxx = m.sii - m.si * m.si / m.n
        return sxx > 0 ? (m.siy - m.si * m.sy / m.n) / sxx : 0
    }

    /// The sum of squared residuals of the line over i = a…b.
    func squaredMisfit(_ a: Int, _ b: Int) -> Double {
        let m = moments(a, b)
        let sxx = m.sii - m.si * m.si / m.n, syy = m.syy - m.sy * m.sy / m.n, sxy = m.siy - m.si * m.sy / m.n
        guard sxx > 0 else { return 0 }
        return max(0, syy - sxy * sxy / sxx)
    }
}
