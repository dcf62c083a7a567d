import Glibc

/// Splits a stereo stream, bin by bin of a short-time Fourier transform, into its centre (what
/// both channels carry alike, in phase) and its sides (the rest): the spectral half of the
/// isolator's `centre` and `sides` modes.
///
/// centre weighs, per bin and frame, three estimates (issue 29):
/// - a soft mask on the frame's own cues, the level ratio and the phase difference of L and R:
///   g = exp(−u²/(2σu²) − (1 − cos φ)/σφ²), u = (|L|² − |R|²)/(|L|² + |R|²) (an ILD of d dB is
///   u ≈ d/8.69), φ the angle of L·R*, σ = 1 dB of level difference and 0.6 rad of phase: a bin
///   whose channels agree to within about a decibel and a few tens of degrees counts as the
///   centre's. The mask is not applied to the output (that would sound watery and, measured on the
///   studio mixes, loses on hard-panned and reverberant ones): it only estimates the centre's power.
/// - a local multichannel Wiener filter: the centre modelled as (1, 1)·C with power
///   P = E|g·M|² (M = (L + R)/2), the rest as the 2×2 covariance B of L − g·M and R − g·M, both
///   smoothed over 0.1 s and ±1 bin (`centreModel`); the weights w = P·(P·11ᵀ + B + λI)⁻¹·1,
///   λ = 10⁻³ × the trace of B, estimate C by least squares from both channels. Where a part
///   panned to one side is louder than the centre, it is taken out by the phase and level
///   relation of L and R over the neighbourhood, not only scaled down as a mask would.
/// - the minimum-variance distortionless beamformer for the centre direction (1, 1), on the
///   covariance of L and R smoothed over 0.25 s and ±3 bins (`covariance`): w = R⁻¹·1 / (1ᵀ·R⁻¹·1)
///   passes the middle unchanged and nulls whatever one other direction dominates the bin, with a
///   diagonal loading of 0.05 × the mean channel power. It wins where strongly panned parts sit
///   (the mask and the Wiener filter then lose a centred bass under a guitar hard left).
/// The last two are mixed per bin by the `sideRegions`, smoothed over 2 s and ±6 bins: of the
/// power in bins where one channel is at least 3 dB louder than the other, which share leans to
/// one side (|signed| / total) and by how many dB on average. Where both are high (one side's
/// share 0.4 → 0.7, level difference 5 → 8 dB, each ramped linearly), the beamformer; elsewhere
/// the Wiener filter. Everything is smoothed statistics or a per-bin linear combination of L and
/// R (the mask enters only through the 0.1 s statistics): no gain jumps from frame to frame.
///
/// sides: the difference D = L − R holds nothing of the centre, exactly; each channel's side part
/// is the least-squares prediction of that channel from D, with a real gain per bin:
/// S_L = h·D, S_R = (h − 1)·D, h = E[(L − R)·L] / E|L − R|² (real parts, from `covariance`),
/// clamped to [1 − `sideGainLimit`, `sideGainLimit`]. An instrument panned to (a, b) comes back as
/// (a, b) (h = a / (a − b)), not as the out-of-phase copy plain L − R leaves in the other channel.
/// The gain is real, so it cannot rebuild the centre's phase from chance correlations in the
/// statistics, and S_L − S_R = D always: only the one synthesis of S_L is needed; S_R follows in
/// the time domain.
///
/// The statistics are kept up to date whether or not an output is wanted, so that a switch into
/// `centre` or `sides` finds them settled. While neither synthesis runs, only every
/// `idleStride`-th hop is analysed (those frames tile the signal without gaps) and folded in with
/// every smoothing coefficient raised to the `idleStride`-th power (the time constants stay):
/// an eighth of the transforms (a quarter measured the same within 3 dB, −47.8 against −45.0 dB
/// at worst, and cost twice as much: a twentieth of a speed-1 player). A synthesis that starts is
/// primed from the history: the frames not yet folded in are folded in at the full rate, and the
/// last four frames are analysed again and synthesised, so it plays from its first frame as if it
/// had been running.
struct StereoSplitter: ~Copyable, @unchecked Sendable {
    let stft: STFT
    /// Output frame n is input frame n − `latencyFrames` (= N).
    var latencyFrames: Int { stft.frameFrames }
    let sideGainLimit: Float = 4
    /// While no synthesis runs, one hop in this many is analysed.
    static let idleStride = 8
    /// Tests: analyse every hop even while no synthesis runs (the reference for the strided mode).
    var analysesEveryHopWhileIdle = false

