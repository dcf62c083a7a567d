import CRubberBand

/// What the engine's rate stage runs, set up for use on the audio thread: Rubber Band's real-time
/// stretcher (one owner of one `RubberBandState`), or, where only the file's rate differs from the
/// output's (speed 1, pitch 0), a `Resampler` (libsoxr): the `resampler` flavour, which the engine
/// runs and hands over exactly like a stretcher. Construction (which allocates heavily) happens on the control thread; after
/// it, `setRatios`, `samplesRequired`, `process`, `available` and `retrieve` are the audio thread's.
///
/// Set-up follows the library's real-time contract (`rubberband-c.h`, 3.1.2): real-time mode,
/// pitch high-consistency (pitch may change while playing), threading never; debug output off
/// (level -1; otherwise it prints from the audio thread); a maximum process size; the extreme ratios
/// visited once so that R2 builds its buffers for them now (as Mixxx does); the preferred start pad
/// of silence fed, and the first `start delay` output frames dropped, so output frame 0 is input
/// frame 0.
///
/// The library's calls are wrapped in `_unsafePerformance`: the compiler cannot see into C, and
/// Rubber Band documents them as real-time safe in real-time mode (allocation-free in steady state,
/// measured by the tests; 3.1.2's resampler allocates on a new pitch ratio, see docs/manual.md, *Speed and pitch*).
public struct Stretcher: ~Copyable, @unchecked Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// R3: higher quality, 2.5–3x the CPU.
        case finer
        /// R2.
        case faster
    }

    /// What a stretcher can do: speed only (`plain`), speed and pitch (`consistent`: Rubber Band's
    /// PitchHighConsistency), or only the file's rate (`resampler`, libsoxr).
    public enum Flavour: Sendable, Equatable, BitwiseCopyable {
        case plain, consistent, resampler

        /// The flavour the targets ask for (`baseRate`: the file's rate / the output's): the
        /// resampler where only the rates differ, a pitch-consistent stretcher where the pitch
        /// moves or the rates differ, else a plain (speed-only) one. (Speed 1, pitch 0 and the
        /// same rates need none: bypass.)
        @inline(__always)
        public init(speed: Double, pitch: Double, baseRate: Double) {
            if baseRate != 1, speed == 1, pitch == 0 {
                self = .resampler
            } else {
                self = pitch != 0 || baseRate != 1 ? .consistent : .plain
            }
        }
    }

    public let kind: Kind
    public let channelCount: Int
    /// Built for pitch changes while playing (Rubber Band's PitchHighConsistency): needed whenever
    /// the pitch moves or the file's rate differs from the output's; without it a speed-only
    /// stretcher costs 20 % (R3) to 40 % (R2) less, measured.
    public let pitchConsistent: Bool
    /// The most frames one `process` call takes.
    public let maxProcessFrames = 8192
    /// Rubber Band's preferred start pad: the history its analysis wants before a frame (it scales
    /// with the pitch).
    public private(set) var startPad: Int
    /// The pitches the resampler's tables are prepared for.
    private let pitchRange: ClosedRange<Double>
    /// Rubber Band (nil for the resampler flavour).
    private let state: OpaquePointer?
    /// libsoxr (the resampler flavour only).
    private let resampler: UnsafeMutablePointer<Resampler>?
    private let inputs: UnsafeMutablePointer<UnsafePointer<Float>?>
    private let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// Output frames still to drop (the start delay).
    private var dropRemaining: Int
    private let dropScratch: UnsafeMutablePointer<Float>
    private var timeRatio = 1.0
    private var pitchScale = 1.0
    /// Where its output is in its input (measured by the control thread; unknown: not measured).
    public var timing = StretchTiming.unknown

    /// Control thread. `timeRatio`/`pitchScale` are where it starts.
    public init(kind: Kind, sampleRate: Int, channelCount: Int, timeRatio: Double = 1, pitchScale: Double = 1,
                pitchConsistent: Bool = true, pitchRange: ClosedRange<Double> = 0.25...4, timing: StretchTiming = .unknown) {
        self.kind = kind
        self.channelCount = channelCount
        self.pitchConsistent = pitchConsistent
        var options = RubberBandOptionProcessRealTime.rawValue | RubberBandOptionThreadingNever.rawValue
        if pitchConsistent { options |= RubberBandOptionPitchHighConsistency.rawValue }
        if kind == .finer { options |= RubberBandOptionEngineFiner.rawValue }
        state = rubberband_new(UInt32(sampleRate), UInt32(channelCount), RubberBandOptions(Int32(bitPattern: options)),
                               timeRatio, pitchScale)
        rubberband_set_debug_level(state, -1)
        rubberband_set_max_process_size(state, UInt32(maxProcessFrames))
        inputs = .allocate(capacity: channelCount)
        outputs = .allocate(capacity: channelCount)
        dropScratch = .allocate(capacity: maxProcessFrames * channelCount)
        dropScratch.initialize(repeating: 0, count: maxProcessFrames * channelCount)
        startPad = 0
        dropRemaining = 0
        self.pitchRange = pitchRange
        self.timing = timing
        resampler = nil
        rearm(timeRatio: timeRatio, pitchScale: pitchScale)
    }

    /// Control thread: the resampler flavour, from the file's rate to the output's (nil when libsoxr
    /// refuses the rates). Its timing is exact (output frame k carries input frame k × step), so it
    /// has no measured `timing`.
    public init?(resamplingFrom sourceRate: Int, to outputRate: Int, channelCount: Int, kind: Kind = .finer) {
        guard let made = Resampler(sourceRate: sourceRate, outputRate: outputRate, channelCount: channelCount) else { return nil }
        let pointer = UnsafeMutablePointer<Resampler>.allocate(capacity: 1)
        pointer.initialize(to: made)
        resampler = pointer
        state = nil
        self.kind = kind
        self.channelCount = channelCount
        pitchConsistent = false
        pitchRange = 1...1
        inputs = .allocate(capacity: 1)
        outputs = .allocate(capacity: 1)
        dropScratch = .allocate(capacity: 1)
        dropScratch.initialize(to: 0)
        dropRemaining = 0
        startPad = pointer.pointee.historyFrames
    }

    public var flavour: Flavour { resampler != nil ? .resampler : (pitchConsistent ? .consistent : .plain) }

    /// Control thread: the warm-up and start, run by `init` on a new stretcher and again on a used
    /// one, which then renders exactly what a new one renders (tested) without allocating anew.
    public mutating func rearm(timeRatio: Double, pitchScale: Double) {
        if let resampler {
            resampler.pointee.rearm()
            startPad = resampler.pointee.historyFrames
            return
        }
        let state = self.state!
        // Visit the extremes once so that no later ratio change has to grow a buffer.
        for ratio in [4.0, 0.25, timeRatio] { rubberband_set_time_ratio(state, ratio) }
        for scale in [4.0, 0.25, Stretcher.pitchScale(pitchScale)] { rubberband_set_pitch_scale(state, scale) }
        dropScratch.update(repeating: 0, count: maxProcessFrames * channelCount)  // (silence: the drops write audio into it)
        // Run Rubber Band over silence here, then reset it: 3.1.2 allocates on its first chunks
        // (analysis and resampler state) and keeps that memory through a reset, so the audio thread's
        // chunks find it ready.
        Stretcher.churn(state, chunks: 4, channelCount: channelCount, inputs: inputs, outputs: outputs, scratch: dropScratch)
        if pitchConsistent {
            // Rubber Band 3.1.2's resampler (BQResampler::state_for_ratio) writes its ratio, 1/pitch, as
            // a fraction n/d and keeps one table entry per n; a vector that must grow allocates. Every
            // pitch given to Rubber Band is made exactly d/n with d ≤ 9600 (`Stretcher.pitchScale`),
            // so n ≤ 38400; two ratios with n = 38399 and the highest pitch `pitchRange` allows (the
            // resampler's longest buffer), each on both of its ping-ponging states, leave nothing to
            // grow later.
            let top = pitchRange.upperBound
            for scale in [9600.0 / 38_399, 9599.0 / 38_395, Stretcher.pitchScale(top), Stretcher.pitchScale(top * 0.9999)] {
                rubberband_set_pitch_scale(state, scale)
                Stretcher.churn(state, chunks: 4, channelCount: channelCount, inputs: inputs, outputs: outputs, scratch: dropScratch)
            }
        }
        rubberband_reset(state)
        rubberband_set_time_ratio(state, timeRatio)
        rubberband_set_pitch_scale(state, Stretcher.pitchScale(pitchScale))
        self.timeRatio = timeRatio
        self.pitchScale = pitchScale
        // The start pad: silence, so that the first real input frame is not faded in.
        dropScratch.update(repeating: 0, count: maxProcessFrames * channelCount)
        let pad = Int(rubberband_get_preferred_start_pad(state))
        startPad = pad
        var padded = 0
        while padded < pad {
            let n = min(maxProcessFrames, pad - padded)
            for channel in 0..<channelCount { inputs[channel] = UnsafePointer(dropScratch + channel * maxProcessFrames) }
            rubberband_process(state, inputs, UInt32(n), 0)
            padded += n
        }
        // As Rubber Band's real-time contract has it: after the pad, the first `start delay` output
        // frames are dropped, and output frame 0 is input frame 0.
        dropRemaining = Int(rubberband_get_start_delay(state))
        dropStartDelay()
    }

    /// Construction only: runs `chunks` chunks of silence through Rubber Band and throws the output away.
    private static func churn(_ state: OpaquePointer, chunks: Int, channelCount: Int, inputs: UnsafeMutablePointer<UnsafePointer<Float>?>,
                              outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, scratch: UnsafeMutablePointer<Float>) {
        let frames = 8192
        for _ in 0..<chunks {
            for channel in 0..<channelCount { inputs[channel] = UnsafePointer(scratch + channel * frames) }
            rubberband_process(state, inputs, 2048, 0)
            while rubberband_available(state) > 0 {
                for channel in 0..<channelCount { outputs[channel] = scratch + channel * frames }
                _ = rubberband_retrieve(state, outputs, UInt32(min(Int(rubberband_available(state)), frames)))
            }
        }
    }

    deinit {
        if let state { rubberband_delete(state) }
        if let resampler {
            resampler.deinitialize(count: 1)
            resampler.deallocate()
        }
        inputs.deallocate()
        outputs.deallocate()
        dropScratch.deallocate()
    }

    // The audio thread's calls copy the C handles into locals first: a closure that captured
    // `self` would retain it.

    /// Audio thread. Changes the ratios (only when they differ: each change costs a reconfiguration).
    public mutating func setRatios(time: Double, pitch: Double) {
        guard let state = self.state else { return }  // (the resampler: only the file's rate)
        if time != timeRatio {
            _unsafePerformance { rubberband_set_time_ratio(state, time) }
            timeRatio = time
        }
        if pitch != pitchScale {
            let scale = Stretcher.pitchScale(pitch)
            _unsafePerformance { rubberband_set_pitch_scale(state, scale) }
            pitchScale = pitch
        }
    }

    /// The pitch scale handed to Rubber Band for `pitch`: exactly d/n, the best fraction for 1/pitch
    /// with n ≤ 38400 (within 0.05 cent, measured over ±24 semitones at five base rates), so that its resampler's
    /// phase table never needs more than the entries `init` prepared.
    @inline(__always)
    public static func pitchScale(_ pitch: Double) -> Double {
        let fraction = resamplerFraction(pitch)
        return Double(fraction.denominator) / Double(fraction.numerator)
    }

    /// 1/`pitch` as n/d, the best fraction with d ≤ min(9600, 38000 / ratio), so that n ≤ 38400
    /// (continued fractions, and the last semiconvergent when it is closer).
    public static func resamplerFraction(_ pitch: Double) -> (numerator: Int, denominator: Int) {
        let ratio = 1 / pitch
        let limit = Double(max(1, min(9600, Int(38_000 / ratio))))  // (positive: truncation is the floor)
        var (h0, h1, k0, k1) = (0.0, 1.0, 1.0, 0.0)
        var x = ratio
        for _ in 0..<32 {
            let a = Double(Int(x))
            let h2 = a * h1 + h0, k2 = a * k1 + k0
            if k2 > limit {
                let t = Double(Int((limit - k0) / k1))
                let hs = t * h1 + h0, ks = t * k1 + k0
                if t >= 1, abs(hs / ks - ratio) < abs(h1 / k1 - ratio) { (h1, k1) = (hs, ks) }
                break
            }
            (h0, h1, k0, k1) = (h1, h2, k1, k2)
            let fraction = x - a
            if fraction < 1e-12 { break }
            x = 1 / fraction
        }
        return (Int(h1), Int(k1))
    }

    /// Input frames the resampler flavour takes at a time (its output comes in libsoxr's own blocks).
    static let resamplerBite = 512

    /// Audio thread. How many input frames the next `process` wants (at least 1, at most the maximum).
    public func samplesRequired() -> Int {
        guard let state = self.state else { return Stretcher.resamplerBite }
        let required = Int(_unsafePerformance { rubberband_get_samples_required(state) })
        return max(1, min(maxProcessFrames, required))
    }

    /// Audio thread. Feeds `frameCount` planar frames.
    public func process(_ planar: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frameCount: Int) {
        if let resampler {
            resampler.pointee.process(planar, offset: offset, frameCount: frameCount)
            return
        }
        let state = self.state!, inputs = self.inputs
        for channel in 0..<channelCount { inputs[channel] = UnsafePointer(planar[channel] + offset) }
        _unsafePerformance { rubberband_process(state, inputs, UInt32(frameCount), 0) }
    }

    /// Audio thread. Output frames ready (after the start delay has been dropped).
    public mutating func available() -> Int {
        if let resampler { return resampler.pointee.available() }
        dropStartDelay()
        let state = self.state!
        return max(0, Int(_unsafePerformance { rubberband_available(state) }))
    }

    /// Audio thread. Retrieves up to `frameCount` frames into the outputs at `offset`; returns how many.
    public mutating func retrieve(into planar: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frameCount: Int) -> Int {
        if let resampler { return resampler.pointee.retrieve(into: planar, offset: offset, frameCount: frameCount) }
        dropStartDelay()
        let state = self.state!, outputs = self.outputs
        for channel in 0..<channelCount { outputs[channel] = planar[channel] + offset }
        return Int(_unsafePerformance { rubberband_retrieve(state, outputs, UInt32(frameCount)) })
    }

    /// Output frames between input and output (the start delay; it scales with 1/pitch).
    public func latencyFrames() -> Int {
        if let resampler { return resampler.pointee.delayFrames }
        let state = self.state!
        return Int(_unsafePerformance { rubberband_get_start_delay(state) })
    }

    private mutating func dropStartDelay() {
        guard let state = self.state else { return }
        let outputs = self.outputs, scratch = dropScratch, frames = maxProcessFrames
        while dropRemaining > 0 {
            let ready = Int(_unsafePerformance { rubberband_available(state) })
            if ready <= 0 { return }
            let n = min(dropRemaining, min(ready, frames))
            for channel in 0..<channelCount { outputs[channel] = scratch + channel * frames }
            dropRemaining -= Int(_unsafePerformance { rubberband_retrieve(state, outputs, UInt32(n)) })
        }
    }
}
