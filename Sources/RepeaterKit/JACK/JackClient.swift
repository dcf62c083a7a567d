import CJack
import CRepeaterSupport
import Foundation
import RepeaterEngine

/// How `out_k` ports are connected after activation.
public enum ConnectMode: Equatable, Sendable {
    /// The first physical playback ports; a mono file goes to both of a stereo pair.
    case auto
    case none
    /// `out_k` goes to the k-th input port whose name matches this regular expression.
    case pattern(String)

    public init(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "none": self = .none
        default: self = .pattern(text)
        }
    }
}

/// One JACK client: the thin binding around an `Engine`.
///
/// Life cycle, in order: `open`, `registerOutputs`, `attach`, `activate`, `connect`; on the way out
/// `deactivate`, then `close` (also done by deinit).
public final class JackClient: TransportControl, RecordingPorts {
    public let handle: OpaquePointer
    public let notifications = JackNotifications()
    /// The process callback's load.
    public let load: CallbackLoad
    private var ports: [OpaquePointer] = []
    /// The MIDI input `control` (`--midi`), if registered.
    private var midiPort: OpaquePointer?
    /// The metronome's and count-in's output `click`, if registered (rendered after the outputs).
    private var clickPort: OpaquePointer?
    /// The recording inputs `in_1 …` (`--record`), and their capture.
    private var inputPorts: [OpaquePointer] = []
    public private(set) var capture: InputCapture?
    private var context: Unmanaged<JackProcessContext>?
    /// The render-ahead helper, when the engine renders on it.
    public private(set) var ahead: RenderAhead?
    private var active = false
    private var closed = false

    public static func setVerbose(_ verbose: Bool) {
        jackLogVerbose.store(verbose, ordering: .relaxed)
        jack_set_error_function(repeaterJackLog)
        jack_set_info_function(repeaterJackLog)
    }

    /// Opens a client without ever starting a server. `serverName` nil means the environment's
    /// (`$JACK_DEFAULT_SERVER`, else "default").
    public init(clientName: String, serverName: String?) throws(RepeaterError) {
        let (opened, status) = openJackClient(name: clientName, serverName: serverName)
        guard let opened else {
            let server = serverName ?? ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"] ?? "default"
            if status.rawValue & (JackServerFailed.rawValue | JackServerError.rawValue) != 0 {
                throw RepeaterError(.jackUnavailable,
                    "no JACK server '\(server)' is running: start one (e.g. `jackd -d dummy &`, or your usual setup), or pass --start-server")
            }
            throw RepeaterError(.jackUnavailable,
                "the JACK server '\(server)' refused client '\(clientName)' (status 0x\(String(status.rawValue, radix: 16))); run with --verbose for libjack's detail")
        }
        handle = opened
        load = CallbackLoad(sampleRate: Int(jack_get_sample_rate(opened)))
        let notificationsPointer = Unmanaged.passUnretained(notifications).toOpaque()
        jack_on_info_shutdown(handle, repeaterJackShutdown, notificationsPointer)
        jack_set_xrun_callback(handle, repeaterJackXrun, notificationsPointer)
        jack_set_buffer_size_callback(handle, repeaterJackBufferSize, notificationsPointer)
        jack_set_sample_rate_callback(handle, repeaterJackSampleRate, notificationsPointer)
        notifications.bufferSize.store(bufferSize, ordering: .relaxed)
        notifications.sampleRate.store(sampleRate, ordering: .relaxed)
    }

    deinit { close() }

    /// The name the server gave us (it may have appended a number when ours was taken).
    public var name: String { String(cString: jack_get_client_name(handle)) }
    public var sampleRate: Int { Int(jack_get_sample_rate(handle)) }
    public var bufferSize: Int { Int(jack_get_buffer_size(handle)) }
    /// The server runs its process threads with real-time scheduling (`jackd -R`).
    public var isRealtime: Bool { jack_is_realtime(handle) != 0 }

    /// Registers `out_1 … out_N`.
    public func registerOutputs(count: Int) throws(RepeaterError) {
        let flags = UInt(JackPortIsOutput.rawValue | JackPortIsTerminal.rawValue)
        for index in 1...count {
            guard let port = jack_port_register(handle, "out_\(index)", JACK_DEFAULT_AUDIO_TYPE, flags, 0) else {
                throw RepeaterError(.failure, "JACK could not register port out_\(index)")
            }
            ports.append(port)
        }
    }

    /// Registers the output port `click` (the metronome and the count-in), after `registerOutputs`.
    public func registerClickPort() throws(RepeaterError) {
        let flags = UInt(JackPortIsOutput.rawValue | JackPortIsTerminal.rawValue)
        guard let port = jack_port_register(handle, "click", JACK_DEFAULT_AUDIO_TYPE, flags, 0) else {
            throw RepeaterError(.failure, "JACK could not register port click")
        }
        clickPort = port
    }