    // Constants as literals (a computed `static let` is initialised lazily, behind a lock).
    /// The mask's 1/(2σu²), σu = 1 dB / (20/ln 10), and 1/σφ², σφ = 0.6 rad.
    static let levelWeight: Float = 37.7223
    static let phaseWeight: Float = 2.777778
    static let wienerLoading = 1e-3
    static let beamformerLoading: Float = 0.05
    /// A bin counts for the side regions when one channel's power is this many times the other's
    /// (10^0.3: 3 dB).
    static let sidePowerRatio: Float = 1.995262
    /// The side regions' ramps: one side's share of the power, and the mean level difference in dB.
    static let shareLow: Float = 0.4, shareHigh: Float = 0.7
    static let decibelsLow: Float = 5, decibelsHigh: Float = 8

    /// |L|², |R|², L·R* (real, imaginary): 0.25 s, ±3 bins (the beamformer and the sides).
    let covariance: BinStatistics
    /// |g·M|², |L − g·M|², |R − g·M|², (L − g·M)·(R − g·M)* (real, imaginary): 0.1 s, ±1 bin.
    let centreModel: BinStatistics
    /// In bins with one channel ≥ 3 dB louder: the power, the power signed (+ left), the power ×
    /// the level difference in dB: 2 s, ±6 bins.
    let sideRegions: BinStatistics
    // Spectra (FFTW-aligned): the latest frame of each channel, and the outputs to synthesise.
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    private let centreSpectrum: UnsafeMutablePointer<Float>
    private let sidesSpectrum: UnsafeMutablePointer<Float>
    /// The latest frame's mask, per bin.
    private let mask: UnsafeMutablePointer<Float>

    /// The centre, and the left channel of the sides (the right is that minus the delayed L − R).
    let centre: OverlapAdd
    let sidesLeft: OverlapAdd
    private(set) var centreRunning = false
    private(set) var sidesRunning = false
    /// The absolute input frame the last hop ended at (exclusive): the end of the newest frame,
    /// analysed or not.
    private(set) var lastFrameEnd = 0
    /// Hops since the last frame folded into the statistics (0: the newest frame is folded in).
    private(set) var hopsSinceFold = 0
    /// Input frames until the next hop.
    private(set) var framesToHop: Int

    /// How a frame is folded into the statistics.
    enum Fold { case none, everyHop, strided }

    /// Control thread. The frame is the power of two nearest to 2048 × `sampleRate` / 48000 (2048 at
    /// 44.1 and 48 kHz, 4096 at 88.2 and 96 kHz): about 43 ms, 23 Hz a bin.
    init(sampleRate: Int) {
        stft = STFT(frameFrames: StereoSplitter.frameFrames(sampleRate: sampleRate))
        let hop = stft.hopFrames, bins = stft.binCount, stride = StereoSplitter.idleStride
        covariance = BinStatistics(fieldCount: 4, binCount: bins, binRadius: 3, seconds: 0.25, hopFrames: hop,
                                   sampleRate: sampleRate, stride: stride)
        centreModel = BinStatistics(fieldCount: 5, binCount: bins, binRadius: 1, seconds: 0.1, hopFrames: hop,
                                    sampleRate: sampleRate, stride: stride)
        sideRegions = BinStatistics(fieldCount: 3, binCount: bins, binRadius: 6, seconds: 2, hopFrames: hop,
                                    sampleRate: sampleRate, stride: stride)
        left = stft.makeSpectrum()
        right = stft.makeSpectrum()
        centreSpectrum = stft.makeSpectrum()
        sidesSpectrum = stft.makeSpectrum()
        mask = .allocate(capacity: bins)
        mask.initialize(repeating: 0, count: bins)
        centre = OverlapAdd(frameFrames: stft.frameFrames, hopFrames: hop)
        sidesLeft = OverlapAdd(frameFrames: stft.frameFrames, hopFrames: hop)
        framesToHop = hop
    }

