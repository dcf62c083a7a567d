import Glibc

/// Splits a stereo stream, bin by bin of a short-time Fourier transform, into its centre (what
/// both channels carry alike, in phase) and its sides (the rest): the spectral half of the
/// isolator's `centre` and `sides` modes.
///
/// centre weighs, per bin and frame (issue 29):
/// - how far apart the panned parts sit around the bin: the `sideRegions`, smoothed over 2 s and
///   ±6 bins, keep, of the power in bins where one channel is at least 3 dB louder than the other,
///   which share leans to one side (|signed| / total) and the mean level difference d in dB.
///   Both masks below scale with d: parts at ±0.2 are 2.8 dB off the middle, at ±0.7 12 dB, hard
///   panned 16 dB, and a tolerance that suits one is too tight or too loose for another.
/// - a soft mask on the frame's own cues, the level ratio and the phase difference of L and R,
///   for the estimate: g = exp(−u²/(2σu²) − (1 − cos φ)/σφ²), u = (|L|² − |R|²)/(|L|² + |R|²) (an
///   ILD of x dB is u ≈ x/8.69), φ the angle of L·R*, σ = κ(f) × d dB (0.68 … 4 dB), σφ = 0.49 rad;
///   κ(f) = 0.25 × (f / 1 kHz)^0.25 (0.14 at 100 Hz, 0.44 at 10 kHz): the tolerance widens with
///   frequency, where a part's own reverberation and its neighbours' overlap spread its level
///   difference more (a fixed 0.17 had left the reverberant trumpet 2.1 dB lower).
/// - a local multichannel Wiener filter: the centre modelled as (1, 1)·C with power
///   P = E|g·M|² (M = (L + R)/2), the rest as the 2×2 covariance B of L − g·M and R − g·M, both
///   smoothed over 0.2 s, per bin (`centreModel`); the weights w = P·(P·11ᵀ + B + λI)⁻¹·1,
///   λ = 0.007 × the trace of B, estimate C by least squares from both channels. Where a part
///   panned to one side is louder than the centre, it is taken out by the phase and level
///   relation of L and R over the neighbourhood, not only scaled down as a mask would.
/// - the minimum-variance distortionless beamformer for the centre direction (1, 1), on the
///   covariance of L and R smoothed over 0.25 s and ±3 bins (`covariance`): w = R⁻¹·1 / (1ᵀ·R⁻¹·1)
///   passes the middle unchanged and nulls whatever one other direction dominates the bin, with a
///   diagonal loading of 0.024 × the mean channel power. It wins where strongly panned parts sit
///   (the mask and the Wiener filter then lose a centred bass under a guitar hard left). The two
///   are mixed per bin by the side regions: where one side's share is high (0.66 → 0.88) and d is
///   (2.6 → 8 dB), each ramped linearly, the beamformer; elsewhere the Wiener filter.
/// - the precedence (`Precedence`): where a bin's power is still within ±4.6 dB of what it was at
///   its last onset, both masks are raised to what they were at that onset (held over 3 s): a
///   sustained note that began in the middle stays there while its own reverberation pulls its
///   level difference aside (the reverberant trumpet of the studio mixes +2.75 → +6.37 dB).
/// - the pitch grouping (`PitchGrouping`): below 500 Hz, where the accompaniment's parts overlap
///   and their level differences cancel, the bins on the harmonics of the centre estimate's pitch
///   (80 … 280 Hz, found from its harmonics at 300 Hz … 2.5 kHz) are raised toward the pitch's
///   confidence, and the bins between them taken down as far as the masks doubt them (at most by
///   half; a bin the estimate holds whole keeps it): the voices of the studio mixes
///   +0.3 … +1.2 dB, the spread voice +7.60 → +8.27.
/// - an output mask on the frame's own cues, a logistic step in |ILD| at b = 0.2 × d dB
///   (0.5 … 6 dB), as wide as 0.45 × b, scaled to 1 at 0 dB, times the same phase term, to the
///   power 0.24 (a gentle mask: −1.2 dB at the boundary, −4.6 dB at twice it, −9 dB at three
///   times). It multiplies the Wiener filter's output: the statistics are smoothed over 0.2 s
///   and cannot follow which part holds a bin in this frame; the mask can, and it is what takes
///   the ±0.2 parts (and the reverberation of all parts) down between the centre's notes. Where
///   the beamformer is used below 350 Hz it is not applied: a centred bass under a part panned
///   hard is what the beamformer finds there and what the mask would take.
/// Measured on the studio mixes (`StudioMixIsolationTests`, docs/manual.md), SI-SDR of the centred
/// lead: the output mask gains +0.3 … +0.6 dB on every mix but two (the reverberant trumpet loses
/// 0.9 dB, hard panning 0.1 … 0.2); σ scaled with d, against a fixed 1 dB, gains +1.7 dB at ±0.7
/// and +1.0 … +1.1 on hard panning, and loses 0.4 on the spread trumpet and 1.0 on the
/// reverberant one; the output boundary scaled with d, against a fixed 1.4 dB, +0.3 at ±0.7 and
/// +0.7 on hard panning.
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
/// `idleStride`-th hop is analysed (one frame every 2N input frames) and folded in with every
/// smoothing coefficient raised to the `idleStride`-th power (the time constants stay): a quarter
/// of the transforms (at 75 % overlap, an eighth of them did the same; a frame every N measured the
/// same within 3 dB and cost twice as much). A synthesis that starts is primed from the history:
/// the frames not yet folded in are folded in at the full rate, and the last `overlap` frames (the
/// two whose sum is the hop now playing) are analysed again and synthesised, so it plays from its
/// first frame as if it had been running. While `sides` runs alone, it needs the covariance only:
/// that is folded in every hop, and what only `centre` uses (the side regions, the masks, the
/// centre model) one hop in `idleStride`, as while idle; a switch into `centre` folds in the frames
/// they have not seen.
struct StereoSplitter: ~Copyable, @unchecked Sendable {
    let stft: STFT
    /// Output frame n is input frame n − `latencyFrames` (= N).
    var latencyFrames: Int { stft.frameFrames }
    let sideGainLimit: Float = 4
    /// While no synthesis runs, one hop in this many is analysed (a frame every 2N).
    static let idleStride = 4
    /// Frames that overlap at each output frame: the hop is N / `overlap` (50 %: half the
    /// transforms and masks of 75 %, for 0.04 … 0.2 dB of SI-SDR on the studio mixes; see `STFT`).
    static let overlap = 2
    /// Tests: analyse every hop even while no synthesis runs (the reference for the strided mode).
    var analysesEveryHopWhileIdle = false

