#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sinusoidal peak of a spectrum: its interpolated frequency and its amplitude (a full-scale
/// sine has amplitude 1).
struct SpectralPeak: Equatable {
    var frequencyHz: Float
    var amplitude: Float
}

/// Finds the peaks of a power spectrum normalised so that a sine of amplitude A peaks at A², and
/// interpolates each one's frequency and level with a parabola through the log power of the bin
/// and its two neighbours (with a Hann window zero-padded 2×, the frequency error is below 1 % of
/// a bin: about 0.03 Hz for the 170 ms playhead window).
struct SpectralPeaks {
    /// Width of one bin in Hz (sample rate / FFT length).
    let binHz: Float
    /// Bins each side that a peak must exceed: 1.5 bins of the unpadded window, which puts the Hann
    /// window's side lobes (−31 dB, 2.5 bins out) inside the main lobe's domain.
    let neighbourhoodBins: Int
    /// Peaks from this frequency up…
    let lowestHz: Float
    /// …to this one (partials above carry little for naming notes up to C8).
    let highestHz: Float
    /// Peaks more than this far below the strongest one are ignored.
    let dynamicRangeDB: Float = 72
    /// Peaks below this absolute level (dB re a full-scale sine) are ignored: silence has no notes.
    let floorDB: Float = -96

    init(sampleRate: Double, fftLength: Int, zeroPadding: Int) {
        binHz = Float(sampleRate / Double(fftLength))
        neighbourhoodBins = max(2, 3 * zeroPadding / 2)
        lowestHz = 20
        highestHz = Float(min(10_000, sampleRate * 0.45))
    }

    /// Appends to `peaks` (emptied first) the peaks of `power` (bins 0 … fftLength/2), in
    /// ascending frequency; returns the power below which peaks were ignored.
    @discardableResult
    func find(in power: UnsafeBufferPointer<Float>, into peaks: inout [SpectralPeak]) -> Float {
        peaks.removeAll(keepingCapacity: true)
        let first = max(neighbourhoodBins, Int(lowestHz / binHz))
        let last = min(power.count - 1 - neighbourhoodBins, Int(highestHz / binHz))
        let absoluteFloor = pow10(floorDB / 10)
        guard first < last else { return absoluteFloor }
        var strongest: Float = 0
        for k in first...last { strongest = max(strongest, power[k]) }
        let threshold = max(strongest * pow10(-dynamicRangeDB / 10), absoluteFloor)
        guard strongest > threshold else { return threshold }
        var k = first
        while k <= last {
            let p = power[k]
            if p > threshold && p > power[k - 1] && p >= power[k + 1] && isLocalMaximum(power, at: k) {
                peaks.append(interpolated(power, at: k))
                k += neighbourhoodBins
            } else {
                k += 1
            }
        }
        return threshold
    }

    private func isLocalMaximum(_ power: UnsafeBufferPointer<Float>, at k: Int) -> Bool {
        let p = power[k]
        for d in 2...neighbourhoodBins where power[k - d] > p || power[k + d] > p { return false }
        return true
    }

    private func interpolated(_ power: UnsafeBufferPointer<Float>, at k: Int) -> SpectralPeak {
        let tiny: Float = 1e-30
        let a = logf(power[k - 1] + tiny), b = logf(power[k] + tiny), c = logf(power[k + 1] + tiny)
        let curvature = a - 2 * b + c
        let offset = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / curvature)) : 0
        let logPower = b - 0.25 * (a - c) * offset
        return SpectralPeak(frequencyHz: (Float(k) + offset) * binHz, amplitude: expf(0.5 * logPower))
    }
}

@inline(__always) func pow10(_ x: Float) -> Float { powf(10, x) }

/// dB of a power (amplitude squared), with `NoteReport.floorDB` for zero.
@inline(__always) func decibels(power: Float) -> Float {
    power > 0 ? max(NoteReport.floorDB, 10 * log10f(power)) : NoteReport.floorDB
}
