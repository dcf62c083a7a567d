import Glibc

/// Splits a stereo stream, bin by bin of a short-time Fourier transform, into its centre (what
/// both channels carry alike, in phase) and its sides (the rest): the spectral half of the
/// isolator's `centre` and `sides` modes.
///
/// Per bin it keeps the 2×2 covariance of the two channels, smoothed over time (one pole, time
/// constant `smoothingSeconds`) and then over frequency (the `binRadius` bins either side summed).
/// From it:
/// - centre: the minimum-variance distortionless beamformer for the centre direction (1, 1): the
///   weights w = R⁻¹·1 / (1ᵀ·R⁻¹·1) pass anything panned to the middle unchanged and take out as
///   much as two channels can of whatever else dominates the bin (an instrument panned left, say,
///   is nulled outright: unlike a mask, which only scales the bin, this recovers the centre under a
///   louder side part). R carries a diagonal loading of `loading` × the mean channel power, which
///   keeps the weights tame when one source fills the bin (a plain mask's behaviour in the limit).
///   Two channels can null one direction per bin: where a part on the left and one on the right
///   sound in the same bins, the beamformer nulls the louder and the other leaks (measured: the
///   guitar at pan −0.8 keeps −1.5…+1.8 dB in 354–1414 Hz, where the piano at +0.8 plays across
///   it, against −16…−21 dB below). The output is one signal, for both channels.
/// - sides: the difference D = L − R holds nothing of the centre, exactly; each channel's side part
///   is the least-squares prediction of that channel from D, with a real gain per bin:
///   S_L = h·D, S_R = (h − 1)·D, h = E[(L − R)·L] / E|L − R|² (real parts), clamped to
///   [1 − `sideGainLimit`, `sideGainLimit`]. An instrument panned to (a, b) comes back as (a, b)
///   (h = a / (a − b)), not as the out-of-phase copy plain L − R leaves in the other channel. The
///   gain is real, so it cannot rebuild the centre's phase from chance correlations in the
///   statistics, and S_L − S_R = D always: only the one synthesis of S_L is needed; S_R follows in
///   the time domain.
///
/// Smoothing the statistics, not the per-bin gains, is what keeps the output from sounding
/// watery: the weights follow the music over a quarter of a second and across ±`binRadius` bins,
/// so each bin is a slowly varying linear combination of L and R, with no gain jumping between
/// frames.
///
/// The analysis runs on every hop whether or not an output is wanted (about two forward transforms
/// per hop), so that a switch into `centre` or `sides` finds settled statistics; a synthesis
/// stream runs only while its output is wanted and is primed (its last four frames synthesised
/// from the history) when it starts.
struct StereoSplitter: ~Copyable, @unchecked Sendable {
    let stft: STFT
    /// Output frame n is input frame n − `latencyFrames` (= N).
    var latencyFrames: Int { stft.frameFrames }
    let smoothing: Float
    let binRadius: Int
    let loading: Float
    let sideGainLimit: Float
    static let smoothingSeconds = 0.25

    // Time-smoothed statistics per bin: |L|², |R|², L·R* (real, imaginary).
    private let powerLeft: UnsafeMutablePointer<Float>
    private let powerRight: UnsafeMutablePointer<Float>
    private let crossReal: UnsafeMutablePointer<Float>
    private let crossImaginary: UnsafeMutablePointer<Float>
    // Spectra (FFTW-aligned): the latest frame of each channel, and the outputs to synthesise.
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    private let centreSpectrum: UnsafeMutablePointer<Float>
    private let sidesSpectrum: UnsafeMutablePointer<Float>

    /// The centre, and the left channel of the sides (the right is that minus the delayed L − R).
    let centre: OverlapAdd
    let sidesLeft: OverlapAdd
    private(set) var centreRunning = false
    private(set) var sidesRunning = false
    /// The absolute input frame the last analysed frame ended at (exclusive).
    private(set) var lastFrameEnd = 0
    /// Input frames until the next frame is analysed.
    private(set) var framesToHop: Int