    // Constants as literals (a computed `static let` is initialised lazily, behind a lock).
    /// The mask's level tolerance σ in dB, per bin: κ(f) × the mean level difference of the side
    /// regions (how far apart the panned parts sit there), within `levelToleranceMin` …
    /// `levelToleranceMax`; κ(f) = `levelTolerancePerDecibel` × (f / 1 kHz)^`levelToleranceSlope`
    /// (f at least 20 Hz): 0.14 at 100 Hz, 0.25 at 1 kHz, 0.44 at 10 kHz (`levelTolerance`).
    static let levelTolerancePerDecibel: Float = 0.25
    static let levelToleranceSlope = 0.25
    static let levelToleranceMin: Float = 0.68, levelToleranceMax: Float = 4
    /// The output mask's boundary per dB of the side regions' level difference, its range, its
    /// softness (a share of the boundary) and its exponent.
    static let outputBoundaryPerDecibel: Float = 0.2
    static let outputBoundaryMin: Float = 0.5, outputBoundaryMax: Float = 6
    static let outputSoftness: Float = 0.45
    static let outputExponent: Float = 0.24
    /// The masks' 1/σφ², σφ = 0.49 rad.
    static let phaseWeight: Float = 4.164931
    static let wienerLoading: Float = 7e-3
    static let beamformerLoading: Float = 0.024
    /// A bin counts for the side regions when one channel's power is this many times the other's
    /// (10^0.3: 3 dB).
    static let sidePowerRatio: Float = 1.995262
    /// The side regions' ramps: one side's share of the power, and the mean level difference in dB.
    static let shareLow: Float = 0.66, shareHigh: Float = 0.88
    static let decibelsLow: Float = 2.6, decibelsHigh: Float = 8

    /// |L|², |R|², L·R* (real, imaginary): 0.25 s, ±3 bins (the beamformer and the sides).
    let covariance: BinStatistics
    /// |g·M|², |L − g·M|², |R − g·M|², (L − g·M)·(R − g·M)* (real, imaginary): 0.2 s, per bin.
    let centreModel: BinStatistics
    /// In bins with one channel ≥ 3 dB louder: the power, the power signed (+ left), the power ×
    /// the level difference in dB: 2 s, ±6 bins; summed over the bins (boxed) one hop in
    /// `sideRegionsBoxHops`.
    let sideRegions: BinStatistics
    /// The side regions change over seconds: boxing them (and what they set per bin,
    /// `updateSideWeights`) one hop in two (every 43 ms), every frame still folded in, costs half
    /// as much. (Folding in one frame in two and boxing one hop in four cost the note view 1.5 %
    /// of its right notes through `centre` on the studio mixes.)
    static let sideRegionsBoxHops = 2
    /// Hops since the side regions were last boxed.
    private var sideRegionsHops = 0
    // Spectra (FFTW-aligned): the latest frame of each channel, and the outputs to synthesise.
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    private let centreSpectrum: UnsafeMutablePointer<Float>
    private let sidesSpectrum: UnsafeMutablePointer<Float>
    /// The latest frame's masks, per bin: the estimate's and the output's (`computeMasks`).
    private let mask: UnsafeMutablePointer<Float>
    private let outputMask: UnsafeMutablePointer<Float>
    /// Bins below 350 Hz: where the beamformer is used, its output is not masked there (a
    /// centred bass under a part panned hard is what it finds, and what the mask would take).
    private let beamformerOnlyBins: Int
    /// Per bin, what the side regions set (`updateSideWeights`, when they are boxed): the
    /// beamformer's share of the centre, the estimate mask's 1/(2σu²), and the output mask's
    /// boundary b in dB and 1/(softness·b).
    private let beamformerShare: UnsafeMutablePointer<Float>
    private let levelWeight: UnsafeMutablePointer<Float>
    private let outputBoundary: UnsafeMutablePointer<Float>
    private let outputBoundaryScale: UnsafeMutablePointer<Float>
    /// ln(1 + e^x) at 0 dB (x = −1/`outputSoftness`), as `computeMasks` computes it (`fastSoftplus`).
    private let softplusAtCentre: Float
    /// Both masks raised, while a bin's sound holds it, to what they were at its onset.
    let precedence: Precedence
    /// Both masks below 500 Hz grouped by the pitch of the centre's estimate above 300 Hz.
    let pitchGrouping: PitchGrouping
    /// Tests: the masks without the pitch grouping (the reference it is measured against).
    var groupsByPitch = true
    /// Per bin, κ(f): the estimate mask's level tolerance per dB of the side regions' level
    /// difference (`levelTolerancePerDecibel`).
    private let levelTolerance: UnsafeMutablePointer<Float>

