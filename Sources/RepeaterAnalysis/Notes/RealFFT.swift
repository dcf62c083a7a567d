import CFFTW
import CRepeaterSupport

/// FFTW's planner keeps global state: creating or destroying a plan is not thread-safe, executing
/// one is. Every plan this module makes or destroys goes through the process-wide planner lock
/// (`repeater_fftw_planner_lock`, shared with the engine's isolator and the tests' aubio).
private func withPlannerLock(_ body: () -> Void) {
    repeater_fftw_planner_lock()
    defer { repeater_fftw_planner_unlock() }
    body()
}

/// A forward real FFT of a fixed length through one FFTW single-precision plan, with its own
/// aligned buffers. Not for concurrent use: one caller at a time (one analysis thread).
final class RealFFT {
    /// Transform length in frames (a power of two here; a windowed frame shorter than this is zero-padded).
    let length: Int
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    /// Plans a transform of `length` frames with FFTW_ESTIMATE (no measuring at start-up: the
    /// analyser is made when a file opens, and at these sizes the estimate plan is within ~20 %).
    init(length: Int) {
        precondition(length >= 16 && length & (length - 1) == 0, "RealFFT length must be a power of two")
        self.length = length
        input = fftwf_alloc_real(length)
        output = fftwf_alloc_complex(length / 2 + 1)
        input.initialize(repeating: 0, count: length)
        // The buffers are this object's alone; the lock only serialises FFTW's planner.
        nonisolated(unsafe) let (input, output) = (input, output)
        nonisolated(unsafe) var plan: fftwf_plan?
        withPlannerLock { plan = fftwf_plan_dft_r2c_1d(Int32(length), input, output, UInt32(FFTW_ESTIMATE)) }
        guard let plan else { fatalError("FFTW could not plan a real transform of \(length) frames") }
        self.plan = plan
    }

    deinit {
        nonisolated(unsafe) let plan = plan
        withPlannerLock { fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// The power spectrum |X(k)|² · `scale`, k = 0 … length/2, of `frames` multiplied sample by
    /// sample with `window` (same count, at most `length`) and zero-padded to `length`.
    func powerSpectrum(of frames: UnsafeBufferPointer<Float>, window: UnsafeBufferPointer<Float>, scale: Float,
                       into power: UnsafeMutableBufferPointer<Float>) {
        let count = frames.count
        precondition(count <= length && window.count == count && power.count == length / 2 + 1)
        for n in 0..<count { input[n] = frames[n] * window[n] }
        for n in count..<length { input[n] = 0 }
        fftwf_execute(plan)
        for k in 0...(length / 2) {
            let re = output[k].0, im = output[k].1
            power[k] = (re * re + im * im) * scale
        }
    }
}
