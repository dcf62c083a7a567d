/// "Hearing the part": the stage after the time-stretcher and before volume and pan that lets one
/// part of the mix through (`IsolationMode`).
///
/// Latency: `off` is undelayed and bit-exact. Every other mode runs `latencyFrames` behind its
/// input (stereo: the spectral frame, N = 2048 at 48 kHz, 42.7 ms; other layouts have no spectral
/// mode and a latency of 0), the band and channel modes through a delay line, so switching among
/// them never jumps in time; a switch between `off` and another mode crosses between the undelayed
/// and the delayed signal (a jump of `latencyFrames`, crossfaded, where a steady tone can partly
/// cancel for a few milliseconds). `through` is the whole mix at the delayed time base, for
/// comparisons without a jump.
///
/// A mode is a source (the input, the delayed input, the centre, the sides, one channel) and, for
/// `bass` and `band`, a band-pass after it. A switch (`setMode`, on the audio thread between
/// `process` calls) crossfades the two sources linearly over `fadeFrames` (20 ms), both computed
/// throughout. A band is not crossfaded but morphed (`BandPass`), over `morphFrames` (50 ms), and
/// it filters the crossfading sources together:
/// - band → band: the edges glide from one band to the other;
/// - no band → band: the filter starts open (10 Hz to 20 kHz, nearly transparent) and is
///   blended in over the first 20 ms while its edges glide to the new band;
/// - band → no band: the edges glide back to open and the filter is blended out over the last 20 ms.
/// Crossfading the outputs of two different minimum-phase band-passes would cancel a tone wherever
/// their phases differ by nearly 180° (4th-order edges turn it by up to 360°); filtering both
/// sources with one gliding band turns the phase smoothly instead, slowly enough (50 ms) that a
/// tone's pitch bends by well under 10 %. A request during a switch waits for it to finish (at
/// most 50 ms; only the latest waits).
/// A new mode's resources are made ready when its switch starts: a band's filters are run over the
/// last 85 ms of history (open, so their start-up is over before they are heard), a spectral
/// synthesis is primed with the frames that overlap the present.
///
/// All memory is allocated in `init` (control thread). `setMode` and `process` allocate nothing,
/// take no lock and call only FFTW's execute functions and libm. A non-copyable struct, like the
/// engine's rings, so that its owner holds it inline and the audio thread reaches it without
/// reference counting.
public struct Isolator: ~Copyable, @unchecked Sendable {
    public let channelCount: Int
    public let sampleRate: Int
    /// Frames every mode other than `off` delays the signal by.
    public let latencyFrames: Int
    /// Length of a switch's crossfade between two sources (20 ms).
    public let fadeFrames: Int
    /// Length of a switch that changes the band (50 ms): the glide of its edges.
    public let morphFrames: Int
    /// The spectral frame (N; see `StereoSplitter` and `STFT`), 0 without spectral modes.
    public let spectralFrameFrames: Int
    /// The spectral hop (N/2), 0 without spectral modes.
    public let spectralHopFrames: Int

    /// Stereo only.
    var splitter: StereoSplitter?
    private var history: DelayLine
    /// The band of `bass` and `band`.
    private var filter: BandPass
    /// The most frames handled at once (a hop, for stereo).
    private let chunkFrames: Int
    /// Frames of history a band's filters are run over when it starts.
    private let filterPrimingFrames: Int
    /// Scratch (chunkFrames per channel): the delayed input, and the two sides of a switch.
    private let delayed: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let fadeOut: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let fadeIn: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    private var current = IsolationMode.off
    /// The mode being switched to, if a switch is running.
    private var incoming: IsolationMode?
    private var fadePosition = 0
    /// The running switch's length: `fadeFrames`, or `morphFrames` when a band is involved.
    private var switchFrames = 0
    /// Asked for during a switch: next.
    private var pending: IsolationMode?

