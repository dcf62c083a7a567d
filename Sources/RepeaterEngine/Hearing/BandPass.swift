/// A band-pass on every channel: a 4th-order Butterworth high-pass at the low edge and a
/// 4th-order Butterworth low-pass at the high edge, each two cascaded second-order sections. Each
/// edge is −3 dB at its frequency, −24 dB one octave outside it, and falls 24 dB per octave beyond
/// (the brief asks for at least 12). A band narrower than about an octave loses some level in the
/// middle too, where the two skirts overlap.
///
/// Edges are kept within the "open" band, `openLowHz` (10 Hz) … `openHighHz` (0.45 × the rate, at
/// most 20 kHz): a band asked for with no low edge (0 Hz) high-passes at 10 Hz, one up to the
/// Nyquist frequency low-passes at the open top. The open band is also where a band starts from
/// when a mode without one switches to a mode with one, and where it ends when the switch goes the
/// other way: it is nearly transparent (at 48 kHz within 0.02 dB from 20 Hz to 16 kHz; its phase,
/// 78° at 20 Hz, 37° at 41 Hz, 6° at 220 Hz, is all the blend into or out of it crosses).
///
/// A change of band is a morph, not a jump: `beginMorph` and then `prepareMorphChunk` before
/// each chunk move both edges geometrically over the isolator's fade, the sections designed anew
/// every 32 frames and interpolated linearly between, sample by sample. The phase of every
/// frequency then moves continuously; a crossfade between the outputs of two different
/// minimum-phase bands would instead cancel where their phases differ by nearly 180° (4th-order
/// edges turn the phase by up to 360°).
struct BandPass: ~Copyable, @unchecked Sendable {
    let channelCount: Int
    let sampleRate: Double
    let openLowHz: Double
    let openHighHz: Double
    /// Frames between two designs during a morph.
    let designFrames = 32
    /// The steady design: four sections.
    private let sections: UnsafeMutablePointer<BiquadCoefficients>
    /// During a morph, this chunk's designs at frames 0, 32, 64, … and at its end: four each.
    private let morphTable: UnsafeMutablePointer<BiquadCoefficients>
    private let morphTableCapacity: Int
    private var morphBoundaries = 0
    private var morphChunkFrames = 0
    /// `channelCount` × 4 states.
    private let states: UnsafeMutablePointer<BiquadState>
    private(set) var lowHz: Double
    private(set) var highHz: Double
    private(set) var isMorphing = false
    private var fromEdges = (low: 0.0, high: 0.0)
    private var toEdges = (low: 0.0, high: 0.0)

    /// Control thread. Chunks of up to `maxChunkFrames` frames. Starts open.
    init(channelCount: Int, sampleRate: Int, maxChunkFrames: Int) {
        self.channelCount = channelCount
        self.sampleRate = Double(sampleRate)
        openLowHz = 10
        openHighHz = min(20_000, 0.45 * Double(sampleRate))
        lowHz = openLowHz
        highHz = openHighHz
        sections = .allocate(capacity: 4)
        sections.initialize(repeating: .identity, count: 4)
        morphTableCapacity = (maxChunkFrames / 32 + 2) * 4
        morphTable = .allocate(capacity: morphTableCapacity)
        morphTable.initialize(repeating: .identity, count: morphTableCapacity)
        states = .allocate(capacity: channelCount * 4)
        states.initialize(repeating: BiquadState(), count: channelCount * 4)
        design(low: openLowHz, high: openHighHz, into: sections)
    }

    deinit {
        sections.deallocate()
        morphTable.deallocate()
        states.deallocate()
    }

    /// Whether `lowHz`…`highHz` is a band this filter can be: the low edge below the high one, and
    /// some of the band inside the open band.
    static func isValid(lowHz: Double, highHz: Double, sampleRate: Int) -> Bool {
        lowHz.isFinite && highHz.isFinite && lowHz < highHz && highHz > 10 && lowHz < min(20_000, 0.45 * Double(sampleRate))
    }

    /// The edges a band asked for becomes (within the open band, at least a tenth of an octave apart).
    func clampedEdges(lowHz: Double, highHz: Double) -> (low: Double, high: Double) {
        let high = min(openHighHz, max(openLowHz * 1.072, highHz))
        return (min(high / 1.072, max(openLowHz, lowHz)), high)
    }

    /// Real-time thread (libm only). Becomes `lowHz`…`highHz` at once; with `clearingState`, from rest.
    mutating func setBand(lowHz: Double, highHz: Double, clearingState: Bool) {
        let edges = clampedEdges(lowHz: lowHz, highHz: highHz)
        self.lowHz = edges.low
        self.highHz = edges.high
        isMorphing = false
        design(low: edges.low, high: edges.high, into: sections)
        if clearingState { for k in 0..<channelCount * 4 { states[k] = BiquadState() } }
    }