    deinit {
        for spectrum in [left, right, centreSpectrum, sidesSpectrum] { RealFFT.free(spectrum) }
        mask.deallocate()
    }

    static func frameFrames(sampleRate: Int) -> Int {
        let ideal = 2048.0 * Double(sampleRate) / 48_000
        var size = 64
        while Double(size) * 1.5 < ideal { size <<= 1 }  // the nearest power of two (geometrically)
        return size
    }

    /// Frames of history a priming reads back from the newest frame (four frames before the
    /// newest hop's end, which may be up to a hop old).
    var primingReach: Int { stft.frameFrames + max(4, StereoSplitter.idleStride) * stft.hopFrames }

    /// Real-time thread. `count` frames were written to `history` (never past the next hop): at a
    /// hop, analyses the frame that ends there (or, while idle, every `idleStride`-th) and
    /// synthesises the running outputs.
    @inline(__always)
    mutating func advance(_ history: borrowing DelayLine, count: Int) {
        framesToHop -= count
        if framesToHop > 0 { return }
        framesToHop = stft.hopFrames
        lastFrameEnd = history.endFrame
        if !centreRunning && !sidesRunning && !analysesEveryHopWhileIdle {
            hopsSinceFold += 1
            if hopsSinceFold < StereoSplitter.idleStride { return }
            analyse(history, end: lastFrameEnd, fold: .strided)
            hopsSinceFold = 0
            return
        }
        analyse(history, end: lastFrameEnd, fold: .everyHop)
        hopsSinceFold = 0
        synthesiseRunning(keep: true)
    }

    /// Real-time thread. The offset into the current hop of the next frame to play out.
    var hopOffset: Int { stft.hopFrames - framesToHop }

    /// Real-time thread. The centre's frames for the rest of the current hop (valid while it runs).
    func centreOutput() -> UnsafeMutablePointer<Float> { centre.hop + hopOffset }

    /// Real-time thread. The sides' left channel for the rest of the current hop (while it runs).
    func sidesLeftOutput() -> UnsafeMutablePointer<Float> { sidesLeft.hop + hopOffset }

    /// Real-time thread. Starts or stops the syntheses. A stream that starts is primed: the four
    /// frames whose sum is the hop now playing (the newest frame and the three before it) are
    /// analysed again from the history, those the statistics have not seen yet folded in (after an
    /// idle stretch), and synthesised, so it plays from its first frame as if it had been running.
    mutating func setRunning(centre wantCentre: Bool, sides wantSides: Bool, history: borrowing DelayLine) {
        let startCentre = wantCentre && !centreRunning, startSides = wantSides && !sidesRunning
        if !startCentre && !startSides {
            centreRunning = wantCentre
            sidesRunning = wantSides
            return
        }
        // Only the starting streams are synthesised while priming; a running one already holds
        // these frames.
        let wasCentre = centreRunning && wantCentre, wasSides = sidesRunning && wantSides
        centreRunning = startCentre
        sidesRunning = startSides
        if startCentre { centre.clear() }
        if startSides { sidesLeft.clear() }
        let hop = stft.hopFrames
        // Frames older than the four, not yet folded in (an idle stretch's last hops): folded in only.
        for back in stride(from: hopsSinceFold - 1, through: 4, by: -1) {
            analyse(history, end: lastFrameEnd - back * hop, fold: .everyHop)
        }
        for back in stride(from: 3, through: 0, by: -1) {
            analyse(history, end: lastFrameEnd - back * hop, fold: back < hopsSinceFold ? .everyHop : .none)
            synthesiseRunning(keep: back == 0)
        }
        hopsSinceFold = 0
        centreRunning = wantCentre || wasCentre
        sidesRunning = wantSides || wasSides
    }

    /// Real-time thread. Synthesises the analysed frame into the running streams and completes
    /// their hop (`keep`: moved to the output; false while priming).
    private func synthesiseRunning(keep: Bool) {
        covariance.box()
        if centreRunning {
            centreModel.box()
            sideRegions.box()
            synthesiseCentre(into: centre)
        }
        if sidesRunning { synthesiseSides(into: sidesLeft) }
        if centreRunning { centre.completeHop(keep: keep) }
        if sidesRunning { sidesLeft.completeHop(keep: keep) }
    }