    /// Control thread. `channelCount` ≥ 1; `process` takes any number of frames.
    public init(channelCount: Int, sampleRate: Int) {
        precondition(channelCount >= 1 && sampleRate > 0)
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        fadeFrames = max(1, sampleRate / 50)
        morphFrames = max(fadeFrames, sampleRate / 20)
        var reach = 0
        if channelCount == 2 {
            let splitter = StereoSplitter(sampleRate: sampleRate)
            latencyFrames = splitter.latencyFrames
            chunkFrames = splitter.stft.hopFrames
            spectralFrameFrames = splitter.stft.frameFrames
            spectralHopFrames = splitter.stft.hopFrames
            reach = splitter.primingReach
            self.splitter = .some(consume splitter)
        } else {
            latencyFrames = 0
            chunkFrames = 512
            spectralFrameFrames = 0
            spectralHopFrames = 0
            splitter = nil
        }
        filterPrimingFrames = max(256, sampleRate * 85 / 1000)
        reach = max(reach, latencyFrames + filterPrimingFrames)
        history = DelayLine(channelCount: channelCount, minimumFrames: reach + 2 * chunkFrames)
        filter = BandPass(channelCount: channelCount, sampleRate: sampleRate, maxChunkFrames: chunkFrames)
        let frames = chunkFrames
        func planar() -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
            for channel in 0..<channelCount {
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames)
                buffer.initialize(repeating: 0, count: frames)
                (pointers + channel).initialize(to: buffer)
            }
            return pointers
        }
        delayed = planar()
        fadeOut = planar()
        fadeIn = planar()
    }

    deinit {
        for pointers in [delayed, fadeOut, fadeIn] {
            for channel in 0..<channelCount { pointers[channel].deallocate() }
            pointers.deallocate()
        }
    }

    /// The mode asked for last (where the output is, or is heading).
    public var mode: IsolationMode { pending ?? incoming ?? current }

    /// The delay `mode` puts on the signal: 0 for `off`, `latencyFrames` otherwise.
    public func latencyFrames(for mode: IsolationMode) -> Int { mode == .off ? 0 : latencyFrames }

    /// Whether this layout can do `mode` (the stereo modes need two channels; a band needs
    /// `lowHz` < `highHz` and some of it between 10 Hz and 0.45 × the sample rate).
    public func supports(_ mode: IsolationMode) -> Bool {
        if mode.needsStereo && splitter == nil { return false }
        if let band = mode.filterBand { return BandPass.isValid(lowHz: band.lowHz, highHz: band.highHz, sampleRate: sampleRate) }
        return true
    }

    #if REPEATER_PERFORMANCE_CHECKS
    /// Real-time thread (between `process` calls). Switches to `mode` over `fadeFrames`, or at once
    /// with `immediately` (for a start, or output that is silent anyway). Returns false, changing
    /// nothing, for a mode this layout cannot do. (`@_noLocks`: checked by the compiler in the
    /// release build, as `Engine.render` is.)
    @_noLocks @discardableResult
    public mutating func setMode(_ mode: IsolationMode, immediately: Bool = false) -> Bool {
        switchMode(mode, immediately: immediately)
    }

    /// Real-time thread. Processes `frameCount` frames of `channelCount` planar buffers in place.
    /// (`@_noLocks`, checked.)
    @_noLocks
    public mutating func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        processFrames(buffers, frameCount: frameCount)
    }
    #else
    /// Real-time thread (between `process` calls). Switches to `mode` over `fadeFrames`, or at once
    /// with `immediately` (for a start, or output that is silent anyway). Returns false, changing
    /// nothing, for a mode this layout cannot do.
    @discardableResult
    public mutating func setMode(_ mode: IsolationMode, immediately: Bool = false) -> Bool {
        switchMode(mode, immediately: immediately)
    }

    /// Real-time thread. Processes `frameCount` frames of `channelCount` planar buffers in place.
    public mutating func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        processFrames(buffers, frameCount: frameCount)
    }
    #endif

    // MARK: audio thread

    @inline(__always)
    private mutating func switchMode(_ mode: IsolationMode, immediately: Bool) -> Bool {
        guard supports(mode) else { return false }
        if immediately {
            incoming = nil
            pending = nil
            current = mode
            if let band = mode.filterBand {
                startBand(lowHz: band.lowHz, highHz: band.highHz)
            } else {
                filter.setBand(lowHz: 0, highHz: .infinity, clearingState: true)  // (ends a morph cut short)
            }
            updateSplitter()
            return true
        }
        if incoming != nil {
            pending = mode == incoming ? nil : mode
            return true
        }
        if mode != current { startSwitch(to: mode) }
        return true
    }

    @inline(__always)
    private mutating func processFrames(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            var count = min(frameCount - done, chunkFrames)
            if let toHop = splitter?.framesToHop { count = min(count, toHop) }
            history.write(buffers, offset: done, count: count)
            renderChunk(buffers, offset: done, count: count)
            splitter?.advance(history, count: count)
            done += count
        }
    }

    private mutating func startSwitch(to mode: IsolationMode) {
        incoming = mode
        fadePosition = 0
        let old = current.filterBand, new = mode.filterBand
        switchFrames = old == nil && new == nil ? fadeFrames : morphFrames
        if let new {
            if old == nil { startBand(lowHz: 0, highHz: .infinity) }  // from the open band, settled
            filter.beginMorph(toLowHz: new.lowHz, highHz: new.highHz)
        } else if old != nil {
            filter.beginMorph(toLowHz: 0, highHz: .infinity)  // back to the open band
        }
        updateSplitter()
    }

    private mutating func finishSwitch() {
        guard let mode = incoming else { return }
        current = mode
        incoming = nil
        filter.endMorph()
        updateSplitter()
        if let next = pending {
            pending = nil
            if next != current { startSwitch(to: next) }
        }
    }

    /// Runs the spectral syntheses the current and incoming modes need, and only those.
    private mutating func updateSplitter() {
        let centre = current == .centre || incoming == .centre
        let sides = current == .sides || incoming == .sides
        splitter?.setRunning(centre: centre, sides: sides, history: history)
    }

    /// Sets the band at once and runs it over the history that precedes the next delayed frame, so
    /// that it starts settled.
    private mutating func startBand(lowHz: Double, highHz: Double) {
        filter.setBand(lowHz: lowHz, highHz: highHz, clearingState: true)
        filter.prime(from: history, end: history.endFrame - latencyFrames, frameCount: filterPrimingFrames,
                     scratch: fadeOut[0], chunkFrames: chunkFrames)
    }

    private mutating func renderChunk(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, count: Int) {
        if current == .off && incoming == nil { return }  // untouched, bit for bit
        let start = history.endFrame - count - latencyFrames
        for channel in 0..<channelCount { history.read(channel: channel, from: start, count: count, into: delayed[channel]) }
        guard let incoming else {
            render(current.source, buffers, offset: offset, into: buffers, at: offset, count: count)
            if current.filterBand != nil { filterChannels(buffers, at: offset, count: count) }
            return
        }
        if filter.isMorphing { filter.prepareMorphChunk(start: fadePosition, count: count, totalFrames: switchFrames) }
        // The sources, crossfaded over the first `fadeFrames`, into `fadeOut`.
        let oldSource = current.source, newSource = incoming.source
        let scale = 1 / Float(fadeFrames)
        if fadePosition >= fadeFrames {
            render(newSource, buffers, offset: offset, into: fadeOut, at: 0, count: count)
        } else {
            render(oldSource, buffers, offset: offset, into: fadeOut, at: 0, count: count)
            if newSource != oldSource {
                render(newSource, buffers, offset: offset, into: fadeIn, at: 0, count: count)
                for channel in 0..<channelCount {
                    let old = fadeOut[channel], new = fadeIn[channel]
                    for i in 0..<count {
                        let gain = min(1, Float(fadePosition + i + 1) * scale)
                        old[i] += (new[i] - old[i]) * gain
                    }
                }
            }
        }
        let oldBand = current.filterBand != nil, newBand = incoming.filterBand != nil
        if !oldBand && !newBand {
            for channel in 0..<channelCount { copySamples(fadeOut[channel], to: buffers[channel] + offset, count: count) }
        } else {
            // The gliding band over the crossfaded sources, blended in over the first `fadeFrames`
            // (from no band) or out over the last (to no band).
            for channel in 0..<channelCount { filter.process(channel: channel, fadeOut[channel], fadeIn[channel], count: count) }
            for channel in 0..<channelCount {
                let unfiltered = fadeOut[channel], filtered = fadeIn[channel], output = buffers[channel] + offset
                for i in 0..<count {
                    let frame = fadePosition + i + 1
                    var share: Float = 1
                    if !oldBand { share = min(1, Float(frame) * scale) }
                    if !newBand { share = min(1, max(0, Float(switchFrames - frame) * scale)) }
                    output[i] = unfiltered[i] + (filtered[i] - unfiltered[i]) * share
                }
            }
        }
        fadePosition += count
        if fadePosition >= switchFrames { finishSwitch() }
    }

    private func filterChannels(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) {
        for channel in 0..<channelCount { filter.process(channel: channel, buffers[channel] + offset, buffers[channel] + offset, count: count) }
    }

    /// Writes `source` for this chunk into `destination[c][at...]`. `buffers[c][offset...]` is the
    /// chunk's input; `delayed` holds it `latencyFrames` earlier.
    private func render(_ source: IsolationSource, _ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int,
                        into destination: UnsafePointer<UnsafeMutablePointer<Float>>, at: Int, count: Int) {
        switch source {
        case .input:
            if destination == buffers && at == offset { return }
            for channel in 0..<channelCount { copySamples(buffers[channel] + offset, to: destination[channel] + at, count: count) }
        case .delayed:
            for channel in 0..<channelCount { copySamples(delayed[channel], to: destination[channel] + at, count: count) }
        case .left, .right:
            let samples = delayed[source == .left ? 0 : 1]
            for channel in 0..<channelCount { copySamples(samples, to: destination[channel] + at, count: count) }
        case .centre:
            guard let samples = splitter?.centreOutput() else { return }
            for channel in 0..<channelCount { copySamples(samples, to: destination[channel] + at, count: count) }
        case .sides:
            guard let sidesLeft = splitter?.sidesLeftOutput() else { return }
            let left = destination[0] + at, right = destination[1] + at
            let dryLeft = delayed[0], dryRight = delayed[1]
            for i in 0..<count {
                let s = sidesLeft[i]
                left[i] = s
                right[i] = s - (dryLeft[i] - dryRight[i])  // S_R = S_L − (L − R), delayed alike
            }
        }
    }

    /// Subnormal numbers in any filter or statistic (the tests check there are none after silence).
    func subnormalStateCount() -> Int {
        (splitter?.subnormalCount() ?? 0) + (filter.hasSubnormalState ? 1 : 0)
    }
}