    /// The centre, and the left channel of the sides (the right is that minus the delayed L − R).
    let centre: OverlapAdd
    let sidesLeft: OverlapAdd
    private(set) var centreRunning = false
    private(set) var sidesRunning = false
    /// The absolute input frame the last hop ended at (exclusive): the end of the newest frame,
    /// analysed or not.
    private(set) var lastFrameEnd = 0
    /// Hops since the last frame folded into the covariance (0: the newest frame is folded in).
    private(set) var hopsSinceFold = 0
    /// Hops since the last frame folded into what only `centre` uses: the side regions, the masks
    /// and the centre model. While `sides` runs alone they are kept as while idle, one hop in
    /// `idleStride` (`sides` needs the covariance only).
    private(set) var hopsSinceCentreFold = 0
    /// Input frames until the next hop.
    private(set) var framesToHop: Int

    /// How a frame is folded into the statistics: into the covariance, and into what only `centre`
    /// uses (the side regions and the centre model), each at the full rate, strided, or not.
    struct Fold {
        enum Rate { case everyHop, strided }
        var covariance: Rate?, centre: Rate?
        static let everyHop = Fold(covariance: .everyHop, centre: .everyHop)
        static let strided = Fold(covariance: .strided, centre: .strided)
    }

    /// Control thread. The frame is the power of two nearest to 2048 × `sampleRate` / 48000 (2048 at
    /// 44.1 and 48 kHz, 4096 at 88.2 and 96 kHz): about 43 ms, 23 Hz a bin.
    init(sampleRate: Int) {
        stft = STFT(frameFrames: StereoSplitter.frameFrames(sampleRate: sampleRate), overlap: StereoSplitter.overlap)
        let hop = stft.hopFrames, bins = stft.binCount, stride = StereoSplitter.idleStride
        covariance = BinStatistics(fieldCount: 4, binCount: bins, binRadius: 3, seconds: 0.25, hopFrames: hop,
                                   sampleRate: sampleRate, stride: stride)
        centreModel = BinStatistics(fieldCount: 5, binCount: bins, binRadius: 0, seconds: 0.2, hopFrames: hop,
                                    sampleRate: sampleRate, stride: stride)
        sideRegions = BinStatistics(fieldCount: 3, binCount: bins, binRadius: 6, seconds: 2, hopFrames: hop,
                                    sampleRate: sampleRate, stride: stride)
        left = stft.makeSpectrum()
        right = stft.makeSpectrum()
        centreSpectrum = stft.makeSpectrum()
        sidesSpectrum = stft.makeSpectrum()
        func perBin() -> UnsafeMutablePointer<Float> { .zeroed(bins) }
        mask = perBin()
        outputMask = perBin()
        beamformerShare = perBin()
        levelWeight = perBin()
        outputBoundary = perBin()
        outputBoundaryScale = perBin()
        levelTolerance = perBin()
        precedence = Precedence(binCount: bins, hopFrames: hop, sampleRate: sampleRate, stride: stride)
        pitchGrouping = PitchGrouping(frameFrames: stft.frameFrames, sampleRate: sampleRate, binCount: bins)
        for k in 0..<bins {
            let hertz = max(20, Double(k) * Double(sampleRate) / Double(stft.frameFrames))
            levelTolerance[k] = StereoSplitter.levelTolerancePerDecibel * Float(pow(hertz / 1000, StereoSplitter.levelToleranceSlope))
        }
        softplusAtCentre = fastSoftplus(SIMD8(repeating: -1 / StereoSplitter.outputSoftness))[0]
        beamformerOnlyBins = Int((350.0 * Double(stft.frameFrames) / Double(sampleRate)).rounded(.up))
        centre = OverlapAdd(frameFrames: stft.frameFrames, hopFrames: hop)
        sidesLeft = OverlapAdd(frameFrames: stft.frameFrames, hopFrames: hop)
        framesToHop = hop
        updateSideWeights()  // (from side regions still empty: d = 0, the tightest tolerances)
    }

    deinit {
        for spectrum in [left, right, centreSpectrum, sidesSpectrum] { RealFFT.free(spectrum) }
        for perBin in [mask, outputMask, beamformerShare, levelWeight, outputBoundary, outputBoundaryScale, levelTolerance] {
            perBin.deallocate()
        }
    }

    static func frameFrames(sampleRate: Int) -> Int {
        let ideal = 2048.0 * Double(sampleRate) / 48_000
        var size = 64
        while Double(size) * 1.5 < ideal { size <<= 1 }  // the nearest power of two (geometrically)
        return size
    }

