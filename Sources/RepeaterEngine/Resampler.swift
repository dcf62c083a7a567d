import CSoxr

/// libsoxr's constant-rate resampler, set up for the audio thread: the rate conversion of a file
/// whose rate differs from the output's, wherever no stretching is asked for (speed 1, pitch 0).
/// A `Stretcher` of the `resampler` flavour wraps one, so the engine runs and hands it over like
/// Rubber Band.
///
/// Why libsoxr (Debian's libsoxr0, 0.1.3): its "high quality" recipe (20-bit precision, linear
/// phase, passband to 91 % of the lower Nyquist) measures a THD+N of −134 dB for a 1 kHz sine
/// 44.1 → 48 kHz and costs about 0.1 % of a core for stereo on this machine; libsamplerate's best
/// sinc converter measures −149 dB but costs 7.8 % of a core, its medium one 2.4 % (measured here,
/// docs/performance.md). Its output is time-aligned with its input (it pre-fills and drops its
/// filter's delay itself), which keeps positions exact.
///
/// Construction allocates (the filter, the FIFOs): on the control thread. On the audio thread,
/// `process` only copies and filters: libsoxr's FIFOs grow by `realloc` when a block does not fit,
/// so `init` runs the largest blocks through it first, and `rearm` keeps those FIFOs (it never
/// calls `soxr_clear`, which frees them): it feeds silence until the filter holds nothing of the
/// past and drops the output up to the point where the next input frame lands on a whole output
/// frame. After that, output frame k carries input frame k × `step` of what is fed from then on.
/// One thread for all channels (`soxr_runtime_spec(1)`: no OpenMP on the audio thread).
public struct Resampler: ~Copyable, @unchecked Sendable {
    public let channelCount: Int
    /// Input frames per output frame (source rate / output rate).
    public let step: Double
    /// The ratio in lowest terms: `inputPeriod` input frames make exactly `outputPeriod` output frames.
    private let inputPeriod: Int, outputPeriod: Int
    /// The most input frames given to libsoxr at once (larger blocks are split).
    private let blockFrames = 2048
    private let state: OpaquePointer
    private let inputs: UnsafeMutablePointer<UnsafeRawPointer?>
    private let outputs: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Output frames ready, planar: [start, end) of each channel's `fifoCapacity` frames.
    private let fifo: UnsafeMutablePointer<Float>
    private let fifoCapacity = 1 << 16
    private var fifoStart = 0, fifoEnd = 0
    /// Silence for `rearm`.
    private let silence: UnsafeMutablePointer<Float>
    /// Input frames given to libsoxr since it was made, and output frames it returned.
    private var fedFrames = 0, producedFrames = 0
    /// Output frames before this index are the past's, or the silence before the start: dropped.
    private var dropUntil = 0
    /// Output frames between input and output (the filter's delay), once started.
    public private(set) var delayFrames = 0
    /// Input frames of history the filter reaches back over: a frame's output is the file's own
    /// once this many real frames precede it.
    public private(set) var historyFrames = 0

