/// A three-band equalizer for practice: a low shelf, a peaking mid and a high shelf, gains in dB.
///
/// - low shelf at 150 Hz (half gain there, slope 1): the bass register, bass guitar and kick
///   fundamentals (41–150 Hz), under it; a full cut (−24 dB) takes 60 Hz down 22.5 dB and leaves
///   500 Hz, where voices and guitars have their body, within 0.5 dB.
/// - mid bell at 1 kHz, Q 0.7 (about two octaves wide): the body and presence of voices, guitars and
///   keys, to bring a part forward or push it back; ±12 dB there moves 100 Hz and 10 kHz by 0.3 dB
///   or less.
/// - high shelf at 6 kHz (half gain there, slope 1): cymbals, hi-hats, sibilance and hiss; a cut
///   leaves 2 kHz within 0.2 dB.
///
/// Flat (every band at 0 dB, no ramp running) is a bypass: the samples untouched, bit for bit. A
/// band at 0 dB is skipped on its own too; it keeps the last two samples through it as its state,
/// where an identity section in direct form I would be, so it engages without a step; a band
/// ramped back to 0 dB runs on until what it still rings with has died away (its output history
/// within 1e-7 of its input's), so that it leaves without a step too.
///
/// Changes ramp over `rampFrames` (20 ms): the gain in dB moves linearly, the coefficients are
/// designed anew every 32 frames and interpolated linearly between, sample by sample, so there is
/// no zipper noise (nothing changes in steps).
///
/// A non-copyable struct for its owner to hold inline (no reference counting on the audio thread).
public struct Equalizer: ~Copyable, @unchecked Sendable {
    // (Computed, not stored: a static stored property's lazy initialisation may lock.)
    public static var lowShelfHz: Double { 150 }
    public static var midHz: Double { 1000 }
    public static var midQ: Double { 0.7 }
    public static var highShelfHz: Double { 6000 }
    /// Gains outside are clamped.
    public static var gainRangeDB: ClosedRange<Double> { -40...12 }

    public let channelCount: Int
    public let sampleRate: Int
    public let rampFrames: Int
    private let designFrames = 32
    /// Per band (low, mid, high): the gain in effect, where it is heading, and the step per frame.
    private let currentDB: UnsafeMutablePointer<Double>
    private let targetDB: UnsafeMutablePointer<Double>
    private let stepDB: UnsafeMutablePointer<Double>
    /// Per band: the coefficients for `currentDB`.
    private let coefficients: UnsafeMutablePointer<BiquadCoefficients>
    /// `channelCount` × 3.
    private let states: UnsafeMutablePointer<BiquadState>

    /// Control thread. Starts flat.
    public init(channelCount: Int, sampleRate: Int) {
        precondition(channelCount >= 1 && sampleRate > 0)
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        rampFrames = max(1, sampleRate / 50)
        currentDB = .allocate(capacity: 3)
        currentDB.initialize(repeating: 0, count: 3)
        targetDB = .allocate(capacity: 3)
        targetDB.initialize(repeating: 0, count: 3)
        stepDB = .allocate(capacity: 3)
        stepDB.initialize(repeating: 0, count: 3)
        coefficients = .allocate(capacity: 3)
        coefficients.initialize(repeating: .identity, count: 3)
        states = .allocate(capacity: channelCount * 3)
        states.initialize(repeating: BiquadState(), count: channelCount * 3)
    }

    deinit {
        currentDB.deallocate()
        targetDB.deallocate()
        stepDB.deallocate()
        coefficients.deallocate()
        states.deallocate()
    }

    /// The gains asked for last (low, mid, high, dB).
    public var gainsDB: (low: Double, mid: Double, high: Double) { (targetDB[0], targetDB[1], targetDB[2]) }

    /// Every band at 0 dB and settled: `process` leaves the samples untouched.
    public var isFlat: Bool {
        for band in 0..<3 where currentDB[band] != 0 || targetDB[band] != 0 || !hasSettled(band: band) { return false }
        return true
    }

    #if REPEATER_PERFORMANCE_CHECKS
    /// Real-time thread (between `process` calls). New gains (clamped to `gainRangeDB`), reached
    /// over `rampFrames`, or at once with `immediately`. (`@_noLocks`, checked.)
    @_noLocks
    public mutating func setGains(lowDB: Double, midDB: Double, highDB: Double, immediately: Bool = false) {
        changeGains(lowDB: lowDB, midDB: midDB, highDB: highDB, immediately: immediately)
    }
    #else
    /// Real-time thread (between `process` calls). New gains (clamped to `gainRangeDB`), reached
    /// over `rampFrames`, or at once with `immediately`.
    public mutating func setGains(lowDB: Double, midDB: Double, highDB: Double, immediately: Bool = false) {
        changeGains(lowDB: lowDB, midDB: midDB, highDB: highDB, immediately: immediately)
    }
    #endif

