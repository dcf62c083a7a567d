import CJack
import Glibc
import CRepeaterSupport
import RepeaterEngine
import Synchronization

// C callbacks are plain global functions in a library file: closures written in main.swift would
// be main-actor isolated, and Swift 6 traps when the JACK thread enters them.

/// What the process callback needs, set up before activation and never changed while active.
final class JackProcessContext: @unchecked Sendable {
    let client: OpaquePointer
    let engine: Engine
    let midiPort: OpaquePointer?
    let load: CallbackLoad
    /// Renders one period ahead on a helper thread (`--render-ahead on`), or nil: in the callback.
    let ahead: RenderAhead?
    let notifications: JackNotifications
    /// The frame time the next cycle should start at if the server calls every cycle (real-time
    /// thread only; 0 with `haveFrameTime` false before the first cycle).
    private var expectedFrameTime: jack_nframes_t = 0
    private var haveFrameTime = false
    /// The server's xrun count as the last cycle saw it (a new one is a reported disturbance).
    private var xrunsSeen = 0
    let channelCount: Int
    let ports: UnsafeMutablePointer<OpaquePointer?>
    let buffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let placeholder: UnsafeMutablePointer<Float>
    /// Recording (`--record`): the input ports and what their samples go to.
    let capture: InputCapture?
    let inputCount: Int
    let inputPorts: UnsafeMutablePointer<OpaquePointer?>
    let inputBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    init(client: OpaquePointer, engine: Engine, ports: [OpaquePointer], midiPort: OpaquePointer?, load: CallbackLoad, ahead: RenderAhead?,
         notifications: JackNotifications, inputs: [OpaquePointer] = [], capture: InputCapture? = nil) {
        self.client = client
        self.capture = capture
        inputCount = capture == nil ? 0 : inputs.count
        inputPorts = .allocate(capacity: max(1, inputs.count))
        for (index, port) in inputs.enumerated() { (inputPorts + index).initialize(to: port) }
        self.notifications = notifications
        self.engine = engine
        self.ahead = ahead
        self.midiPort = midiPort
        self.load = load
        channelCount = ports.count
        self.ports = .allocate(capacity: ports.count)
        for (index, port) in ports.enumerated() { (self.ports + index).initialize(to: port) }
        placeholder = .allocate(capacity: 1)
        buffers = .allocate(capacity: ports.count)
        buffers.initialize(repeating: placeholder, count: ports.count)
        inputBuffers = .allocate(capacity: max(1, inputs.count))
        inputBuffers.initialize(repeating: placeholder, count: max(1, inputs.count))
    }

    deinit {
        inputPorts.deallocate()
        inputBuffers.deallocate()
        ports.deallocate()
        buffers.deallocate()
        placeholder.deallocate()
    }

    /// Real-time thread. The transport's state and the MIDI port's events go to the engine first
    /// (`jack_transport_query` and `jack_midi_event_get` are real-time safe), then it renders.
    @inline(__always)
    func process(_ frameCount: jack_nframes_t) {
        let start = jack_get_time()
        // A cycle the server ran without calling us shows as a jump in its frame time. jackd reports
        // those as xruns too; PipeWire's JACK does not, and this is how its dropped cycles show.
        let frameTime = jack_last_frame_time(client)
        let skipped = haveFrameTime && frameTime != expectedFrameTime
        if skipped {
            let missed = Int(Int32(bitPattern: frameTime &- expectedFrameTime))
            notifications.missedCycles.add(max(1, (missed + Int(frameCount) - 1) / max(1, Int(frameCount))), ordering: .relaxed)
        }
        expectedFrameTime = frameTime &+ frameCount
        haveFrameTime = true
        let xruns = notifications.xruns.load(ordering: .relaxed)
        let reported = xruns != xrunsSeen
        xrunsSeen = xruns
        for channel in 0..<channelCount {
            buffers[channel] = jack_port_get_buffer(ports[channel], frameCount).assumingMemoryBound(to: Float.self)
        }
        if let ahead {
            let midiBuffer = midiPort.flatMap { jack_port_get_buffer($0, frameCount) }
            let (tag, short) = ahead.process(frameCount: Int(frameCount), outputs: buffers, client: client, midiBuffer: midiBuffer)
            captureInputs(frameCount, tag: tag, disturbed: skipped || short, reported: reported)
            load.record(busyMicroseconds: Int(jack_get_time() &- start), frames: Int(frameCount))
            return
        }
        let tag = engine.status.renderedFrames.load(ordering: .relaxed)
        engine.setTransport(rolling: jack_transport_query(client, nil).rawValue == JackTransportRolling.rawValue)
        if let midiPort, let buffer = jack_port_get_buffer(midiPort, frameCount) {
            let count = jack_midi_get_event_count(buffer)
            var event = jack_midi_event_t(time: 0, size: 0, buffer: nil)
            var index: UInt32 = 0
            while index < count {  // (a plain loop: a Range<UInt32> would want generic metadata here)
                if jack_midi_event_get(&event, buffer, index) == 0, let bytes = event.buffer {
                    engine.receiveMIDI(offset: Int(event.time), bytes: bytes, count: event.size)
                }
                index &+= 1
            }
        }
        engine.render(frameCount: Int(frameCount), outputs: buffers)
        repeaterWakeWaiters(engine)
        captureInputs(frameCount, tag: tag, disturbed: skipped, reported: reported)
        load.record(busyMicroseconds: Int(jack_get_time() &- start), frames: Int(frameCount))
    }