    /// Connects `click`: `auto` to wherever `out_1` is connected, a pattern to every input port that
    /// matches it. Returns warnings (never fails the run).
    public func connectClick(_ mode: ConnectMode) -> [String] {
        guard let clickPort, let first = ports.first else { return [] }
        let source = String(cString: jack_port_name(clickPort))
        let targets: [String]
        switch mode {
        case .none: return []
        case .auto:
            targets = Array(connections(of: first).prefix(1))
        case .pattern(let pattern):
            targets = ports(matching: pattern, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsInput.rawValue)
            if targets.isEmpty { return ["no JACK input port matches '\(pattern)' for the click: connect \(source) yourself"] }
        }
        return targets.compactMap { target in
            let result = jack_connect(handle, source, target)
            return result != 0 && result != EEXIST ? "could not connect \(source) to \(target)" : nil
        }
    }

    /// Registers the input ports `in_1 … in_N` for recording (`--record`), and the capture their
    /// samples go to (`probe`: the calibration signal it can play over the outputs).
    public func registerInputs(count: Int, probe: [Float]) throws(RepeaterError) {
        let flags = UInt(JackPortIsInput.rawValue | JackPortIsTerminal.rawValue)
        for index in 1...count {
            guard let port = jack_port_register(handle, "in_\(index)", JACK_DEFAULT_AUDIO_TYPE, flags, 0) else {
                throw RepeaterError(.failure, "JACK could not register port in_\(index)")
            }
            inputPorts.append(port)
        }
        capture = InputCapture(channelCount: count, probe: probe)
    }

    /// Full names of the input ports, in order.
    public var inputPortNames: [String] { inputPorts.map { String(cString: jack_port_name($0)) } }

    /// Connects the inputs: `auto` from the first physical capture ports, a pattern from every
    /// output port that matches it (in order, one per input; a single input takes the first).
    /// Returns warnings (never fails the run).
    public func connectInputs(_ mode: ConnectMode) -> [String] {
        let sources: [String]
        switch mode {
        case .none: return []
        case .auto:
            sources = ports(matching: nil, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsPhysical.rawValue | JackPortIsOutput.rawValue)
            if sources.isEmpty { return ["no physical capture ports: connect something to \(name):in_1 yourself"] }
        case .pattern(let pattern):
            sources = ports(matching: pattern, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsOutput.rawValue)
            if sources.isEmpty { return ["no JACK output port matches '\(pattern)' to record: nothing connected to in_1"] }
        }
        return zip(sources, inputPortNames).compactMap { source, destination in
            let result = jack_connect(handle, source, destination)
            return result != 0 && result != EEXIST ? "could not connect \(source) to \(destination)" : nil
        }
    }

    /// Everything connected to our audio ports now, as one key ("out_1>system:playback_1,…|in_1<…"):
    /// a calibration holds for the connections it was measured with.
    public var connectionKey: String {
        let outs = ports.enumerated().map { "out_\($0.offset + 1)>" + connections(of: $0.element).sorted().joined(separator: ",") }
        let ins = inputPorts.enumerated().map { "in_\($0.offset + 1)<" + connections(of: $0.element).sorted().joined(separator: ",") }
        return (outs + ins).joined(separator: "|")
    }

    /// The full names of the ports connected to `port`, as JACK lists them.
    private func connections(of port: OpaquePointer) -> [String] {
        jackNames(jack_port_get_all_connections(handle, port))
    }

    /// The round trip JACK reports, in frames: the playback latency of `out_1` plus the capture
    /// latency of `in_1` (the largest of each range).
    public var reportedRoundTripFrames: Int {
        guard let output = ports.first, let input = inputPorts.first else { return 0 }
        var playback = jack_latency_range_t(), capture = jack_latency_range_t()
        jack_port_get_latency_range(output, JackPlaybackLatency, &playback)
        jack_port_get_latency_range(input, JackCaptureLatency, &capture)
        return Int(playback.max) + Int(capture.max)
    }

    /// Registers the MIDI input port `control` (a foot pedal or controller connects to it).
    public func registerMIDIInput() throws(RepeaterError) {
        let flags = UInt(JackPortIsInput.rawValue | JackPortIsTerminal.rawValue)
        guard let port = jack_port_register(handle, "control", JACK_DEFAULT_MIDI_TYPE, flags, 0) else {
            throw RepeaterError(.failure, "JACK could not register the MIDI port control")
        }
        midiPort = port
    }

    /// Connects every MIDI output port matching `pattern` to `control`; returns warnings.
    public func connectMIDI(_ pattern: String) -> [String] {
        guard let midiPort else { return [] }
        let sources = ports(matching: pattern, type: JACK_DEFAULT_MIDI_TYPE, flags: JackPortIsOutput.rawValue)
        if sources.isEmpty { return ["no JACK MIDI output port matches '\(pattern)': connect \(name):control yourself"] }
        let destination = String(cString: jack_port_name(midiPort))
        return sources.compactMap { source in
            let result = jack_connect(handle, source, destination)
            return result != 0 && result != EEXIST ? "could not connect \(source) to \(destination)" : nil
        }
    }