    /// Control thread. nil when libsoxr refuses the rates.
    public init?(sourceRate: Int, outputRate: Int, channelCount: Int) {
        guard sourceRate > 0, outputRate > 0, channelCount > 0 else { return nil }
        var io = soxr_io_spec(SOXR_FLOAT32_S, SOXR_FLOAT32_S)
        var quality = soxr_quality_spec(UInt(SOXR_20_BITQ), 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        guard let made = soxr_create(Double(sourceRate), Double(outputRate), UInt32(channelCount), &error, &io, &quality, &runtime),
              error == nil else { return nil }
        state = made
        self.channelCount = channelCount
        step = Double(sourceRate) / Double(outputRate)
        var a = sourceRate, b = outputRate
        while b != 0 { (a, b) = (b, a % b) }
        inputPeriod = sourceRate / a
        outputPeriod = outputRate / a
        inputs = .allocate(capacity: channelCount)
        inputs.initialize(repeating: nil, count: channelCount)
        outputs = .allocate(capacity: channelCount)
        outputs.initialize(repeating: nil, count: channelCount)
        fifo = .allocate(capacity: fifoCapacity * channelCount)
        fifo.initialize(repeating: 0, count: fifoCapacity * channelCount)
        silence = .allocate(capacity: blockFrames)
        silence.initialize(repeating: 0, count: blockFrames)
        // The largest blocks the audio thread will give, a few times over: libsoxr's FIFOs reach
        // their size now.
        for _ in 0..<8 { feedSilence(blockFrames) }
        rearm()
    }

    deinit {
        soxr_delete(state)
        inputs.deallocate()
        outputs.deallocate()
        fifo.deallocate()
        silence.deallocate()
    }

    /// Control thread: starts afresh (the same output as a new resampler's) without new memory.
    public mutating func rearm() {
        // Silence until the past has left the filter (twice its reach, and at least two blocks),
        // ending where the input lands on a whole output frame.
        feedSilence(2 * blockFrames)
        var total = fedFrames + max(2 * historyFrames, blockFrames)
        total = (total + inputPeriod - 1) / inputPeriod * inputPeriod
        while fedFrames < total { feedSilence(min(blockFrames, total - fedFrames)) }
        fifoStart = 0
        fifoEnd = 0
        dropUntil = fedFrames / inputPeriod * outputPeriod
        delayFrames = dropUntil - producedFrames
        historyFrames = Int(Double(delayFrames) * step) + 16
    }

    /// Feeds `frameCount` frames of silence, a block (the silence buffer's length) at most at a time.
    private mutating func feedSilence(_ frameCount: Int) {
        var left = frameCount
        while left > 0 {
            let n = min(blockFrames, left)
            for channel in 0..<channelCount { inputs[channel] = UnsafeRawPointer(silence) }
            run(n)
            fifoStart = fifoEnd  // (nothing of it is wanted)
            left -= n
        }
    }

    /// Audio thread. Output frames ready.
    public func available() -> Int { fifoEnd - fifoStart }

    /// Audio thread. Feeds `frameCount` planar frames from `offset` (the output they make is kept
    /// until retrieved).
    public mutating func process(_ planar: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let n = min(blockFrames, frameCount - done)
            for channel in 0..<channelCount { inputs[channel] = UnsafeRawPointer(planar[channel] + offset + done) }
            run(n)
            done += n
        }
    }

    /// Gives libsoxr `frameCount` frames from `inputs` and keeps its whole output in the FIFO.
    private mutating func run(_ frameCount: Int) {
        if fifoStart > 0 {  // the frames still held move to the front (rarely any: it is read dry before a feed)
            let held = fifoEnd - fifoStart
            for channel in 0..<channelCount {
                let base = fifo + channel * fifoCapacity
                // (a memmove: the ranges may overlap)
                if held > 0 { UnsafeMutableRawPointer(base).copyMemory(from: base + fifoStart, byteCount: held * MemoryLayout<Float>.stride) }
            }
            fifoStart = 0
            fifoEnd = held
        }
        var input = frameCount
        while true {
            for channel in 0..<channelCount { outputs[channel] = UnsafeMutableRawPointer(fifo + channel * fifoCapacity + fifoEnd) }
            var produced = 0
            let state = self.state, inputs = self.inputs, outputs = self.outputs, room = fifoCapacity - fifoEnd
            _ = _unsafePerformance { soxr_process(state, UnsafeRawPointer(inputs), input, nil, UnsafeMutableRawPointer(outputs), room, &produced) }
            fedFrames += input
            let before = producedFrames
            producedFrames += produced
            fifoEnd += produced
            if before < dropUntil {  // the start: what precedes the first frame is dropped
                let drop = min(produced, dropUntil - before)
                fifoStart += drop
            }
            // Output left inside libsoxr (the FIFO was full): taken by a call with no input.
            if produced < room || input == 0 { return }
            input = 0
            if fifoEnd >= fifoCapacity { return }
        }
    }

    /// Audio thread. Copies up to `frameCount` frames into the outputs at `offset`; returns how many.
    public mutating func retrieve(into planar: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frameCount: Int) -> Int {
        let n = min(frameCount, fifoEnd - fifoStart)
        if n <= 0 { return 0 }
        for channel in 0..<channelCount {
            UnsafeMutableRawPointer(planar[channel] + offset)
                .copyMemory(from: fifo + channel * fifoCapacity + fifoStart, byteCount: n * MemoryLayout<Float>.stride)
        }
        fifoStart += n
        return n
    }
}