    /// The inputs of this cycle to the capture (with the tag of the outputs just written), and the
    /// calibration probe over the outputs.
    @inline(__always)
    private func captureInputs(_ frameCount: jack_nframes_t, tag: Int, disturbed: Bool, reported: Bool) {
        guard let capture else { return }
        for channel in 0..<inputCount {
            inputBuffers[channel] = jack_port_get_buffer(inputPorts[channel], frameCount).assumingMemoryBound(to: Float.self)
        }
        capture.process(inputs: inputBuffers, outputs: buffers, outputCount: channelCount, frameCount: Int(frameCount), tag: tag,
                        disturbed: disturbed, reported: reported)
    }
}

/// Real-time thread, after a render: the engine asked the disk reader something (a seek, a loop
/// head): wake it (a semaphore post: at most a futex wake, never a wait); it handed the sleeping
/// control thread something (an event, a MIDI press, a buffer to free): wake that (an eventfd
/// write, which never blocks).
@inline(__always)
func repeaterWakeWaiters(_ engine: Engine) {
    if engine.readerRequests.count > 0, let semaphore = UnsafeMutablePointer<sem_t>(bitPattern: engine.controls.readerWake.load(ordering: .relaxed)) {
        sem_post(semaphore)
    }
    if engine.takeControlWork() {
        let fd = engine.controls.controlWake.load(ordering: .relaxed)
        if fd >= 0 { repeater_wake_post(fd) }
    }
}

/// The process callback's own time as a share of the period: the audio thread adds up busy and
/// period time (relaxed atomics, read as differences by the control thread), raises the largest
/// single-cycle share since the control thread last took it (compare-and-swap, never a lock), and
/// counts every cycle in a histogram of 0.25 %-of-a-period buckets (for the mean, p99.9 and worst
/// of a whole run: `REPEATER_CALLBACK_STATS`, the benchmark's probe).
public final class CallbackLoad: @unchecked Sendable {
    /// Microseconds spent in the callback, ever.
    public let busyMicroseconds = Atomic<Int>(0)
    /// Microseconds of audio the callbacks produced, ever (frames / rate).
    public let periodMicroseconds = Atomic<Int>(0)
    /// The largest share of one period (per million) since `takePeak()`.
    public let peakPerMillion = Atomic<Int>(0)
    /// The largest share of one period (per million) of the whole run.
    public let worstPerMillion = Atomic<Int>(0)
    let microsecondsPerFrame: Double
    /// Cycles per bucket of 2500 per million (0.25 %); the last bucket holds everything from 400 %.
    public static let bucketCount = 1601
    private let histogram: UnsafeMutablePointer<Atomic<Int>>

    init(sampleRate: Int) {
        microsecondsPerFrame = 1_000_000 / Double(max(1, sampleRate))
        histogram = .allocate(capacity: Self.bucketCount)
        for index in 0..<Self.bucketCount { (histogram + index).initialize(to: Atomic<Int>(0)) }
    }

    deinit {
        histogram.deinitialize(count: Self.bucketCount)
        histogram.deallocate()
    }

    /// Real-time thread.
    @inline(__always)
    func record(busyMicroseconds busy: Int, frames: Int) {
        let period = Int(Double(frames) * microsecondsPerFrame)
        busyMicroseconds.add(busy, ordering: .relaxed)
        periodMicroseconds.add(period, ordering: .relaxed)
        let share = period > 0 ? busy * 1_000_000 / period : 0
        raise(peakPerMillion, to: share)
        raise(worstPerMillion, to: share)
        histogram[min(Self.bucketCount - 1, share / 2500)].add(1, ordering: .relaxed)
    }