    /// Control thread. The frame is the power of two nearest to 2048 × `sampleRate` / 48000 (2048 at
    /// 44.1 and 48 kHz, 4096 at 88.2 and 96 kHz): about 43 ms, 23 Hz a bin.
    init(sampleRate: Int) {
        stft = STFT(frameFrames: StereoSplitter.frameFrames(sampleRate: sampleRate))
        let hop = stft.hopFrames, bins = stft.binCount
        smoothing = Float(exp(-Double(hop) / (StereoSplitter.smoothingSeconds * Double(sampleRate))))
        binRadius = 3
        loading = 0.05
        sideGainLimit = 4
        func bins0() -> UnsafeMutablePointer<Float> {
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: bins)
            pointer.initialize(repeating: 0, count: bins)
            return pointer
        }
        powerLeft = bins0()
        powerRight = bins0()
        crossReal = bins0()
        crossImaginary = bins0()
        left = stft.makeSpectrum()
        right = stft.makeSpectrum()
        centreSpectrum = stft.makeSpectrum()
        sidesSpectrum = stft.makeSpectrum()
        centre = OverlapAdd(frameFrames: stft.frameFrames, hopFrames: hop)
        sidesLeft = OverlapAdd(frameFrames: stft.frameFrames, hopFrames: hop)
        framesToHop = hop
    }

    deinit {
        for pointer in [powerLeft, powerRight, crossReal, crossImaginary] { pointer.deallocate() }
        for spectrum in [left, right, centreSpectrum, sidesSpectrum] { RealFFT.free(spectrum) }
    }

    static func frameFrames(sampleRate: Int) -> Int {
        let ideal = 2048.0 * Double(sampleRate) / 48_000
        var size = 64
        while Double(size) * 1.5 < ideal { size <<= 1 }  // the nearest power of two (geometrically)
        return size
    }

    /// Frames of history a priming reads back from the newest frame (four frames before the last
    /// analysed one, which may be up to a hop old).
    var primingReach: Int { stft.frameFrames + 4 * stft.hopFrames }

    /// Real-time thread. `count` frames were written to `history` (never past the next hop): runs
    /// the frame due at the hop.
    @inline(__always)
    mutating func advance(_ history: borrowing DelayLine, count: Int) {
        framesToHop -= count
        if framesToHop > 0 { return }
        framesToHop = stft.hopFrames
        lastFrameEnd = history.endFrame
        analyse(history, end: lastFrameEnd, updateStatistics: true)
        if centreRunning { synthesiseCentre(into: centre) }
        if sidesRunning { synthesiseSides(into: sidesLeft) }
        if centreRunning { centre.completeHop() }
        if sidesRunning { sidesLeft.completeHop() }
    }

    /// Real-time thread. The offset into the current hop of the next frame to play out.
    var hopOffset: Int { stft.hopFrames - framesToHop }

    /// Real-time thread. The centre's frames for the rest of the current hop (valid while it runs).
    func centreOutput() -> UnsafeMutablePointer<Float> { centre.hop + hopOffset }

    /// Real-time thread. The sides' left channel for the rest of the current hop (while it runs).
    func sidesLeftOutput() -> UnsafeMutablePointer<Float> { sidesLeft.hop + hopOffset }

    /// Real-time thread. Starts or stops the syntheses. A stream that starts is primed: the four
    /// frames whose sum is the hop now playing (the last analysed frame and the three before it)
    /// are synthesised from the history with the current statistics, so it plays from its first
    /// frame as if it had been running.
    mutating func setRunning(centre wantCentre: Bool, sides wantSides: Bool, history: borrowing DelayLine) {
        let startCentre = wantCentre && !centreRunning, startSides = wantSides && !sidesRunning
        centreRunning = wantCentre
        sidesRunning = wantSides
        if !startCentre && !startSides { return }
        if startCentre { centre.clear() }
        if startSides { sidesLeft.clear() }
        let hop = stft.hopFrames
        for back in stride(from: 3, through: 0, by: -1) {
            analyse(history, end: lastFrameEnd - back * hop, updateStatistics: false)
            if startCentre {
                synthesiseCentre(into: centre)
                centre.completeHop(keep: back == 0)
            }
            if startSides {
                synthesiseSides(into: sidesLeft)
                sidesLeft.completeHop(keep: back == 0)
            }
        }
    }

    /// Real-time thread. Transforms both channels of the frame ending at `end`; with
    /// `updateStatistics`, folds it into the smoothed statistics.
    private func analyse(_ history: borrowing DelayLine, end: Int, updateStatistics: Bool) {
        stft.analyse(history, channel: 0, end: end, into: left)
        stft.analyse(history, channel: 1, end: end, into: right)
        guard updateStatistics else { return }
        let a = smoothing, b = 1 - smoothing
        let powerLeft = self.powerLeft, powerRight = self.powerRight
        let crossReal = self.crossReal, crossImaginary = self.crossImaginary
        let left = self.left, right = self.right
        for k in 0..<stft.binCount {
            let lr = left[2 * k], li = left[2 * k + 1], rr = right[2 * k], ri = right[2 * k + 1]
            // A tiny floor keeps the powers, and so everything derived, out of the subnormal range
            // (slow on x86) after long silence; the cross terms are flushed to zero there.
            powerLeft[k] = a * powerLeft[k] + b * (lr * lr + li * li) + 1e-30
            powerRight[k] = a * powerRight[k] + b * (rr * rr + ri * ri) + 1e-30
            let cr = a * crossReal[k] + b * (lr * rr + li * ri)
            let ci = a * crossImaginary[k] + b * (li * rr - lr * ri)
            crossReal[k] = abs(cr) < 1e-30 ? 0 : cr
            crossImaginary[k] = abs(ci) < 1e-30 ? 0 : ci
        }
    }

    /// The statistics of bin `k` summed over ±`binRadius` bins.
    @inline(__always)
    private func smoothed(_ k: Int) -> (ll: Float, rr: Float, re: Float, im: Float) {
        let low = max(0, k - binRadius), high = min(stft.binCount - 1, k + binRadius)
        var ll: Float = 0, rr: Float = 0, re: Float = 0, im: Float = 0
        for j in low...high {
            ll += powerLeft[j]
            rr += powerRight[j]
            re += crossReal[j]
            im += crossImaginary[j]
        }
        return (ll, rr, re, im)
    }

    /// Real-time thread. The centre of the analysed frame (MVDR towards (1, 1)), added into `stream`.
    private func synthesiseCentre(into stream: borrowing OverlapAdd) {
        let left = self.left, right = self.right, out = centreSpectrum
        for k in 0..<stft.binCount {
            let s = smoothed(k)
            let e = loading * 0.5 * (s.ll + s.rr) + 1e-30
            let a11 = s.ll + e, a22 = s.rr + e
            // adj(R)·1 = (a22 − r, a11 − r*) with r = E[L·R*]; 1ᵀ·adj(R)·1 = a11 + a22 − 2·Re r > 0.
            let u1r = a22 - s.re, u1i = -s.im
            let u2r = a11 - s.re, u2i = s.im
            let scale = 1 / (a11 + a22 - 2 * s.re)
            // y = w^H·X = (conj(u1)·L + conj(u2)·R) / den
            let lr = left[2 * k], li = left[2 * k + 1], rr = right[2 * k], ri = right[2 * k + 1]
            out[2 * k] = (u1r * lr + u1i * li + u2r * rr + u2i * ri) * scale
            out[2 * k + 1] = (u1r * li - u1i * lr + u2r * ri - u2i * rr) * scale
        }
        stft.synthesise(out, into: stream)
    }

    /// Real-time thread. The left channel of the sides of the analysed frame, added into `stream`.
    private func synthesiseSides(into stream: borrowing OverlapAdd) {
        let left = self.left, right = self.right, out = sidesSpectrum
        let high = sideGainLimit, low = 1 - sideGainLimit
        for k in 0..<stft.binCount {
            let s = smoothed(k)
            let difference = s.ll + s.rr - 2 * s.re  // E|L − R|²
            let gain = min(high, max(low, (s.ll - s.re) / (difference + 1e-6 * (s.ll + s.rr) + 1e-30)))
            out[2 * k] = gain * (left[2 * k] - right[2 * k])
            out[2 * k + 1] = gain * (left[2 * k + 1] - right[2 * k + 1])
        }
        stft.synthesise(out, into: stream)
    }

    /// Subnormal values in the statistics (none, by construction; the tests check).
    func subnormalCount() -> Int {
        var count = 0
        for k in 0..<stft.binCount {
            for value in [powerLeft[k], powerRight[k], crossReal[k], crossImaginary[k]] where value.isSubnormal { count += 1 }
        }
        return count
    }
}