    // MARK: the JACK transport (TransportControl)

    public func startTransport() { jack_transport_start(handle) }
    public func stopTransport() { jack_transport_stop(handle) }
    public var transportRolling: Bool { jack_transport_query(handle, nil) == JackTransportRolling }

    /// Full port names, in order.
    public var outputPortNames: [String] { ports.map { String(cString: jack_port_name($0)) } }

    /// Hands the engine to the process callback (rendering `renderAhead` periods ahead on a real-time
    /// helper thread, or in the callback itself when 0; with `adaptive`, ahead only while Rubber Band
    /// runs: `RenderAhead`). Before `activate`.
    public func attach(engine: Engine, renderAhead: Int = 0, adaptive: Bool = false) {
        precondition(!active && context == nil && !ports.isEmpty)
        // The buffers the engine renders: the outputs, then the click port when there is one.
        let rendered = ports + (clickPort.map { [$0] } ?? [])
        precondition(rendered.count == engine.renderChannelCount, "the engine renders \(engine.renderChannelCount) buffers, \(rendered.count) ports")
        if renderAhead > 0 {
            let helper = RenderAhead(engine: engine, channelCount: rendered.count, sampleRate: sampleRate, depth: renderAhead, adaptive: adaptive)
            if helper.start(client: handle) { ahead = helper }
        }
        let context = Unmanaged.passRetained(JackProcessContext(client: handle, engine: engine, ports: rendered, midiPort: midiPort,
                                                                 load: load, ahead: ahead, notifications: notifications,
                                                                 inputs: inputPorts, capture: capture))
        self.context = context
        jack_set_process_callback(handle, repeaterJackProcess, context.toOpaque())
        jack_set_latency_callback(handle, repeaterJackLatency, context.toOpaque())
    }

    public func activate() throws(RepeaterError) {
        guard jack_activate(handle) == 0 else { throw RepeaterError(.failure, "JACK could not activate the client") }
        active = true
    }

    /// Connects the outputs; returns warnings for the user (never fails the run).
    public func connect(_ mode: ConnectMode) -> [String] {
        let targets: [String]
        switch mode {
        case .none:
            return []
        case .auto:
            let physical = ports(matching: nil, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)
            if physical.isEmpty { return ["no physical playback ports: connect \(name):out_* yourself"] }
            targets = physical
        case .pattern(let pattern):
            let matches = ports(matching: pattern, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsInput.rawValue)
            if matches.isEmpty { return ["no JACK input port matches '\(pattern)': nothing connected"] }
            targets = matches
        }
        let pairs = zip(outputPortNames, targets)  // a mono file has two ports already (a stereo pair)
        var warnings: [String] = []
        for (source, destination) in pairs {
            let result = jack_connect(handle, source, destination)
            if result != 0 && result != EEXIST {
                warnings.append("could not connect \(source) to \(destination)")
            }
        }
        return warnings
    }

    private func ports(matching pattern: String?, type: String, flags: UInt32) -> [String] {
        jackNames(jack_get_ports(handle, pattern, type, UInt(flags)))
    }

    /// The largest playback latency downstream of our first port, in frames.
    public var outputLatencyFrames: Int {
        guard let port = ports.first else { return 0 }
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, JackPlaybackLatency, &range)
        return Int(range.max)
    }

    /// Control thread: asks JACK to recompute latencies (after the stretcher's delay changed).
    public func recomputeLatencies() { jack_recompute_total_latencies(handle) }

    /// The capture latency our first port reports (what `jack_lsp -l` shows).
    public var reportedLatencyFrames: Int {
        guard let port = ports.first else { return 0 }
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, JackCaptureLatency, &range)
        return Int(range.max)
    }

    public func deactivate() {
        if active && !notifications.serverShutdown.load(ordering: .relaxed) { jack_deactivate(handle) }
        active = false
        ahead?.stop()
    }

    /// The engine's own render time as a share of the period: the helper's when it renders ahead.
    public var renderLoad: CallbackLoad { ahead?.load ?? load }

    public func close() {
        guard !closed else { return }
        deactivate()
        jack_client_close(handle)
        closed = true
        context?.release()
        context = nil
    }
}

/// The names in a list JACK returned (`jack_get_ports`, `jack_port_get_all_connections`: NULL-ended,
/// or NULL for none), which this frees.
func jackNames(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String] {
    guard let list else { return [] }
    defer { jack_free(list) }
    var names: [String] = []
    var index = 0
    while let name = list[index] {
        names.append(String(cString: name))
        index += 1
    }
    return names
}