    @inline(__always)
    private func raise(_ atomic: borrowing Atomic<Int>, to share: Int) {
        var current = atomic.load(ordering: .relaxed)
        while share > current {
            let (exchanged, original) = atomic.compareExchange(expected: current, desired: share, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
    }

    /// Control thread: the largest single-cycle share since the last call (0…1, more on overload).
    public func takePeak() -> Double { Double(peakPerMillion.exchange(0, ordering: .relaxed)) / 1_000_000 }

    /// The whole run so far: cycles, mean share, the share 99.9 % of cycles stay under (to the
    /// bucket's upper edge), and the worst.
    public func summary() -> (cycles: Int, mean: Double, p999: Double, worst: Double) {
        var counts = [Int](repeating: 0, count: Self.bucketCount)
        for index in 0..<Self.bucketCount { counts[index] = histogram[index].load(ordering: .relaxed) }
        let cycles = counts.reduce(0, +)
        let period = periodMicroseconds.load(ordering: .relaxed)
        let mean = period > 0 ? Double(busyMicroseconds.load(ordering: .relaxed)) / Double(period) : 0
        var seen = 0, p999 = 0.0
        for (index, count) in counts.enumerated() {
            seen += count
            if Double(seen) >= 0.999 * Double(cycles) {
                p999 = Double(index + 1) * 0.0025
                break
            }
        }
        return (cycles, mean, p999, Double(worstPerMillion.load(ordering: .relaxed)) / 1_000_000)
    }
}

/// Flags set by JACK's notification callbacks; the control thread acts on them.
public final class JackNotifications: Sendable {
    public let serverShutdown = Atomic<Bool>(false)
    public let xruns = Atomic<Int>(0)
    /// Cycles the server ran without calling the process callback (its frame time jumped).
    public let missedCycles = Atomic<Int>(0)
    public let bufferSize = Atomic<Int>(0)
    public let sampleRate = Atomic<Int>(0)
    public init() {}
}

/// Real-time thread: JACK's process callback.
func repeaterJackProcess(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    repeater_rtprobe_enter()
    Unmanaged<JackProcessContext>.fromOpaque(argument!)._withUnsafeGuaranteedRef { $0.process(frameCount) }
    repeater_rtprobe_leave()
    return 0
}

/// JACK's latency callback (not the process thread): output ports report the stretcher's delay as
/// their capture latency, so that recorders downstream can compensate (`jack_lsp -l` shows it).
func repeaterJackLatency(_ mode: jack_latency_callback_mode_t, _ argument: UnsafeMutableRawPointer?) {
    guard mode == JackCaptureLatency else {
        // The inputs are recorded, never passed on to the outputs: nothing downstream of them.
        Unmanaged<JackProcessContext>.fromOpaque(argument!)._withUnsafeGuaranteedRef { context in
            var none = jack_latency_range_t(min: 0, max: 0)
            for channel in 0..<context.inputCount { jack_port_set_latency_range(context.inputPorts[channel], JackPlaybackLatency, &none) }
        }
        return
    }
    Unmanaged<JackProcessContext>.fromOpaque(argument!)._withUnsafeGuaranteedRef { context in
        let latency = UInt32(max(0, context.engine.status.processingLatency.load(ordering: .relaxed)))
        var range = jack_latency_range_t(min: latency, max: latency)
        for channel in 0..<context.channelCount { jack_port_set_latency_range(context.ports[channel], JackCaptureLatency, &range) }
    }
}

/// JACK's notification thread; must behave like a signal handler.
func repeaterJackShutdown(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?, _ argument: UnsafeMutableRawPointer?) {
    Unmanaged<JackNotifications>.fromOpaque(argument!)._withUnsafeGuaranteedRef {
        $0.serverShutdown.store(true, ordering: .relaxed)
    }
}

func repeaterJackXrun(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<JackNotifications>.fromOpaque(argument!)._withUnsafeGuaranteedRef {
        _ = $0.xruns.add(1, ordering: .relaxed)
    }
    return 0
}

/// Runs with the process cycle suspended. The engine renders any cycle size, so nothing to resize.
func repeaterJackBufferSize(_ frames: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<JackNotifications>.fromOpaque(argument!)._withUnsafeGuaranteedRef {
        $0.bufferSize.store(Int(frames), ordering: .relaxed)
    }
    return 0
}

func repeaterJackSampleRate(_ rate: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<JackNotifications>.fromOpaque(argument!)._withUnsafeGuaranteedRef {
        $0.sampleRate.store(Int(rate), ordering: .relaxed)
    }
    return 0
}

/// Opens a client without ever starting a server, with libjack's own messages routed through
/// `repeaterJackLog`. The one place every client of this package (player, capture, probe) opens.
func openJackClient(name: String, serverName: String?) -> (client: OpaquePointer?, status: jack_status_t) {
    jack_set_error_function(repeaterJackLog)
    jack_set_info_function(repeaterJackLog)
    var status = jack_status_t(rawValue: 0)
    let options = jack_options_t(rawValue: JackNoStartServer.rawValue)
    let client: OpaquePointer? = serverName.map { cjack_client_open(name, options, &status, $0) }
        ?? cjack_client_open(name, options, &status, nil)
    return (client, status)
}

/// libjack's own error and info lines: shown only with --verbose, so a failed open prints our
/// one line instead of libjack's several.
let jackLogVerbose = Atomic<Bool>(false)

func repeaterJackLog(_ message: UnsafePointer<CChar>?) {
    guard jackLogVerbose.load(ordering: .relaxed), let message else { return }
    let line = "jack: " + String(cString: message) + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}