    /// Frames of history a priming reads back from the newest frame (the frames it analyses again
    /// or folds in, before the newest hop's end, which may be up to a hop old).
    var primingReach: Int { stft.frameFrames + max(StereoSplitter.overlap, StereoSplitter.idleStride) * stft.hopFrames }

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
            hopsSinceCentreFold += 1
            if hopsSinceFold < StereoSplitter.idleStride { return }
            analyse(history, end: lastFrameEnd, fold: .strided)
            hopsSinceFold = 0
            hopsSinceCentreFold = 0  // (after `sides` alone it may have been up to `idleStride` − 1 hops more: that frame's gap is skipped)
            return
        }
        if centreRunning || analysesEveryHopWhileIdle {
            analyse(history, end: lastFrameEnd, fold: .everyHop)
            hopsSinceCentreFold = 0
        } else {  // `sides` alone
            hopsSinceCentreFold += 1
            let strided = hopsSinceCentreFold >= StereoSplitter.idleStride
            analyse(history, end: lastFrameEnd, fold: Fold(covariance: .everyHop, centre: strided ? .strided : nil))
            if strided { hopsSinceCentreFold = 0 }
        }
        hopsSinceFold = 0
        synthesiseRunning(keep: true)
    }

    /// Real-time thread. The offset into the current hop of the next frame to play out.
    var hopOffset: Int { stft.hopFrames - framesToHop }

    /// Real-time thread. The centre's frames for the rest of the current hop (valid while it runs).
    func centreOutput() -> UnsafeMutablePointer<Float> { centre.hop + hopOffset }

    /// Real-time thread. The sides' left channel for the rest of the current hop (while it runs).
    func sidesLeftOutput() -> UnsafeMutablePointer<Float> { sidesLeft.hop + hopOffset }

    /// Real-time thread. Starts or stops the syntheses. A stream that starts is primed: the `overlap`
    /// frames whose sum is the hop now playing (the newest frame and the one before it) are
    /// analysed again from the history, those the statistics it needs have not seen yet folded in
    /// (after an idle stretch; for `centre`, also after `sides` alone), and synthesised, so it plays
    /// from its first frame as if it had been running.
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
        // What each frame still needs: the covariance, for whichever starts; the centre's own
        // statistics only for `centre` (a `sides` that starts alone keeps them strided).
        // (At most `idleStride` frames back, what the history keeps for a priming: after `sides`
        // alone and then idle hops, an older gap is skipped.)
        let centreBehind = startCentre || wasCentre ? min(hopsSinceCentreFold, StereoSplitter.idleStride) : 0
        func fold(_ back: Int) -> Fold {
            Fold(covariance: back < hopsSinceFold ? .everyHop : nil, centre: back < centreBehind ? .everyHop : nil)
        }
        // Frames older than those, not yet folded in (an idle stretch's last hops): folded in only.
        for back in stride(from: max(hopsSinceFold, centreBehind) - 1, through: StereoSplitter.overlap, by: -1) {
            analyse(history, end: lastFrameEnd - back * hop, fold: fold(back))
        }
        for back in stride(from: StereoSplitter.overlap - 1, through: 0, by: -1) {
            analyse(history, end: lastFrameEnd - back * hop, fold: fold(back))
            synthesiseRunning(keep: back == 0)
        }
        hopsSinceFold = 0
        if centreBehind > 0 { hopsSinceCentreFold = 0 }
        centreRunning = wantCentre || wasCentre
        sidesRunning = wantSides || wasSides
    }

    /// Real-time thread. Synthesises the analysed frame into the running streams and completes
    /// their hop (`keep`: moved to the output; false while priming).
    private func synthesiseRunning(keep: Bool) {
        covariance.box()
        if centreRunning {
            centreModel.box()  // (the side regions were boxed when the frame was folded in)
            synthesiseCentre(into: centre)
        }
        if sidesRunning { synthesiseSides(into: sidesLeft) }
        if centreRunning { centre.completeHop(keep: keep) }
        if sidesRunning { sidesLeft.completeHop(keep: keep) }
    }

    /// Real-time thread. Transforms both channels of the frame ending at `end` and computes its
    /// mask; folds it into the statistics as `fold` says.
    private mutating func analyse(_ history: borrowing DelayLine, end: Int, fold: Fold) {
        stft.analyse(history, channel: 0, end: end, into: left)
        stft.analyse(history, channel: 1, end: end, into: right)
        if let rate = fold.centre {
            // The side regions first: the masks' tolerances come from them (boxed with this frame
            // in one hop in two, the one before it in the others).
            foldSideRegions(sideRegions.smoothing(rate))
            sideRegionsHops += 1
            if rate == .strided || sideRegionsHops >= StereoSplitter.sideRegionsBoxHops {
                sideRegions.box()
                updateSideWeights()
                sideRegionsHops = 0
            }
        }
        // The masks where the centre model takes this frame in or the centre is synthesised from
        // it (both: the precedence holds the output's too, so that a `centre` that starts finds
        // it as if it had been running; one frame in four while idle).
        if fold.centre != nil || centreRunning { computeMasks(fold: fold.centre) }
        if let rate = fold.covariance { foldCovariance(covariance.smoothing(rate)) }
        if let rate = fold.centre { foldCentreModel(centreModel.smoothing(rate)) }
    }

    /// Real-time thread. The analysed frame's two masks (the side regions boxed). Both follow the
    /// mean level difference d of the side regions around the bin (how far apart the panned parts
    /// sit there), so that where they sit close to the middle (±0.2: 2.8 dB) only bins within a
    /// fraction of that count as the centre's, and where they sit far out (±0.7: 12 dB; hard
    /// panning) a reverberant or partly covered centre still does:
    /// - the estimate's (`mask`, which shapes the statistics): exp(−u²/(2σu²) − (1 − cos φ)/σφ²),
    ///   σ = κ(f) × d in dB (`levelTolerance`), within `levelToleranceMin` … `levelToleranceMax`;
    /// - the output's (`outputMask`): a logistic step in the level difference |ILD| at
    ///   b = `outputBoundaryPerDecibel` × d (within `outputBoundaryMin` … `outputBoundaryMax`),
    ///   as wide as `outputSoftness` × b, scaled to 1 at 0 dB, times the same phase term, to the
    ///   power `outputExponent`: a bin both channels carry alike passes whole.
    ///
    /// Eight bins at a time (`MaskLanes`; the last, partial group through lanes padded with
    /// silence): the exponentials and logarithms are polynomials, and a bin at a time they were
    /// the splitter's largest cost.
    private func computeMasks(fold: Fold.Rate?) {
        let left = self.left, right = self.right, mask = self.mask, outputMask = self.outputMask
        let levelWeight = self.levelWeight, outputBoundary = self.outputBoundary, outputBoundaryScale = self.outputBoundaryScale
        let softplusAtCentre = self.softplusAtCentre
        let bins = stft.binCount
        var k = 0
        while k < bins {
            let n = min(8, bins - k)
            let (lr, li) = BinLanes.complex(left, k, n), (rr, ri) = BinLanes.complex(right, k, n)
            let bin = MaskLanes(leftReal: lr, leftImaginary: li, rightReal: rr, rightImaginary: ri)
            var estimate = bin.estimateMask(levelWeight: BinLanes.load(levelWeight, k, n))
            var output = bin.outputMask(boundary: BinLanes.load(outputBoundary, k, n), scale: BinLanes.load(outputBoundaryScale, k, n),
                                        softplusAtCentre: softplusAtCentre)
            precedence.step(k, n, power: bin.leftPower + bin.rightPower, estimate: &estimate, output: &output, fold: fold)
            BinLanes.store(estimate, mask, k, n)
            BinLanes.store(output, outputMask, k, n)
            k += 8
        }
        if groupsByPitch { pitchGrouping.apply(left: left, right: right, estimate: mask, output: outputMask) }
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

    /// Eight bins at a time (`BinLanes`; the side regions' decibels are a `fastLog10` of eight).
    private func foldSideRegions(_ a: Float) {
        let b = 1 - a, left = self.left, right = self.right, ratio = StereoSplitter.sidePowerRatio
        let power = sideRegions.field(0), signed = sideRegions.field(1), decibels = sideRegions.field(2)
        let bins = stft.binCount
        var k = 0
        while k < bins {
            let n = min(8, bins - k)
            let (lr, li) = BinLanes.complex(left, k, n), (rr, ri) = BinLanes.complex(right, k, n)
            let pl = lr * lr + li * li, pr = rr * rr + ri * ri
            let lopsided = (pl .> ratio * pr) .| (pr .> ratio * pl)
            let both = pl + pr
            // (Bitwise: as `replacing(with:where:)` the compiler computed the logarithm lane by
            // lane, under a branch per lane.)
            let binPower = lanesKeep(both, where: lopsided)
            let binSigned = lanesNegate(binPower, where: .!(pl .> pr))
            let binDecibels = lanesKeep(both * magnitude(10 * fastLog10Called((pl + 1e-30) / (pr + 1e-30))), where: lopsided)
            BinLanes.store(a * BinLanes.load(power, k, n) + b * binPower + 1e-30, power, k, n)
            BinLanes.store(flushed(a * BinLanes.load(signed, k, n) + b * binSigned), signed, k, n)
            BinLanes.store(a * BinLanes.load(decibels, k, n) + b * binDecibels + 1e-30, decibels, k, n)
            k += 8
        }
    }

    /// Real-time thread (and once in `init`). What the side regions (boxed) set per bin, from
    /// the share of their power leaning to one side and their mean level difference d (dB), when
    /// they are boxed (one hop in two; every frame analysed while strided):
    /// - the beamformer's share of the centre: where one side's share is 0.66 → 0.88 and d is
    ///   2.6 → 8 dB, each ramped;
    /// - the estimate mask's 1/(2σu²), σu = σ/8.69, σ = κ(f) × d within `levelToleranceMin` …
    ///   `levelToleranceMax` (`MaskLanes.estimateMask`);
    /// - the output mask's boundary b = `outputBoundaryPerDecibel` × d within `outputBoundaryMin`
    ///   … `outputBoundaryMax`, and 1/(`outputSoftness` × b) (`MaskLanes.outputMask`).
    private func updateSideWeights() {
        let share = beamformerShare, levelWeight = self.levelWeight, levelTolerance = self.levelTolerance
        let outputBoundary = self.outputBoundary, outputBoundaryScale = self.outputBoundaryScale, bins = stft.binCount
        let sidePower = sideRegions.boxedField(0), sideSigned = sideRegions.boxedField(1), sideDecibels = sideRegions.boxedField(2)
        let shareLow = StereoSplitter.shareLow, shareScale = 1 / (StereoSplitter.shareHigh - StereoSplitter.shareLow)
        let decibelsLow = StereoSplitter.decibelsLow, decibelsScale = 1 / (StereoSplitter.decibelsHigh - StereoSplitter.decibelsLow)
        var k = 0
        while k < bins {
            let n = min(8, bins - k)
            let perTotal = 1 / lanesMax(BinLanes.load(sidePower, k, n), SIMD8(repeating: 1e-30))
            let apart = BinLanes.load(sideDecibels, k, n) * perTotal  // d
            let oneSide = lanesClamp((magnitude(BinLanes.load(sideSigned, k, n)) * perTotal - shareLow) * shareScale, 0, 1)
            BinLanes.store(oneSide * lanesClamp((apart - decibelsLow) * decibelsScale, 0, 1), share, k, n)
            let sigma = lanesClamp(BinLanes.load(levelTolerance, k, n, pad: 1) * apart,
                                   StereoSplitter.levelToleranceMin, StereoSplitter.levelToleranceMax) / 8.685890
            BinLanes.store(0.5 / (sigma * sigma), levelWeight, k, n)
            let boundary = lanesClamp(StereoSplitter.outputBoundaryPerDecibel * apart,
                                      StereoSplitter.outputBoundaryMin, StereoSplitter.outputBoundaryMax)
            BinLanes.store(boundary, outputBoundary, k, n)
            BinLanes.store(1 / (StereoSplitter.outputSoftness * boundary), outputBoundaryScale, k, n)
            k += 8
        }
    }

    /// Real-time thread. The centre of the analysed frame, added into `stream` (the statistics
    /// boxed). Eight bins at a time (`BinLanes`).
    private func synthesiseCentre(into stream: borrowing OverlapAdd) {
        let left = self.left, right = self.right, out = centreSpectrum, outputMask = self.outputMask
        let ll = covariance.boxedField(0), rr = covariance.boxedField(1)
        let re = covariance.boxedField(2), im = covariance.boxedField(3)
        let centrePower = centreModel.boxedField(0), restLeft = centreModel.boxedField(1), restRight = centreModel.boxedField(2)
        let restReal = centreModel.boxedField(3), restImaginary = centreModel.boxedField(4)
        let beamformerShare = self.beamformerShare
        let beamformerLoading = StereoSplitter.beamformerLoading, wienerLoading = StereoSplitter.wienerLoading
        let bins = stft.binCount, beamformerOnly = Float(beamformerOnlyBins)
        var k = 0
        while k < bins {
            let n = min(8, bins - k)
            let (lr, li) = BinLanes.complex(left, k, n), (rr0, ri) = BinLanes.complex(right, k, n)
            // The Wiener filter: with D = B + λI, w1 = P·(d22 − b12) / det, w2 = P·(d11 − b12*) / det,
            // det = P·(d11 + d22 − 2·Re b12) + d11·d22 − |b12|² (> 0: B is a sum of outer products
            // and λ ≥ 7·10⁻³·trace B; the 10⁻⁶·P keeps it so for a centre alone, the 10⁻¹² in
            // silence). The statistics are first scaled by 1/(P + trace B), which cancels in w:
            // the products of powers stay in float's range in quiet bins (they did not unscaled).
            let pRaw = BinLanes.load(centrePower, k, n), b11Raw = BinLanes.load(restLeft, k, n)
            let b22Raw = BinLanes.load(restRight, k, n)
            let unit = 1 / (pRaw + b11Raw + b22Raw + 1e-30)
            let p = pRaw * unit, b11 = b11Raw * unit, b22 = b22Raw * unit
            let b12r = BinLanes.load(restReal, k, n) * unit, b12i = BinLanes.load(restImaginary, k, n) * unit
            let loading = wienerLoading * (b11 + b22) + 1e-6 * p + 1e-12
            let d11 = b11 + loading, d22 = b22 + loading
            let determinant = p * (d11 + d22 - 2 * b12r) + d11 * d22 - (b12r * b12r + b12i * b12i)
            let gain = p / determinant
            let w1r = gain * (d22 - b12r), w1i = -gain * b12i
            let w2r = gain * (d11 - b12r), w2i = gain * b12i
            let ar = w1r * lr + w1i * li + w2r * rr0 + w2i * ri
            let ai = w1r * li - w1i * lr + w2r * ri - w2i * rr0
            let w = BinLanes.load(beamformerShare, k, n)
            // The output mask, where the Wiener filter is used (and above 350 Hz everywhere).
            let unmasked = SIMD8<Float>().replacing(with: w, where: BinLanes.index(k) .< beamformerOnly)
            let outputGain = unmasked + (1 - unmasked) * BinLanes.load(outputMask, k, n)
            // The beamformer where it has a share (moderately panned mixes give it none in most
            // bins: skipped there, the same bits): adj(R)·1 = (a22 − r, a11 − r*) with r = E[L·R*];
            // 1ᵀ·adj(R)·1 = a11 + a22 − 2·Re r > 0; y = (conj(u1)·L + conj(u2)·R) / that.
            var cr = ar, ci = ai
            if any(w .> 0) {
                let a11Raw = BinLanes.load(ll, k, n), a22Raw = BinLanes.load(rr, k, n)
                let reK = BinLanes.load(re, k, n), imK = BinLanes.load(im, k, n)
                let e = beamformerLoading * 0.5 * (a11Raw + a22Raw) + 1e-30
                let a11 = a11Raw + e, a22 = a22Raw + e
                let u1r = a22 - reK, u1i = -imK, u2r = a11 - reK, u2i = imK
                let scale = 1 / (a11 + a22 - 2 * reK)
                let yr = (u1r * lr + u1i * li + u2r * rr0 + u2i * ri) * scale
                let yi = (u1r * li - u1i * lr + u2r * ri - u2i * rr0) * scale
                cr = ar + w * (yr - ar)
                ci = ai + w * (yi - ai)
            }
            BinLanes.storeComplex(outputGain * cr, outputGain * ci, out, k, n)
            k += 8
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
        covariance.subnormalCount() + centreModel.subnormalCount() + sideRegions.subnormalCount() + precedence.subnormalCount()
    }
}

// The masks' exponentials and logarithms and the side regions' decibels need a few digits only
// (weights, and a ramp from 2.6 to 8 dB): polynomial approximations, eight at a time (`fastExp`,
// `fastLog10` on SIMD8), where libm's expf and log10f cost more than the two transforms of a frame.

/// Real-time thread. Eight bins' cues for `StereoSplitter.computeMasks`: the channels' powers and
/// the phase term (what the side regions set comes with each mask's call).
private struct MaskLanes {
    let leftPower: SIMD8<Float>, rightPower: SIMD8<Float>
    /// (1 − cos φ)/σφ², φ the angle of L·R*.
    let phase: SIMD8<Float>

    @inline(__always)
    init(leftReal lr: SIMD8<Float>, leftImaginary li: SIMD8<Float>, rightReal rr: SIMD8<Float>, rightImaginary ri: SIMD8<Float>) {
        leftPower = lr * lr + li * li
        rightPower = rr * rr + ri * ri
        // cos φ ≤ 1 (clamped against rounding), so both masks are ≤ 1; the 1e-30 under the root
        // leaves near-silent bins (|L|·|R| ≲ 1e-15) out of the centre rather than dividing by 0.
        let product: SIMD8<Float> = leftPower * rightPower + 1e-30
        let cosine = lanesMin(SIMD8<Float>(repeating: 1), (lr * rr + li * ri) * fastReciprocalSquareRoot(product))
        phase = (1 - cosine) * StereoSplitter.phaseWeight
    }

    /// exp(−u²/(2σu²) − phase), u = (|L|² − |R|²)/(|L|² + |R|²) (an ILD of x dB is u ≈ x/8.69),
    /// `levelWeight` = 1/(2σu²) as the side regions set it.
    @inline(__always)
    func estimateMask(levelWeight: SIMD8<Float>) -> SIMD8<Float> {
        let u = (leftPower - rightPower) / (leftPower + rightPower + 1e-30)
        return fastExp(-(u * u * levelWeight + phase))
    }

    /// ((1 + e^x)/(1 + e^x₀))^−e · e^(−e·phase), x = (|ILD| − b)/(softness·b) (`boundary` b and
    /// `scale` 1/(softness·b) as the side regions set them), x₀ its value at 0 dB,
    /// e = `outputExponent`: one exponential of e·(softplus(x₀) − softplus(x) − phase), the
    /// softplus ln(1 + e^x) a polynomial (`fastSoftplus`; fastExp takes any exponent ≤ 0: a
    /// near-silent channel's ILD of hundreds of dB gives 10⁻³⁸).
    @inline(__always)
    func outputMask(boundary: SIMD8<Float>, scale: SIMD8<Float>, softplusAtCentre: Float) -> SIMD8<Float> {
        let ratio = (leftPower + 1e-30) / (rightPower + 1e-30)
        let level = magnitude(10 * fastLog10(ratio))
        let x = (level - boundary) * scale
        return fastExp(-StereoSplitter.outputExponent * (fastSoftplus(x) - softplusAtCentre + phase))
    }
}

/// Real-time thread. e^x for x ≤ 0 (x below −87 gives about 10⁻³⁸), eight at a time, relative
/// error < 5·10⁻⁶ (the polynomial's own, in double: 4.2·10⁻⁷; the rest is the rounding of
/// x·log₂e in float, largest for the largest |x|). The integer part through the 1.5·2²³
/// rounding constant and wrapping integer arithmetic (a conversion that can trap keeps a loop from
/// being vectorised; `rounded(.down)` is not @_noLocks-clean).
@inline(__always)
func fastExp(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let t = SIMD8<Float>(repeating: -87).replacing(with: x, where: x .>= -87) * 1.442695  // NaN → −87
    let shifted = t + 12_582_912  // its mantissa holds round(t)
    var whole = shifted - 12_582_912
    var n = (unsafeBitCast(shifted, to: SIMD8<Int32>.self) & 0x007F_FFFF) &- 0x0040_0000
    let down = whole .> t  // rounded up: down by one, as floor
    whole = whole.replacing(with: whole - 1, where: down)
    n = n.replacing(with: n &- 1, where: down)
    let f = t - whole  // in [0, 1)
    // 2^f = 1 + f·q(f), q of degree 4 fitted by least squares on [0, 1) (Horner's rule, a step a
    // line for the type checker)
    var p: SIMD8<Float> = f * 0.00178896049 + 0.00919097781
    p = p * f + 0.0556685969
    p = p * f + 0.240202631
    p = p * f + 0.693147985
    p = p * f + 1
    return p * unsafeBitCast((n &+ 127) &<< 23, to: SIMD8<Float>.self)
}

/// Real-time thread. 1/√x for normal x > 0, eight at a time, relative error < 5·10⁻⁶: the
/// exponent halved through the bits (0x5F375A86 − bits/2), then two Newton steps. (libm's square
/// root was a call per lane, a fifth of the masks' time.)
@inline(__always)
func fastReciprocalSquareRoot(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    var y = unsafeBitCast(0x5F37_5A86 &- (bits &>> 1), to: SIMD8<Float>.self)
    let half = 0.5 * x
    y = y * (1.5 - half * y * y)
    y = y * (1.5 - half * y * y)
    return y
}

/// Real-time thread. ln(1 + e^x), eight at a time, absolute error < 6·10⁻⁴, never below 0:
/// max(x, 0) + ln(1 + e^−|x|), the second term a polynomial of degree 6 in |x| fitted (near
/// minimax) on [0, 7] and held there beyond (3.8·10⁻⁴). Through the output mask's exponent (0.24)
/// that is a gain within 0.015 % of the exact one, for an exponential and a logarithm less.
@inline(__always)
func fastSoftplus(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let a = lanesMin(magnitude(x), SIMD8(repeating: 7))
    var g: SIMD8<Float> = a * -1.56464684e-05 + 0.000271126666
    g = g * a - 0.000679930592
    g = g * a - 0.0153415567
    g = g * a + 0.143686427
    g = g * a - 0.507901127
    g = g * a + 0.69368217
    return lanesMax(x, SIMD8(repeating: 0)) + g
}

extension BinStatistics {
    /// Real-time thread. The weight of the past for a frame folded in at `rate`.
    @inline(__always)
    func smoothing(_ rate: StereoSplitter.Fold.Rate) -> Float { rate == .strided ? stridedSmoothing : smoothing }
}

/// Real-time thread. `fastLog10`, called: inlined into the side regions' fold, the compiler split
/// it into lanes (a scalar shift and polynomial each); called, it is eight lanes at once (the same
/// bits).
@inline(never)
private func fastLog10Called(_ x: SIMD8<Float>) -> SIMD8<Float> { fastLog10(x) }

/// Real-time thread. log10(x) for x > 0 (normal), eight at a time, absolute error < 10⁻⁵ (the
/// polynomial's own in double: 1.9·10⁻⁵ in log2).
@inline(__always)
func fastLog10(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    // The biased exponent e as a float without a conversion (the standard library's, lane by lane,
    // kept this function from being vectorised): the bits of 2²³ + e, less 2²³ + 127 (exact).
    let exponent = unsafeBitCast((bits &>> 23) | 0x4B00_0000, to: SIMD8<Float>.self) - 8_388_735
    let m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD8<Float>.self) - 1  // in [0, 1)
    // log2(1 + m) = m·r(m), r of degree 5 fitted by least squares on [0, 1)
    var r: SIMD8<Float> = m * -0.0341760066 + 0.144682866
    r = r * m - 0.301045696
    r = r * m + 0.468026869
    r = r * m - 0.720175755
    r = r * m + 1.44266888
    return (exponent + m * r) * 0.30103  // log10(2)
}