    /// Real-time thread. Starts a morph from the present band to `lowHz`…`highHz`.
    mutating func beginMorph(toLowHz lowHz: Double, highHz: Double) {
        fromEdges = (self.lowHz, self.highHz)
        toEdges = clampedEdges(lowHz: lowHz, highHz: highHz)
        isMorphing = true
    }

    /// Real-time thread. Designs the coming chunk of a morph: frames `start` ..< `start + count` of
    /// a morph `totalFrames` long (progress past the end stays at the end).
    mutating func prepareMorphChunk(start: Int, count: Int, totalFrames: Int) {
        guard isMorphing else { return }
        morphChunkFrames = count
        morphBoundaries = 0
        var frame = 0
        while true {
            let progress = min(1, Double(start + frame) / Double(totalFrames))
            let low = fromEdges.low * libmPow(toEdges.low / fromEdges.low, progress)
            let high = fromEdges.high * libmPow(toEdges.high / fromEdges.high, progress)
            design(low: low, high: high, into: morphTable + morphBoundaries * 4)
            morphBoundaries += 1
            if frame == count { break }
            frame = min(count, frame + designFrames)
        }
    }

    /// Real-time thread. Ends a morph: the band is where the morph was heading.
    mutating func endMorph() {
        guard isMorphing else { return }
        setBand(lowHz: toEdges.low, highHz: toEdges.high, clearingState: false)
    }

    private func design(low: Double, high: Double, into destination: UnsafeMutablePointer<BiquadCoefficients>) {
        let (q1, q2) = BiquadCoefficients.butterworth4Q
        destination[0] = .highPass(frequency: low, q: q1, sampleRate: sampleRate)
        destination[1] = .highPass(frequency: low, q: q2, sampleRate: sampleRate)
        destination[2] = .lowPass(frequency: high, q: q1, sampleRate: sampleRate)
        destination[3] = .lowPass(frequency: high, q: q2, sampleRate: sampleRate)
    }

    /// Real-time thread. Filters `count` frames of `channel` from `source` into `destination` (which
    /// may be the same memory): the steady band, or during a morph this chunk's designs (`count`
    /// must then be the prepared chunk's).
    @inline(__always)
    func process(channel: Int, _ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, count: Int) {
        let state = states + channel * 4
        var t0 = state[0], t1 = state[1], t2 = state[2], t3 = state[3]
        if !isMorphing {
            let s0 = sections[0], s1 = sections[1], s2 = sections[2], s3 = sections[3]
            for i in 0..<count {
                var y = t0.process(Double(source[i]), s0)
                y = t1.process(y, s1)
                y = t2.process(y, s2)
                destination[i] = Float(t3.process(y, s3))
            }
        } else {
            var segment = 0, segmentStart = 0
            while segmentStart < count {
                let length = min(designFrames, count - segmentStart)
                let from = morphTable + segment * 4, to = morphTable + (segment + 1) * 4
                let scale = 1 / Double(length)
                for i in 0..<length {
                    let t = Double(i + 1) * scale
                    let x = Double(source[segmentStart + i])
                    var y = t0.process(x, from[0].interpolated(to: to[0], by: t))
                    y = t1.process(y, from[1].interpolated(to: to[1], by: t))
                    y = t2.process(y, from[2].interpolated(to: to[2], by: t))
                    destination[segmentStart + i] = Float(t3.process(y, from[3].interpolated(to: to[3], by: t)))
                }
                segment += 1
                segmentStart += length
            }
        }
        t0.flushTiny()
        t1.flushTiny()
        t2.flushTiny()
        t3.flushTiny()
        state[0] = t0
        state[1] = t1
        state[2] = t2
        state[3] = t3
    }

    /// Real-time thread. Runs the filters over `frameCount` frames of `history` ending at `end`
    /// (the output dropped into `scratch`, a chunk at a time), so that they start from the state
    /// that signal leaves rather than from rest.
    func prime(from history: borrowing DelayLine, end: Int, frameCount: Int, scratch: UnsafeMutablePointer<Float>, chunkFrames: Int) {
        for channel in 0..<channelCount {
            var start = end - frameCount
            while start < end {
                let count = min(chunkFrames, end - start)
                history.read(channel: channel, from: start, count: count, into: scratch)
                process(channel: channel, scratch, scratch, count: count)
                start += count
            }
        }
    }

    /// The gain (linear) of the steady band at `frequency`.
    func magnitude(atFrequency frequency: Double) -> Double {
        var gain = 1.0
        for k in 0..<4 { gain *= sections[k].magnitude(atFrequency: frequency, sampleRate: sampleRate) }
        return gain
    }

    var hasSubnormalState: Bool {
        for k in 0..<channelCount * 4 where states[k].isSubnormal { return true }
        return false
    }
}
