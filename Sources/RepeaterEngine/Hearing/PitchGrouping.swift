/// Harmonic grouping below 500 Hz by the centre's pitch (issue 29): where the centre's lead has a
/// clear pitch, the low bins on its harmonics are its own and the bins between them are not.
///
/// Below 500 Hz the accompaniment's parts overlap in the same bins (a bass, a piano's left hand,
/// the drums' toms) and their level differences cancel: a voice's fundamental and first
/// harmonics, which share those bins, lose their level and phase cues, and the masks took them
/// down by 6 dB on the spread studio mix while the accompaniment between them passed. Above
/// 300 Hz the same voice's harmonics are found well by the masks. So per analysed frame this
/// takes:
/// - the evidence: the centre's estimate, √(mask · |(L + R)/2|²), bin by bin from 300 Hz to
///   2.5 kHz;
/// - the pitch: the f0 from 80 to 280 Hz (steps of 2 %, then of 0.5 % around the best) whose
///   harmonics in that band stand out most from the points halfway between them (the mean over
///   the harmonics of the evidence at h·f0 less that at (h + ½)·f0, each the larger of the two
///   bins around it; at least three harmonics), and its confidence, that contrast over the band's
///   mean evidence ramped from 0.6 to 1.6;
/// - the octave guard: where twice that f0 stands out nearly as well (85 %), the pitch is the
///   octave above, out of the range, and nothing is grouped. A lead pitched above 280 Hz (the
///   studio mixes' trumpet, a sung soprano line) sits among the accompaniment's chord tones,
///   where a harmonic of the lead is also a note of the chord: grouping it let the chord through
///   (the trumpets −0.6 … −0.7 dB with the range to 1 kHz). The speaking voice (85 … 255 Hz) and
///   low singing are in it.
/// Then below 500 Hz, bin by bin, with the membership m = max(0, 1 − δ/1.5) (δ the distance in
/// bins to the nearest harmonic) and the confidence c: both masks scaled by
/// 1 − 0.5 · c · (1 − m) · (1 − e), e the estimate's mask (the bins between the harmonics, taken
/// down as far as the masks doubt them, at most by half: a bin both channels carry alike, e = 1,
/// is the centre's whatever its pitch, and centred noise still passes whole), and raised to c · m
/// (the bins on the harmonics), never above 1.
///
/// Measured on the studio mixes (`StudioMixIsolationTests`, SI-SDR of the centred lead over the
/// plain mix): the voices +0.3 … +1.2 dB (the spread voice +7.60 → +8.27, ±0.7 +8.55 → +9.73), the
/// trumpets +0.02 … +0.09, the real-music mixes +0.13 … +0.29, the hard-panned song and speech
/// 0.00 / +0.42; the same voice resampled to 0.72 × its pitch (110 … 145 Hz) over the spread layout
/// +5.93 → +6.69. Without the (1 − e) weight the cut was 0.08 dB better on the spread voice and
/// moved centred noise by up to 0.5 % of its amplitude (`IsolatorTests` wants 10⁻⁵); with the
/// pitch range to 1 kHz the trumpets lost 0.6 … 0.7 dB. Steps of 0.5 % over the whole range cost
/// `centre` ×1.45 in the tight benchmark for the same figures within 0.04 dB.
///
/// Real-time thread only, after `init`; no allocation (the evidence is a buffer made in `init`).
struct PitchGrouping: ~Copyable, @unchecked Sendable {
    /// The evidence band, the pitch range, the range grouped (Hz).
    static let evidenceLowHertz = 300.0, evidenceHighHertz = 2_500.0
    static let pitchLowHertz = 80.0, pitchHighHertz = 280.0
    static let groupedHighHertz = 500.0
    /// The ratio of one pitch candidate to the next: over the range, and around the best of those.
    static let coarseStep: Float = 1.02, pitchStep: Float = 1.005
    /// The confidence's ramp in contrast over mean evidence, and the octave guard's share.
    static let contrastLow: Float = 0.6, contrastSpan: Float = 1
    static let octaveShare: Float = 0.85
    /// A harmonic's reach (bins), and how far the bins between harmonics are taken down.
    static let harmonicWidth: Float = 1.5
    static let depth: Float = 0.5

    /// The evidence's first and last bins, the last bin grouped, the pitch range (bins).
    let evidenceLow: Int, evidenceHigh: Int, groupedHigh: Int
    /// Whether the bands fit the transform (from a sample rate of about 1 kHz; below 5 kHz the
    /// evidence ends at the Nyquist frequency).
    let fits: Bool
    let pitchLow: Float, pitchHigh: Float
    /// The evidence, per bin (0 … `evidenceHigh`); once summed, the larger of each bin and the next.
    private let evidence: UnsafeMutablePointer<Float>
    /// The last analysed frame's pitch (bins; 0 where none was grouped) and confidence.
    private let last: UnsafeMutablePointer<Float>

