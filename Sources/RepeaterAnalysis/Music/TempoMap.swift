/// The tempo map, read from the beats: where the beat period settles at a new value, and the
/// tempo of each stretch.
enum TempoMap {
    /// A stretch's local period (median of 8 intervals) must differ from the current stretch's by
    /// more than this, for `persistence` intervals in a row, to start a new one: more than the
    /// tracker's own jitter (one 11.6 ms step in a 0.5 s beat is 2.3 %, and the median smooths it).
    static let changeRatio = 0.04
    static let persistence = 4
    /// Stretches whose tempos differ by less than this are one.
    static let mergeRatio = 0.02

    static func changes(beatFrames: [Int], sampleRate: Int) -> [TempoChange] {
        guard beatFrames.count >= 2 else { return [] }
        let intervals = zip(beatFrames.dropFirst(), beatFrames).map { Double($0 - $1) }
        let local = intervals.indices.map { k in median(Array(intervals[max(0, k - 3)...min(intervals.count - 1, k + 4)])) }
        // Split where the local period leaves the current stretch's and stays away.
        var starts = [0]
        var reference = local[0]
        var k = 1
        while k < local.count {
            let departs = { (j: Int) in abs(local[j] - reference) > changeRatio * reference }
            if departs(k), k + persistence < local.count, (k...(k + persistence)).allSatisfy(departs) {
                starts.append(k)
                reference = local[k + persistence]
                k += persistence + 1
                continue
            }
            k += 1
        }
        // Each stretch's tempo: the least-squares slope of its beats' frames against their count,
        // leaving out a later stretch's first `persistence` beats, which the median window may
        // have taken from the stretch before (if enough beats remain).
        var changes: [TempoChange] = []
        for (index, start) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1] : beatFrames.count - 1
            let fitStart = index > 0 && end - start >= 3 * persistence ? start + persistence : start
            let period = slope(Array(beatFrames[fitStart...end]))
            let bpm = 60 * Double(sampleRate) / period
            if let last = changes.last, abs(last.bpm - bpm) < mergeRatio * last.bpm {
                continue
            }
            changes.append(TempoChange(startFrame: beatFrames[start], bpm: bpm))
        }
        return changes
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

    /// Frames per beat: the slope of the line through (i, frames[i]).
    private static func slope(_ frames: [Int]) -> Double {
        guard frames.count >= 3 else { return Double(frames.last! - frames.first!) / Double(max(1, frames.count - 1)) }
        let n = Double(frames.count)
        let meanX = (n - 1) / 2
        let meanY = frames.reduce(0.0) { $0 + Double($1) } / n
        var numerator = 0.0, denominator = 0.0
        for (i, frame) in frames.enumerated() {
            numerator += (Double(i) - meanX) * (Double(frame) - meanY)
            denominator += (Double(i) - meanX) * (Double(i) - meanX)
        }
        return numerator / denominator
    }
}
