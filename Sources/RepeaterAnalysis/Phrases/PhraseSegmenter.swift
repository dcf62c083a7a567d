import Foundation

/// The decision half of `PhraseDetector`: from the levels of 10 ms analysis frames ("hops") to
/// phrases in hops. Pure: the same levels give the same phrases.
struct PhraseSegmenter {
    struct Segment: Equatable {
        /// Hops with sound: first, and one past the last.
        var soundStartHop: Int
        var soundEndHop: Int
        /// With the rolls; `endHop` exclusive.
        var startHop = 0
        var endHop = 0
    }

    let levelsDB: [Float]
    let hopSeconds: Double
    let configuration: PhraseDetector.Configuration

    private func hops(_ seconds: Double) -> Int { max(1, Int((seconds / hopSeconds).rounded())) }

    func phraseHops() -> [Segment] {
        guard !levelsDB.isEmpty else { return [] }
        let floor = PhraseBackground(levelsDB: levelsDB, hopSeconds: hopSeconds, configuration: configuration).backgroundDB
        let sounding = schmittTrigger(floor: floor)
        let pauseHops = PauseThreshold.hops(sounding: sounding, hopSeconds: hopSeconds, configuration: configuration)
        var segments = soundSegments(sounding: sounding, floor: floor, minimumPause: pauseHops)
        segments = droppingBursts(segments, sounding: sounding)
        segments = mergingFragments(segments)
        segments = segments.flatMap { splitting($0, sounding: sounding) }
        return withRolls(segments)
    }

    /// Sound or not per hop: on at the speech threshold, off below the release threshold (both
    /// above `floor`: the background).
    func schmittTrigger(floor: [Float]) -> [Bool] {
        var sounding = [Bool](repeating: false, count: levelsDB.count)
        var isOn = false
        for index in levelsDB.indices {
            let level = levelsDB[index]
            isOn = isOn ? level >= floor[index] + configuration.releaseMarginDB : level >= floor[index] + configuration.speechMarginDB
            sounding[index] = isOn
        }
        return sounding
    }

    /// Runs of sound joined across quiet stretches shorter than `minimumPause` hops (the
    /// recording's pause threshold); each start moved back over the release-level frames just
    /// before its onset (a soft first consonant).
    func soundSegments(sounding: [Bool], floor: [Float], minimumPause: Int) -> [Segment] {
        let onsetSearch = hops(configuration.onsetSearchSeconds)
        var segments: [Segment] = []
        var index = 0
        while index < sounding.count {
            guard sounding[index] else { index += 1; continue }
            var start = index
            let earliest = max(segments.last?.soundEndHop ?? 0, index - onsetSearch)
            while start > earliest, levelsDB[start - 1] >= floor[start - 1] + configuration.releaseMarginDB { start -= 1 }
            var end = index  // one past the last sounding hop seen
            var probe = index
            while probe < sounding.count {
                if sounding[probe] {
                    probe += 1
                    end = probe
                } else if probe - end >= minimumPause {
                    break
                } else {
                    probe += 1
                }
            }
            segments.append(Segment(soundStartHop: start, soundEndHop: end))
            index = max(probe, end)
        }
        return segments
    }

    private func soundingCount(_ segment: Segment, _ sounding: [Bool]) -> Int {
        sounding[segment.soundStartHop..<segment.soundEndHop].reduce(0) { $0 + ($1 ? 1 : 0) }
    }

    private func peakDB(_ segment: Segment) -> Float {
        levelsDB[segment.soundStartHop..<segment.soundEndHop].max() ?? -120
    }

    /// Without clicks (too little sound) and breaths (too quiet for the recording).
    func droppingBursts(_ segments: [Segment], sounding: [Bool]) -> [Segment] {
        let minimumSound = hops(configuration.minimumSoundSeconds)
        let long = segments.filter { soundingCount($0, sounding) >= minimumSound }
        guard !long.isEmpty else { return [] }
        let peaks = long.map(peakDB).sorted()
        let medianPeak = peaks[peaks.count / 2]
        return long.filter { peakDB($0) >= medianPeak - configuration.quietBurstDB }
    }

