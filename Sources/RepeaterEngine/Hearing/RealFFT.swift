import CFFTW
import CRepeaterSupport

/// FFTW's planner (`fftwf_plan_*`, `fftwf_destroy_plan`) is not thread-safe and not real-time safe:
/// it allocates (and with FFTW_MEASURE would time trial transforms). Every planner call in this module
/// goes through this lock, on the control thread only (an `init` or a `deinit`); the audio thread
/// only executes plans (`fftwf_execute_dft_r2c`/`_c2r`, the new-array executes, which FFTW documents
/// as thread-safe and which neither allocate nor lock).

/// Control thread. Runs `body` holding the lock this module's FFTW planning takes. FFTW's
/// single-precision planner is one per process: any other code that plans or destroys `fftwf_`
/// plans while an isolator may be made on another thread must do it in here. (aubio, which the
/// analysis tests link, plans with fftw3f under a mutex of its own: wrap its `new_aubio_fft` and
/// `del_aubio_fft`, or the objects that make them, in this.)
public func withFFTWPlanner<T>(_ body: () -> T) -> T {
    repeater_fftw_planner_lock()
    defer { repeater_fftw_planner_unlock() }
    return body()
}

/// One real transform size with its two single-precision FFTW plans: forward (real → N/2+1 complex
/// bins) and inverse (bins → real, unnormalised: a forward then inverse transform scales by N).
///
/// The plans are made for buffers from `RealFFT.allocateReal`/`allocateComplex` (fftwf_malloc,
/// which aligns for SIMD), and the executes require buffers aligned the same way: allocate every
/// buffer handed to `forward`/`inverse` with those two functions, never an offset into one.
struct RealFFT: ~Copyable, @unchecked Sendable {
    let size: Int
    let binCount: Int
    private let forwardPlan: OpaquePointer
    private let inversePlan: OpaquePointer

    /// Control thread. Plans with FFTW_ESTIMATE: 2 ms for the isolator's transforms, and the same
    /// plan, so the same output bits, on every run. FFTW_MEASURE took 300 ms at the first isolator
    /// and ran no faster here (measured with `hearing-bench`: 0.12 % of a core for `centre` both ways).
    init(size: Int) {
        precondition(size >= 16 && size & (size - 1) == 0, "the transform size must be a power of two")
        self.size = size
        binCount = size / 2 + 1
        let time = RealFFT.allocateReal(size)
        let spectrum = RealFFT.allocateComplex(size / 2 + 1)
        defer {
            RealFFT.free(time)
            RealFFT.free(spectrum)
        }
        // (The plans leave the lock as addresses: an OpaquePointer is not Sendable.)
        let plans = withFFTWPlanner { () -> (UInt, UInt) in
            let forward = fftwf_plan_dft_r2c_1d(Int32(size), time, RealFFT.complex(spectrum), UInt32(FFTW_ESTIMATE))
            let inverse = fftwf_plan_dft_c2r_1d(Int32(size), RealFFT.complex(spectrum), time, UInt32(FFTW_ESTIMATE))
            guard let forward, let inverse else { fatalError("FFTW could not plan a transform of \(size) points") }
            return (UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(forward))), UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(inverse))))
        }
        forwardPlan = OpaquePointer(bitPattern: plans.0)!
        inversePlan = OpaquePointer(bitPattern: plans.1)!
    }

    deinit {
        let forward = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(forwardPlan)))
        let inverse = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(inversePlan)))
        withFFTWPlanner {
            fftwf_destroy_plan(OpaquePointer(bitPattern: forward))
            fftwf_destroy_plan(OpaquePointer(bitPattern: inverse))
        }
    }

    /// Real-time thread. `time` (`size` samples) → `spectrum` (`binCount` interleaved re, im pairs).
    /// `time` is left as it was.
    @inline(__always)
    func forward(_ time: UnsafeMutablePointer<Float>, _ spectrum: UnsafeMutablePointer<Float>) {
        let plan = forwardPlan, output = RealFFT.complex(spectrum)
        _unsafePerformance { fftwf_execute_dft_r2c(plan, time, output) }
    }

    /// Real-time thread. `spectrum` → `time`, scaled by `size`. Destroys `spectrum` (FFTW's c2r
    /// overwrites its input).
    @inline(__always)
    func inverse(_ spectrum: UnsafeMutablePointer<Float>, _ time: UnsafeMutablePointer<Float>) {
        let plan = inversePlan, input = RealFFT.complex(spectrum)
        _unsafePerformance { fftwf_execute_dft_c2r(plan, input, time) }
    }

    /// Control thread. `count` zeroed floats, aligned as FFTW's plans expect.
    static func allocateReal(_ count: Int) -> UnsafeMutablePointer<Float> {
        guard let raw = fftwf_malloc(count * MemoryLayout<Float>.stride) else { fatalError("out of memory") }
        let pointer = raw.bindMemory(to: Float.self, capacity: count)
        pointer.initialize(repeating: 0, count: count)
        return pointer
    }

    /// Control thread. `count` zeroed complex values (2 × `count` floats: re, im), aligned as above.
    static func allocateComplex(_ count: Int) -> UnsafeMutablePointer<Float> { allocateReal(2 * count) }

    static func free(_ pointer: UnsafeMutablePointer<Float>) { fftwf_free(pointer) }

    /// Interleaved re, im floats as FFTW's `fftwf_complex` (float[2]).
    @inline(__always)
    private static func complex(_ pointer: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<fftwf_complex> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: fftwf_complex.self)
    }
}