extension Isolator {
    /// Control thread, before any real-time use (the engine's `warmUpRuntime` should call it). Runs
    /// a throwaway stereo isolator through every mode and kind of switch, so that the Swift
    /// runtime's one-time lazy work on these paths (generic metadata, such as that of the optional
    /// splitter: it allocates and locks) happens here rather than on the audio thread. Debug builds
    /// need it; release builds mostly specialize the work away.
    public static func warmUpRuntime() {
        for channelCount in [2, 1] {
            var isolator = Isolator(channelCount: channelCount, sampleRate: 8000)
            let frames = 64
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * channelCount)
            buffer.initialize(repeating: 0.25, count: frames * channelCount)
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
            for channel in 0..<channelCount { (pointers + channel).initialize(to: buffer + channel * frames) }
            defer {
                buffer.deallocate()
                pointers.deallocate()
            }
            let modes: [IsolationMode] = [.through, .centre, .sides, .bass, .band(lowHz: 100, highHz: 1000), .left, .right, .off, .centre, .off]
            for (index, mode) in modes.enumerated() {
                isolator.setMode(mode, immediately: index == 0)
                isolator.setMode(.bass)  // a request during the switch
                for _ in 0..<40 { isolator.process(pointers, frameCount: frames) }
                _ = isolator.latencyFrames(for: isolator.mode)
            }
        }
    }
}