@inline(__always)
private func magnitude(_ x: SIMD8<Float>) -> SIMD8<Float> {
    unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: SIMD8<Float>.self)
}

// The standard library's `pointwiseMin`, `pointwiseMax` and `clamped` on SIMD8<Float> are generic
// calls, lane by lane (3 % of the hearing bench's samples); these are the same results (a NaN lane
// gives the other operand, as `Float.minimum` does) in two compares and a blend.

@inline(__always)
func lanesMin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: (b .< a) .| (a .!= a))
}

@inline(__always)
func lanesMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: (b .> a) .| (a .!= a))
}

@inline(__always)
func lanesClamp(_ x: SIMD8<Float>, _ low: Float, _ high: Float) -> SIMD8<Float> {
    lanesMin(lanesMax(x, SIMD8(repeating: low)), SIMD8(repeating: high))
}

/// x where `mask` is true, +0 elsewhere (as `SIMD8().replacing(with: x, where: mask)`), bitwise.
@inline(__always)
private func lanesKeep(_ x: SIMD8<Float>, where mask: SIMDMask<SIMD8<Int32>>) -> SIMD8<Float> {
    unsafeBitCast(unsafeBitCast(x, to: SIMD8<Int32>.self) & unsafeBitCast(mask, to: SIMD8<Int32>.self), to: SIMD8<Float>.self)
}