    /// Fragments shorter than the minimum phrase merged into the nearer neighbour within reach.
    func mergingFragments(_ segments: [Segment]) -> [Segment] {
        let minimumPhrase = hops(configuration.minimumPhraseSeconds)
        let maximumPhrase = hops(configuration.maximumPhraseSeconds)
        let mergeGap = hops(configuration.mergeGapSeconds)
        var merged = segments
        var index = 0
        while index < merged.count {
            let segment = merged[index]
            guard segment.soundEndHop - segment.soundStartHop < minimumPhrase else { index += 1; continue }
            // Candidates: the nearer neighbour first.
            var candidates: [(neighbour: Int, gap: Int)] = []
            if index > 0 { candidates.append((index - 1, segment.soundStartHop - merged[index - 1].soundEndHop)) }
            if index + 1 < merged.count { candidates.append((index + 1, merged[index + 1].soundStartHop - segment.soundEndHop)) }
            candidates.sort { $0.gap < $1.gap }
            let target = candidates.first { candidate in
                let first = min(candidate.neighbour, index), second = max(candidate.neighbour, index)
                return candidate.gap <= mergeGap && merged[second].soundEndHop - merged[first].soundStartHop <= maximumPhrase
            }
            guard let target else { index += 1; continue }
            let first = min(target.neighbour, index)
            merged[first] = Segment(soundStartHop: merged[first].soundStartHop, soundEndHop: merged[first + 1].soundEndHop)
            merged.remove(at: first + 1)
            index = first  // the merged phrase may itself still be short
        }
        return merged
    }

    /// A segment longer than the maximum cut at its longest quiet stretch (that leaves both parts
    /// at least the minimum phrase, if one does), recursively; with no quiet hop at all, at its
    /// quietest hop (see below).
    func splitting(_ segment: Segment, sounding: [Bool]) -> [Segment] {
        let maximumPhrase = hops(configuration.maximumPhraseSeconds)
        let minimumPhrase = hops(configuration.minimumPhraseSeconds)
        guard segment.soundEndHop - segment.soundStartHop > maximumPhrase else { return [segment] }
        var quietRuns: [Range<Int>] = []
        var index = segment.soundStartHop
        while index < segment.soundEndHop {
            guard !sounding[index] else { index += 1; continue }
            let start = index
            while index < segment.soundEndHop, !sounding[index] { index += 1 }
            quietRuns.append(start..<index)
        }
        func leavesBothParts(_ run: Range<Int>) -> Bool {
            run.lowerBound - segment.soundStartHop >= minimumPhrase && segment.soundEndHop - run.upperBound >= minimumPhrase
        }
        func longest(_ runs: [Range<Int>]) -> Range<Int>? {
            // Longest first; of equal ones, the one nearest the middle (even parts).
            let middle = (segment.soundStartHop + segment.soundEndHop) / 2
            return runs.min { ($0.count, -abs($0.lowerBound - middle)) > ($1.count, -abs($1.lowerBound - middle)) }
        }
        let cut: Range<Int>
        if let run = longest(quietRuns.filter(leavesBothParts)) ?? longest(quietRuns) {
            cut = run
        } else {
            let low = segment.soundStartHop + minimumPhrase, high = segment.soundEndHop - minimumPhrase
            // The quietest hop, or of hops within 1 dB of it the one nearest the middle (a steady
            // sound is cut in halves, not into minimum-length slices).
            let range = low..<max(low + 1, high), middle = (low + high) / 2
            let quietestLevel = range.map { levelsDB[$0] }.min() ?? 0
            let quietest = range.filter { levelsDB[$0] <= quietestLevel + 1 }.min { abs($0 - middle) < abs($1 - middle) } ?? middle
            cut = quietest..<(quietest + 1)
        }
        let parts = [Segment(soundStartHop: segment.soundStartHop, soundEndHop: cut.lowerBound),
                     Segment(soundStartHop: cut.upperBound, soundEndHop: segment.soundEndHop)]
        return parts.filter { $0.soundEndHop > $0.soundStartHop }.flatMap { splitting($0, sounding: sounding) }
    }

    /// Pre- and post-roll added, clamped to the recording; where two phrases' rolls would
    /// overlap (a pause shorter than both rolls, or a split), they meet in the middle of the pause.
    func withRolls(_ segments: [Segment]) -> [Segment] {
        let preRoll = Int((configuration.preRollSeconds / hopSeconds).rounded())
        let postRoll = Int((configuration.postRollSeconds / hopSeconds).rounded())
        var result = segments
        for index in result.indices {
            result[index].startHop = max(0, result[index].soundStartHop - preRoll)
            result[index].endHop = min(levelsDB.count, result[index].soundEndHop + postRoll)
        }
        for index in result.indices.dropFirst() where result[index - 1].endHop > result[index].startHop {
            let middle = (result[index - 1].soundEndHop + result[index].soundStartHop) / 2
            result[index - 1].endHop = middle
            result[index].startHop = middle
        }
        return result
    }
}