    /// Real-time thread. Transforms both channels of the frame ending at `end` and computes its
    /// mask; folds it into the statistics as `fold` says.
    private func analyse(_ history: borrowing DelayLine, end: Int, fold: Fold) {
        stft.analyse(history, channel: 0, end: end, into: left)
        stft.analyse(history, channel: 1, end: end, into: right)
        let left = self.left, right = self.right, mask = self.mask
        let levelWeight = StereoSplitter.levelWeight, phaseWeight = StereoSplitter.phaseWeight
        for k in 0..<stft.binCount {
            let lr = left[2 * k], li = left[2 * k + 1], rr = right[2 * k], ri = right[2 * k + 1]
            let pl = lr * lr + li * li, pr = rr * rr + ri * ri
            let u = (pl - pr) / (pl + pr + 1e-30)
            // cos φ ≤ 1 (clamped against rounding), so g ≤ 1; the 1e-30 under the root leaves
            // near-silent bins (|L|·|R| ≲ 1e-15) out of the centre rather than dividing by 0.
            let cosine = min(1, (lr * rr + li * ri) / libmSqrtf(pl * pr + 1e-30))
            mask[k] = fastExp(-(u * u * levelWeight + (1 - cosine) * phaseWeight))
        }
        if fold == .none { return }
        let strided = fold == .strided
        foldCovariance(strided ? covariance.stridedSmoothing : covariance.smoothing)
        foldCentreModel(strided ? centreModel.stridedSmoothing : centreModel.smoothing)
        foldSideRegions(strided ? sideRegions.stridedSmoothing : sideRegions.smoothing)
    }

    // A tiny floor on every power (1e-30) keeps them, and so everything derived, out of the
    // subnormal range (slow on x86) after long silence; signed terms are flushed to zero there.

    private func foldCovariance(_ a: Float) {
        let left = self.left, right = self.right
        let powerLeft = covariance.field(0), powerRight = covariance.field(1)
        let crossReal = covariance.field(2), crossImaginary = covariance.field(3)
        for k in 0..<stft.binCount {
            StereoSplitter.foldPair(a, left[2 * k], left[2 * k + 1], right[2 * k], right[2 * k + 1],
                                    into: (powerLeft + k, powerRight + k, crossReal + k, crossImaginary + k))
        }
    }

    private func foldCentreModel(_ a: Float) {
        let b = 1 - a, left = self.left, right = self.right, mask = self.mask
        let centrePower = centreModel.field(0), restLeft = centreModel.field(1), restRight = centreModel.field(2)
        let restReal = centreModel.field(3), restImaginary = centreModel.field(4)
        for k in 0..<stft.binCount {
            let lr = left[2 * k], li = left[2 * k + 1], rr = right[2 * k], ri = right[2 * k + 1]
            let g = mask[k]
            let cr = g * 0.5 * (lr + rr), ci = g * 0.5 * (li + ri)  // g·M
            centrePower[k] = a * centrePower[k] + b * (cr * cr + ci * ci) + 1e-30
            // What is left of each channel once the centre estimate is taken out.
            StereoSplitter.foldPair(a, lr - cr, li - ci, rr - cr, ri - ci,
                                    into: (restLeft + k, restRight + k, restReal + k, restImaginary + k))
        }
    }

    /// Folds one bin's 2×2 covariance of a pair of spectra (x, y) into smoothed fields (weight `a`
    /// on the old value): the two powers, with the 1e-30 floor, and the cross term x·conj(y),
    /// flushed to zero below 1e-30.
    @inline(__always)
    private static func foldPair(_ a: Float, _ xr: Float, _ xi: Float, _ yr: Float, _ yi: Float,
                                 into fields: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                                               UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) {
        let b = 1 - a
        let (powerX, powerY, crossReal, crossImaginary) = fields
        powerX.pointee = a * powerX.pointee + b * (xr * xr + xi * xi) + 1e-30
        powerY.pointee = a * powerY.pointee + b * (yr * yr + yi * yi) + 1e-30
        let cr = a * crossReal.pointee + b * (xr * yr + xi * yi)
        let ci = a * crossImaginary.pointee + b * (xi * yr - xr * yi)
        crossReal.pointee = abs(cr) < 1e-30 ? 0 : cr
        crossImaginary.pointee = abs(ci) < 1e-30 ? 0 : ci
    }

