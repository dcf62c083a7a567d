import Foundation

/// What lies under the speech of a recording, per 10 ms analysis frame ("hop"), tracked over time:
/// its noise floor and the level of its background. Pure: the same levels give the same result.
///
/// - The **noise floor** is the lowest 0.2 s average level within ±5 s (at most 12 dB above the
///   lowest within ±30 s, never below −70 dBFS): the quietest the recording gets around a moment.
/// - The **background** is the level the recording mostly has when nobody speaks: the 10th
///   percentile of the 0.2 s averages within ±5 s, at least the noise floor and at most 6 dB
///   above it. Under a steady noise (a room, hiss) it sits within 1–2 dB of the floor; under a
///   music bed, whose notes and beats rise 4–16 dB above its quietest moments, it sits 3–6 dB
///   higher, and so do the thresholds of speech built on it. The 6 dB cap keeps a window with
///   fewer than 10 % pauses (a speaker who hardly stops for 10 s) from lifting it into the
///   speech; the same figures are measured on the real-speech set (docs/phrases.md).
struct PhraseBackground {
    let floorDB: [Float]
    let backgroundDB: [Float]

    init(levelsDB: [Float], hopSeconds: Double, configuration: PhraseDetector.Configuration) {
        func hops(_ seconds: Double) -> Int { max(1, Int((seconds / hopSeconds).rounded())) }
        let count = levelsDB.count
        var prefix = [Double](repeating: 0, count: count + 1)
        for (index, level) in levelsDB.enumerated() { prefix[index + 1] = prefix[index] + pow(10, Double(level) / 10) }
        let smoothHalf = max(0, hops(configuration.floorSmoothingSeconds) / 2)
        let smoothed = (0..<count).map { index -> Float in
            let low = max(0, index - smoothHalf), high = min(count, index + smoothHalf + 1)
            return PhraseDetector.decibels(meanSquare: (prefix[high] - prefix[low]) / Double(high - low))
        }
        let local = Self.slidingMinimum(smoothed, half: hops(configuration.floorWindowSeconds / 2))
        let wide = Self.slidingMinimum(smoothed, half: hops(configuration.floorLongWindowSeconds / 2))
        let floor = (0..<count).map { index in
            max(configuration.floorMinimumDBFS, min(local[index], wide[index] + configuration.floorRiseLimitDB))
        }
        let percentile = Self.slidingPercentile(smoothed, fraction: configuration.backgroundPercentile,
                                                half: hops(configuration.floorWindowSeconds / 2), step: 10)
        floorDB = floor
        backgroundDB = (0..<count).map { index in
            min(floor[index] + configuration.backgroundRiseLimitDB, max(floor[index], percentile[index]))
        }
    }

    /// The minimum of `values` within ±`half` of each index: a monotonic queue, O(n).
    static func slidingMinimum(_ values: [Float], half: Int) -> [Float] {
        var result = [Float](repeating: 0, count: values.count)
        var queue: [Int] = []  // indices into `values`, their values increasing
        var queueHead = 0
        for incoming in 0..<(values.count + half) {
            if incoming < values.count {
                while queue.count > queueHead, values[queue[queue.count - 1]] >= values[incoming] { queue.removeLast() }
                queue.append(incoming)
            }
            let center = incoming - half
            guard center >= 0 else { continue }
            while queue[queueHead] < center - half { queueHead += 1 }
            result[center] = values[queue[queueHead]]
        }
        return result
    }

    /// The `fraction` percentile (the value with `fraction` × (count − 1) values below it) of
    /// `values` within ±`half` of every `step`-th index, in 0.25 dB steps, and straight lines
    /// between: a histogram slid along, so an hour of hops costs a few million steps.
    static func slidingPercentile(_ values: [Float], fraction: Double, half: Int, step: Int) -> [Float] {
        guard !values.isEmpty else { return [] }
        let binDB: Float = 0.25, lowestDB: Float = -130, binCount = 560  // −130 … +10 dBFS
        func bin(_ value: Float) -> Int { min(binCount - 1, max(0, Int((value - lowestDB) / binDB))) }
        var histogram = [Int](repeating: 0, count: binCount)
        var windowLow = 0, windowHigh = 0  // the values in the histogram: windowLow ..< windowHigh
        var anchors: [(index: Int, value: Float)] = []
        for center in stride(from: 0, to: values.count, by: step) + (values.count % step == 1 ? [] : [values.count - 1]) {
            let low = max(0, center - half), high = min(values.count, center + half + 1)
            while windowHigh < high { histogram[bin(values[windowHigh])] += 1; windowHigh += 1 }
            while windowLow < low { histogram[bin(values[windowLow])] -= 1; windowLow += 1 }
            let rank = Int(fraction * Double(high - low - 1))
            var seen = 0, found = 0
            for index in 0..<binCount {
                seen += histogram[index]
                if seen > rank { found = index; break }
            }
            anchors.append((center, lowestDB + (Float(found) + 0.5) * binDB))
        }
        var result = [Float](repeating: anchors[0].value, count: values.count)
        for (a, b) in zip(anchors, anchors.dropFirst()) {
            for index in a.index...b.index {
                result[index] = a.value + (b.value - a.value) * Float(index - a.index) / Float(b.index - a.index)
            }
        }
        return result
    }
}