    @inline(__always)
    private mutating func changeGains(lowDB: Double, midDB: Double, highDB: Double, immediately: Bool) {
        let gains = (lowDB, midDB, highDB)
        for band in 0..<3 {
            var gain = band == 0 ? gains.0 : band == 1 ? gains.1 : gains.2
            gain = gain.isFinite ? min(Equalizer.gainRangeDB.upperBound, max(Equalizer.gainRangeDB.lowerBound, gain)) : 0
            targetDB[band] = gain
            if immediately {
                currentDB[band] = gain
                coefficients[band] = design(band: band, gainDB: gain)
            }
            stepDB[band] = (gain - currentDB[band]) / Double(rampFrames)
        }
    }

    /// The section for `band` at `gainDB`.
    public func design(band: Int, gainDB: Double) -> BiquadCoefficients {
        let rate = Double(sampleRate)
        switch band {
        case 0: return .lowShelf(frequency: Equalizer.lowShelfHz, gainDB: gainDB, sampleRate: rate)
        case 1: return .peaking(frequency: Equalizer.midHz, gainDB: gainDB, q: Equalizer.midQ, sampleRate: rate)
        default: return .highShelf(frequency: Equalizer.highShelfHz, gainDB: gainDB, sampleRate: rate)
        }
    }

    #if REPEATER_PERFORMANCE_CHECKS
    /// Real-time thread. Processes `frameCount` frames of `channelCount` planar buffers in place.
    /// (`@_noLocks`: checked by the compiler in the release build.)
    @_noLocks
    public mutating func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        processFrames(buffers, frameCount: frameCount)
    }
    #else
    /// Real-time thread. Processes `frameCount` frames of `channelCount` planar buffers in place.
    public mutating func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        processFrames(buffers, frameCount: frameCount)
    }
    #endif

    @inline(__always)
    private func processFrames(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard frameCount > 0 else { return }
        for band in 0..<3 {
            if currentDB[band] == 0 && targetDB[band] == 0 && hasSettled(band: band) {
                remember(band: band, buffers, frameCount: frameCount)
                continue
            }
            var done = 0
            while done < frameCount && currentDB[band] != targetDB[band] {
                let count = min(designFrames, frameCount - done)
                rampStep(band: band, buffers, offset: done, count: count)
                done += count
            }
            if done < frameCount { run(band: band, buffers, offset: done, count: frameCount - done) }
            for channel in 0..<channelCount { states[channel * 3 + band].flushTiny() }
        }
    }

    /// Whether the band's output history equals its input history (to far below audibility): a
    /// band ramped back to 0 dB has identity coefficients but still rings with what it did before;
    /// it is bypassed only once that has died away, or the cut would be a click.
    private func hasSettled(band: Int) -> Bool {
        for channel in 0..<channelCount {
            let state = states[channel * 3 + band]
            if abs(state.y1 - state.x1) > 1e-7 || abs(state.y2 - state.x2) > 1e-7 { return false }
        }
        return true
    }

    /// A bypassed band's state: the last two samples through it, as both input and output.
    private func remember(band: Int, _ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        for channel in 0..<channelCount {
            let samples = buffers[channel]
            var state = states[channel * 3 + band]
            let last = Double(samples[frameCount - 1])
            let before = frameCount >= 2 ? Double(samples[frameCount - 2]) : state.x1
            state.x1 = last
            state.y1 = last
            state.x2 = before
            state.y2 = before
            states[channel * 3 + band] = state
        }
    }

    /// Up to `designFrames` frames of a ramp: the gain moves on, the coefficients move linearly
    /// from the old design to the new one across the frames.
    private func rampStep(band: Int, _ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, count: Int) {
        let target = targetDB[band], step = stepDB[band]
        var gain = currentDB[band] + step * Double(count)
        if (step > 0 && gain >= target) || (step < 0 && gain <= target) || step == 0 { gain = target }
        let from = coefficients[band], to = design(band: band, gainDB: gain)
        let scale = 1 / Double(count)
        for channel in 0..<channelCount {
            let samples = buffers[channel] + offset
            var state = states[channel * 3 + band]
            for i in 0..<count {
                let c = from.interpolated(to: to, by: Double(i + 1) * scale)
                samples[i] = Float(state.process(Double(samples[i]), c))
            }
            states[channel * 3 + band] = state
        }
        coefficients[band] = to
        currentDB[band] = gain
    }

    private func run(band: Int, _ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, count: Int) {
        let c = coefficients[band]
        for channel in 0..<channelCount {
            let samples = buffers[channel] + offset
            var state = states[channel * 3 + band]
            for i in 0..<count { samples[i] = Float(state.process(Double(samples[i]), c)) }
            states[channel * 3 + band] = state
        }
    }

    var hasSubnormalState: Bool {
        for k in 0..<channelCount * 3 where states[k].isSubnormal { return true }
        return false
    }
}
