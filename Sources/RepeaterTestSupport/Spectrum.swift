import CFFTWDouble
import Foundation

/// Whole-signal spectra for offline measures and fixtures: double-precision FFTW (the `fftw_*`
/// library, whose planner state is separate from the single-precision one the engine uses), one
/// transform of the whole signal, zero-padded to a power of two.
public enum Spectrum {
    /// FFTW's planner is not thread-safe; the tests run in parallel.
    private static let planner = NSLock()

    /// The spectrum of `signal` zero-padded to `size` (a power of two ≥ its length): `size`/2 + 1
    /// bins as (re, im) pairs.
    public static func forward(_ signal: [Float], size: Int) -> [Double] {
        let input = fftw_alloc_real(size)!, output = fftw_alloc_complex(size / 2 + 1)!
        defer { fftw_free(input); fftw_free(output) }
        planner.lock()
        let plan = fftw_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))
        planner.unlock()
        for i in 0..<size { input[i] = i < signal.count ? Double(signal[i]) : 0 }
        fftw_execute(plan)
        planner.lock()
        fftw_destroy_plan(plan)
        planner.unlock()
        let raw = UnsafeMutableRawPointer(output).assumingMemoryBound(to: Double.self)
        return Array(UnsafeBufferPointer(start: raw, count: size + 2))
    }

    /// The signal of `length` samples whose zero-padded spectrum (`size` points) is `spectrum`.
    public static func inverse(_ spectrum: [Double], size: Int, length: Int) -> [Float] {
        let input = fftw_alloc_complex(size / 2 + 1)!, output = fftw_alloc_real(size)!
        defer { fftw_free(input); fftw_free(output) }
        planner.lock()
        let plan = fftw_plan_dft_c2r_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))
        planner.unlock()
        let raw = UnsafeMutableRawPointer(input).assumingMemoryBound(to: Double.self)
        for i in 0..<(size + 2) { raw[i] = spectrum[i] }
        fftw_execute(plan)
        planner.lock()
        fftw_destroy_plan(plan)
        planner.unlock()
        return (0..<length).map { Float(output[$0] / Double(size)) }
    }

    public static func size(for length: Int) -> Int {
        var size = 1
        while size < length { size <<= 1 }
        return size
    }

    /// `signal` without what lies below `cornerHz`: a zero-phase raised-cosine edge from half the
    /// corner to the corner (the SoundFont's saxophone carries a large DC offset, which is not music
    /// and would swamp the lowest octave band of every measure).
    public static func highPassed(_ signal: [Float], cornerHz: Double, sampleRate: Int) -> [Float] {
        let size = Spectrum.size(for: signal.count)
        var spectrum = forward(signal, size: size)
        for k in 0...(size / 2) {
            let frequency = Double(k) * Double(sampleRate) / Double(size)
            let t = min(1, max(0, (frequency - cornerHz / 2) / (cornerHz / 2)))
            let gain = 0.5 - 0.5 * cos(Double.pi * t)
            spectrum[2 * k] *= gain
            spectrum[2 * k + 1] *= gain
        }
        return inverse(spectrum, size: size, length: signal.count)
    }
}