/// −x where `mask` is true, x elsewhere (as `x.replacing(with: -x, where: mask)`), bitwise.
@inline(__always)
private func lanesNegate(_ x: SIMD8<Float>, where mask: SIMDMask<SIMD8<Int32>>) -> SIMD8<Float> {
    let sign = unsafeBitCast(mask, to: SIMD8<Int32>.self) & Int32(bitPattern: 0x8000_0000)
    return unsafeBitCast(unsafeBitCast(x, to: SIMD8<Int32>.self) ^ sign, to: SIMD8<Float>.self)
}

/// A smoothed signed term, flushed to zero below 1e-30 (out of the subnormal range).
@inline(__always)
private func flushed(_ x: SIMD8<Float>) -> SIMD8<Float> {
    x.replacing(with: 0, where: magnitude(x) .< 1e-30)
}

/// Real-time thread. Eight bins from bin k of a per-bin array or an interleaved spectrum, `n` of
/// them real (the last group of a spectrum, 1025 bins at 48 kHz, has one: the other lanes load as
/// `pad` and are not stored).
enum BinLanes {
    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>, _ k: Int, _ n: Int, pad: Float = 0) -> SIMD8<Float> {
        if n == 8 { return UnsafeRawPointer(p + k).loadUnaligned(as: SIMD8<Float>.self) }
        var lanes = SIMD8<Float>(repeating: pad)
        for j in 0..<n { lanes[j] = p[k + j] }
        return lanes
    }

    /// (real, imaginary) of bins k … k + 7 of an interleaved spectrum.
    @inline(__always)
    static func complex(_ p: UnsafeMutablePointer<Float>, _ k: Int, _ n: Int) -> (SIMD8<Float>, SIMD8<Float>) {
        var pair = SIMD16<Float>()
        if n == 8 {
            pair = UnsafeRawPointer(p + 2 * k).loadUnaligned(as: SIMD16<Float>.self)
        } else {
            for j in 0..<(2 * n) { pair[j] = p[2 * k + j] }
        }
        return (pair.evenHalf, pair.oddHalf)
    }

    @inline(__always)
    static func store(_ lanes: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ k: Int, _ n: Int) {
        if n == 8 {
            UnsafeMutableRawPointer(p + k).storeBytes(of: lanes, as: SIMD8<Float>.self)
        } else {
            for j in 0..<n { p[k + j] = lanes[j] }
        }
    }

    @inline(__always)
    static func storeComplex(_ real: SIMD8<Float>, _ imaginary: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ k: Int, _ n: Int) {
        var pair = SIMD16<Float>()
        pair.evenHalf = real
        pair.oddHalf = imaginary
        if n == 8 {
            UnsafeMutableRawPointer(p + 2 * k).storeBytes(of: pair, as: SIMD16<Float>.self)
        } else {
            for j in 0..<(2 * n) { p[2 * k + j] = pair[j] }
        }
    }

    /// The bin numbers k … k + 7 (exact in float).
    @inline(__always)
    static func index(_ k: Int) -> SIMD8<Float> {
        SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(k)
    }
}