    private func foldSideRegions(_ a: Float) {
        let b = 1 - a, left = self.left, right = self.right, ratio = StereoSplitter.sidePowerRatio
        let power = sideRegions.field(0), signed = sideRegions.field(1), decibels = sideRegions.field(2)
        for k in 0..<stft.binCount {
            let lr = left[2 * k], li = left[2 * k + 1], rr = right[2 * k], ri = right[2 * k + 1]
            let pl = lr * lr + li * li, pr = rr * rr + ri * ri
            var binPower: Float = 0, binSigned: Float = 0, binDecibels: Float = 0
            if pl > ratio * pr || pr > ratio * pl {
                binPower = pl + pr
                binSigned = pl > pr ? binPower : -binPower
                binDecibels = binPower * abs(10 * fastLog10((pl + 1e-30) / (pr + 1e-30)))
            }
            power[k] = a * power[k] + b * binPower + 1e-30
            let s = a * signed[k] + b * binSigned
            signed[k] = abs(s) < 1e-30 ? 0 : s
            decibels[k] = a * decibels[k] + b * binDecibels + 1e-30
        }
    }

    /// Real-time thread. The centre of the analysed frame, added into `stream` (the statistics
    /// boxed).
    private func synthesiseCentre(into stream: borrowing OverlapAdd) {
        let left = self.left, right = self.right, out = centreSpectrum
        let ll = covariance.boxedField(0), rr = covariance.boxedField(1)
        let re = covariance.boxedField(2), im = covariance.boxedField(3)
        let centrePower = centreModel.boxedField(0), restLeft = centreModel.boxedField(1), restRight = centreModel.boxedField(2)
        let restReal = centreModel.boxedField(3), restImaginary = centreModel.boxedField(4)
        let sidePower = sideRegions.boxedField(0), sideSigned = sideRegions.boxedField(1), sideDecibels = sideRegions.boxedField(2)
        let beamformerLoading = StereoSplitter.beamformerLoading, wienerLoading = StereoSplitter.wienerLoading
        let shareLow = StereoSplitter.shareLow, shareSpan = StereoSplitter.shareHigh - StereoSplitter.shareLow
        let decibelsLow = StereoSplitter.decibelsLow, decibelsSpan = StereoSplitter.decibelsHigh - StereoSplitter.decibelsLow
        for k in 0..<stft.binCount {
            let lr = left[2 * k], li = left[2 * k + 1], rr0 = right[2 * k], ri = right[2 * k + 1]
            // The beamformer: adj(R)·1 = (a22 − r, a11 − r*) with r = E[L·R*];
            // 1ᵀ·adj(R)·1 = a11 + a22 − 2·Re r > 0; y = (conj(u1)·L + conj(u2)·R) / that.
            let e = beamformerLoading * 0.5 * (ll[k] + rr[k]) + 1e-30
            let a11 = ll[k] + e, a22 = rr[k] + e
            let u1r = a22 - re[k], u1i = -im[k], u2r = a11 - re[k], u2i = im[k]
            let scale = 1 / (a11 + a22 - 2 * re[k])
            let yr = (u1r * lr + u1i * li + u2r * rr0 + u2i * ri) * scale
            let yi = (u1r * li - u1i * lr + u2r * ri - u2i * rr0) * scale
            // The Wiener filter, in double (the products of powers leave float's range in quiet
            // bins): with D = B + λI, w1 = P·(d22 − b12) / det, w2 = P·(d11 − b12*) / det,
            // det = P·(d11 + d22 − 2·Re b12) + d11·d22 − |b12|² (> 0: B is a sum of outer products
            // and λ ≥ 10⁻³·trace B; the 10⁻⁶·P keeps it so in silence and for a centre alone).
            let p = Double(centrePower[k]), b11 = Double(restLeft[k]), b22 = Double(restRight[k])
            let b12r = Double(restReal[k]), b12i = Double(restImaginary[k])
            let loading = wienerLoading * (b11 + b22) + 1e-6 * p + 1e-300  // (statistics never folded: all 0)
            let d11 = b11 + loading, d22 = b22 + loading
            let determinant = p * (d11 + d22 - 2 * b12r) + d11 * d22 - (b12r * b12r + b12i * b12i)
            let gain = p / determinant
            let w1r = Float(gain * (d22 - b12r)), w1i = Float(-gain * b12i)
            let w2r = Float(gain * (d11 - b12r)), w2i = Float(gain * b12i)
            let ar = w1r * lr + w1i * li + w2r * rr0 + w2i * ri
            let ai = w1r * li - w1i * lr + w2r * ri - w2i * rr0
            // The side regions: the beamformer's share.
            let total = max(sidePower[k], 1e-30)
            let oneSide = min(1, max(0, (abs(sideSigned[k]) / total - shareLow) / shareSpan))
            let apart = min(1, max(0, (sideDecibels[k] / total - decibelsLow) / decibelsSpan))
            let w = oneSide * apart
            out[2 * k] = ar + w * (yr - ar)
            out[2 * k + 1] = ai + w * (yi - ai)
        }
        stft.synthesise(out, into: stream)
    }

