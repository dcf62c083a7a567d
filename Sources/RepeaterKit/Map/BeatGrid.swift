/// The musical part of a recording's map as the player uses it: beats, the beats that start bars,
/// beats per bar, tempo and key, in the recording's frames. Made from what the analysis found and
/// the user's corrections (`MapCorrections`), which win. Read by the dispatcher (loops by bars,
/// snapping, bar and beat of what is heard, the count-in's tempo) and the sinks; the engine only
/// ever gets the beat frames, as a `BeatTable`.
public struct BeatGrid: Equatable, Sendable {
    public var sampleRate: Int
    public var frameCount: Int
    /// Every beat, ascending.
    public var beatFrames: [Int]
    /// The beats that start bars (a subset of `beatFrames`); bar 1 starts at the first.
    public var downbeatFrames: [Int]
    public var beatsPerBar: Int
    /// Beats per minute: the analysis's main tempo, or the median beat interval's.
    public var tempoBPM: Double
    /// Where the tempo changes (from each frame on, its tempo); one entry for a steady piece.
    public var tempoChanges: [TempoSpan] = []
    /// How sure the analysis is of `tempoBPM` against `tempoAlternativeBPM`: 0 (a coin toss, or no
    /// beats) to 1. A tempo the user corrected is sure (1).
    public var tempoConfidence: Double = 0
    /// The other tempo octave the analysis weighed (twice or half `tempoBPM`); nil without beats
    /// or after a tempo correction.
    public var tempoAlternativeBPM: Double?
    /// "A minor", or nil when unknown.
    public var key: String?

    /// `tempoBPM` nil: from the median beat interval.
    public init(sampleRate: Int, frameCount: Int, beatFrames: [Int], downbeatFrames: [Int], beatsPerBar: Int, key: String?,
                tempoBPM: Double? = nil, tempoChanges: [TempoSpan] = [], tempoConfidence: Double = 0, tempoAlternativeBPM: Double? = nil) {
        self.sampleRate = sampleRate
        self.frameCount = frameCount
        self.beatFrames = beatFrames
        self.downbeatFrames = downbeatFrames
        self.beatsPerBar = beatsPerBar
        self.key = key
        self.tempoChanges = tempoChanges
        self.tempoConfidence = tempoConfidence
        self.tempoAlternativeBPM = tempoAlternativeBPM
        self.tempoBPM = 0
        self.tempoBPM = tempoBPM ?? medianInterval(from: 0, to: frameCount).map { 60 * Double(sampleRate) / $0 } ?? 0
    }

    /// Nothing known (the analysis found no beats).
    public static func empty(sampleRate: Int, frameCount: Int) -> BeatGrid {
        BeatGrid(sampleRate: sampleRate, frameCount: frameCount, beatFrames: [], downbeatFrames: [], beatsPerBar: 0, key: nil, tempoBPM: 0)
    }

    public var isEmpty: Bool { beatFrames.isEmpty }

    /// Below this confidence the screen and the notes offer the other octave ("131 BPM (or 262?)").
    /// On the real corpus it flags 5 of the 57 tracks whose references agree, and 7 of the 11 where
    /// they disagree by an octave or repeater agrees with neither (docs/manual.md, *The map*).
    public static let unsureConfidence = 0.2

    /// The other octave, when the analysis is unsure of the tempo.
    public var unsureAlternativeBPM: Double? {
        guard !isEmpty, tempoConfidence < Self.unsureConfidence else { return nil }
        return tempoAlternativeBPM
    }
    public var barCount: Int { downbeatFrames.count }

    /// The median distance between beats within [from, to), in frames (nil with fewer than two beats).
    public func medianInterval(from: Int, to: Int) -> Double? {
        let inside = beatFrames.filter { $0 >= from && $0 < to }
        var intervals = zip(inside, inside.dropFirst()).map { Double($1 - $0) }
        if intervals.isEmpty { intervals = zip(beatFrames, beatFrames.dropFirst()).map { Double($1 - $0) } }
        guard !intervals.isEmpty else { return nil }
        intervals.sort()
        return intervals[intervals.count / 2]
    }