    /// Control thread.
    init(frameFrames: Int, sampleRate: Int, binCount: Int) {
        let hertzPerBin = Double(sampleRate) / Double(frameFrames)
        evidenceLow = Int(PitchGrouping.evidenceLowHertz / hertzPerBin)
        evidenceHigh = min(binCount - 1, Int(PitchGrouping.evidenceHighHertz / hertzPerBin))
        groupedHigh = min(binCount - 1, Int(PitchGrouping.groupedHighHertz / hertzPerBin))
        fits = evidenceHigh >= evidenceLow + 8 && groupedHigh >= 1
        pitchLow = Float(PitchGrouping.pitchLowHertz / hertzPerBin)
        pitchHigh = Float(PitchGrouping.pitchHighHertz / hertzPerBin)
        evidence = .zeroed(evidenceHigh + 1)
        last = .zeroed(2)
    }

    deinit {
        evidence.deallocate()
        last.deallocate()
    }

    /// The last analysed frame's pitch in bins (0: none grouped) and its confidence (0 … 1).
    var lastPitch: (bins: Float, confidence: Float) { (last[0], last[1]) }

    /// Real-time thread. Groups the frame's bins below 500 Hz by the pitch of its centre estimate
    /// (`left`, `right`: the frame's spectra, interleaved; `estimate`: the estimate's mask), in
    /// both masks.
    func apply(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
               estimate: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>) {
        last[0] = 0
        last[1] = 0
        guard fits else { return }
        // Eight bins at a time: √x as x/√x (`fastReciprocalSquareRoot`; the standard library's
        // square root is a call the real-time check does not see into).
        var sum = SIMD8<Float>()
        var k = evidenceLow
        while k <= evidenceHigh {
            let n = min(8, evidenceHigh + 1 - k)
            let (lr, li) = BinLanes.complex(left, k, n), (rr, ri) = BinLanes.complex(right, k, n)
            let real = 0.5 * (lr + rr), imaginary = 0.5 * (li + ri)
            let power = BinLanes.load(estimate, k, n) * (real * real + imaginary * imaginary)
            let value = power * fastReciprocalSquareRoot(power + 1e-30)
            BinLanes.store(value, evidence, k, n)
            sum += value  // (the lanes past n: loaded as 0)
            k += 8
        }
        var total: Float = 0
        for lane in 0..<8 { total += sum[lane] }
        // Each bin now holds the larger of itself and the next (what `peak` reads).
        for k in evidenceLow..<evidenceHigh { evidence[k] = max(evidence[k], evidence[k + 1]) }
        evidence[evidenceHigh] = 0
        let mean = total / Float(evidenceHigh - evidenceLow + 1)
        guard mean > 1e-20 else { return }
        // Coarse steps over the range, then fine ones around the best.
        var best: Float = 0, pitch: Float = 0
        var candidate = pitchLow
        while candidate <= pitchHigh {
            let contrast = self.contrast(candidate)
            if contrast > best { best = contrast; pitch = candidate }
            candidate *= PitchGrouping.coarseStep
        }
        guard pitch > 0 else { return }
        let coarse = pitch
        candidate = coarse / PitchGrouping.coarseStep
        while candidate <= coarse * PitchGrouping.coarseStep {
            let contrast = self.contrast(candidate)
            if contrast > best { best = contrast; pitch = candidate }
            candidate *= PitchGrouping.pitchStep
        }
        let confidence = min(1, max(0, (best / mean - PitchGrouping.contrastLow) / PitchGrouping.contrastSpan))
        guard confidence > 0 else { return }
        var octave: Float = 0
        for step in 0..<5 { octave = max(octave, contrast(2 * pitch * (0.98 + 0.01 * Float(step)))) }
        guard octave <= PitchGrouping.octaveShare * best else { return }
        last[0] = pitch
        last[1] = confidence
        let reach = 1 / PitchGrouping.harmonicWidth, depth = PitchGrouping.depth * confidence
        for k in 1...groupedHigh {
            let bin = Float(k)
            let harmonic = max(1, Float(Int(bin / pitch + 0.5)))
            let membership = max(0, 1 - abs(bin - harmonic * pitch) * reach)
            // (A bin both channels carry alike, estimate 1, is the centre's whatever its pitch: only
            // the doubt the masks leave is taken down.)
            let scale = 1 - depth * (1 - membership) * (1 - estimate[k]), raised = confidence * membership
            estimate[k] = max(estimate[k] * scale, raised)
            output[k] = max(output[k] * scale, raised)
        }
    }

    /// How the evidence at the harmonics of `pitch` (bins) within the band stands out from that
    /// halfway between them: the mean difference, over at least three harmonics (else 0).
    @inline(__always)
    private func contrast(_ pitch: Float) -> Float {
        var on: Float = 0, off: Float = 0, count: Float = 0
        let first = Float(evidenceLow) / pitch
        var harmonic = Float(Int(first))
        if harmonic < first { harmonic += 1 }
        var position = harmonic * pitch
        let top = Float(evidenceHigh - 1)
        while position <= top {
            on += peak(position)
            off += peak(position + 0.5 * pitch)
            count += 1
            harmonic += 1
            position = harmonic * pitch
        }
        return count >= 3 ? (on - off) / count : 0
    }

    /// The larger evidence of the two bins around `position` (0 outside the band).
    @inline(__always)
    private func peak(_ position: Float) -> Float {
        let k = Int(position)
        return k < evidenceLow || k >= evidenceHigh ? 0 : evidence[k]
    }
}