    /// Real-time thread. The left channel of the sides of the analysed frame, added into `stream`
    /// (the covariance boxed).
    private func synthesiseSides(into stream: borrowing OverlapAdd) {
        let left = self.left, right = self.right, out = sidesSpectrum
        let ll = covariance.boxedField(0), rr = covariance.boxedField(1), re = covariance.boxedField(2)
        let high = sideGainLimit, low = 1 - sideGainLimit
        for k in 0..<stft.binCount {
            let difference = ll[k] + rr[k] - 2 * re[k]  // E|L − R|²
            let gain = min(high, max(low, (ll[k] - re[k]) / (difference + 1e-6 * (ll[k] + rr[k]) + 1e-30)))
            out[2 * k] = gain * (left[2 * k] - right[2 * k])
            out[2 * k + 1] = gain * (left[2 * k + 1] - right[2 * k + 1])
        }
        stft.synthesise(out, into: stream)
    }

    /// Subnormal values in the statistics (none, by construction; the tests check).
    func subnormalCount() -> Int {
        covariance.subnormalCount() + centreModel.subnormalCount() + sideRegions.subnormalCount()
    }
}

// The mask's exponential and the side regions' decibels need a few digits only (a weight, and a
// ramp from 5 to 8 dB): polynomial approximations, branch-free and vectorisable, where libm's
// expf and log10f cost more than the two transforms of a frame.

/// Real-time thread. e^x for x ≤ 0 (x below −87 gives about 10⁻³⁸), relative error < 10⁻⁶ (in
/// double, the polynomial's own: 4.2·10⁻⁷).
@inline(__always)
func fastExp(_ x: Float) -> Float {
    let t = (x >= -87 ? x : -87) * 1.442695  // log2(e); NaN → −87 (Int32(NaN) would trap)
    var whole = Float(Int32(t))  // towards zero; then down (`rounded(.down)` is not @_noLocks-clean)
    whole -= whole > t ? 1 : 0
    let f = t - whole  // in [0, 1)
    // 2^f = 1 + f·q(f), q of degree 4 fitted by least squares on [0, 1)
    let p = 1 + f * (0.693147985 + f * (0.240202631 + f * (0.0556685969 + f * (0.00919097781 + f * 0.00178896049))))
    return p * Float(bitPattern: UInt32(Int32(whole) + 127) << 23)
}

/// Real-time thread. log10(x) for x > 0 (normal), absolute error < 10⁻⁵ (the polynomial's own in
/// double: 1.9·10⁻⁵ in log2).
@inline(__always)
func fastLog10(_ x: Float) -> Float {
    let bits = x.bitPattern
    let exponent = Float(Int32(bits >> 23) - 127)
    let m = Float(bitPattern: (bits & 0x007F_FFFF) | 0x3F80_0000) - 1  // the mantissa − 1, in [0, 1)
    // log2(1 + m) = m·r(m), r of degree 5 fitted by least squares on [0, 1)
    let log2m = m * (1.44266888 + m * (-0.720175755 + m * (0.468026869 + m * (-0.301045696 + m * (0.144682866 - m * 0.0341760066)))))
    return (exponent + log2m) * 0.30103  // log10(2)
}

// libm, which the compiler's performance check cannot see into: pure arithmetic, no allocation or
// lock, so safe on the audio thread.
@inline(__always) private func libmSqrtf(_ x: Float) -> Float { _unsafePerformance { sqrtf(x) } }