    /// Bar and beat (1-based) of `frame`: the bar whose downbeat is at or before it, the beat within
    /// that bar. Before the first downbeat (a pickup) the bar is 0 and the beats count so that the
    /// last one before bar 1 is beat `beatsPerBar`. Nil without beats, or before the first beat.
    public func barAndBeat(at frame: Int) -> (bar: Int, beat: Int)? {
        let beatIndex = Self.lastIndex(in: beatFrames, atOrBefore: frame)
        guard beatIndex >= 0 else { return nil }
        let barIndex = Self.lastIndex(in: downbeatFrames, atOrBefore: frame)
        guard barIndex >= 0 else {
            guard let first = downbeatFrames.first, beatsPerBar > 0 else { return (0, beatIndex + 1) }
            let beatsBefore = Self.lastIndex(in: beatFrames, atOrBefore: first - 1) + 1
            return (0, max(1, beatsPerBar - (beatsBefore - beatIndex) + 1))
        }
        let downbeatIndex = Self.lastIndex(in: beatFrames, atOrBefore: downbeatFrames[barIndex])
        return (barIndex + 1, beatIndex - downbeatIndex + 1)
    }

    /// The frames of bars `first` … `last` inclusive: from the downbeat of `first` to the downbeat
    /// after `last` (for the last bar: its length in beats later, at most the end of the file).
    public func frames(ofBars first: Int, _ last: Int) throws(RepeaterError) -> (a: Int, b: Int) {
        guard !downbeatFrames.isEmpty else { throw .input("no bars are known for this recording yet (the analysis has not found any)") }
        guard first >= 1, last >= first else { throw .input("bars \(first)-\(last): the first bar is 1, and the range runs forwards") }
        guard first <= barCount else { throw .input("bar \(first) is past the last bar (\(barCount))") }
        guard last <= barCount else { throw .input("bar \(last) is past the last bar (\(barCount))") }
        let a = downbeatFrames[first - 1]
        if last < barCount { return (a, downbeatFrames[last]) }
        let beat = medianInterval(from: downbeatFrames[last - 1], to: frameCount) ?? 0
        let end = min(frameCount, downbeatFrames[last - 1] + Int((beat * Double(max(1, beatsPerBar))).rounded()))
        return (a, max(end, a + 1))
    }

    /// The bar numbers whose downbeats are exactly `a` and (the downbeat after) `b`, if any: a loop
    /// made of whole bars.
    public func bars(a: Int, b: Int) -> (first: Int, last: Int)? {
        guard let first = downbeatFrames.firstIndex(of: a) else { return nil }
        for last in (first + 1)...barCount {
            if let range = try? frames(ofBars: first + 1, last), range.b == b { return (first + 1, last) }
            if last < barCount, downbeatFrames[last] > b { break }
        }
        return nil
    }

    /// The beat (or, `bars`, the downbeat) nearest `frame`; nil when there is none.
    public func nearest(to frame: Int, bars: Bool) -> Int? {
        let list = bars ? downbeatFrames : beatFrames
        guard !list.isEmpty else { return nil }
        let index = Self.lastIndex(in: list, atOrBefore: frame)
        let candidates = [index, index + 1].filter { $0 >= 0 && $0 < list.count }.map { list[$0] }
        return candidates.min { abs($0 - frame) < abs($1 - frame) }
    }

    /// The index of the last element of `sorted` at or before `frame`, or -1.
    static func lastIndex(in sorted: [Int], atOrBefore frame: Int) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= frame { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }
}

/// A tempo from a frame on.
public struct TempoSpan: Equatable, Sendable {
    public var startFrame: Int
    public var bpm: Double

    public init(startFrame: Int, bpm: Double) {
        self.startFrame = startFrame
        self.bpm = bpm
    }
}
