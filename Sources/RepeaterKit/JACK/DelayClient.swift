import CJack
import Foundation

/// A JACK client for the recording tests: `in_k` comes out of `out_k` exactly `delayFrames` later,
/// and its ports report that delay (an output's capture latency is its input's plus the delay; an
/// input's playback latency its output's plus the delay), as a well-behaved effect or converter
/// does. With repeater's outputs through it back into repeater's inputs, it is a round trip of a
/// known length, inside the graph.
public final class DelayClient: @unchecked Sendable {
    fileprivate let channelCount: Int
    fileprivate let delayFrames: Int
    fileprivate let inputs: [OpaquePointer]
    fileprivate let outputs: [OpaquePointer]
    /// One ring per channel of `capacity` frames (a power of two above the delay plus a period).
    fileprivate let rings: [UnsafeMutablePointer<Float>]
    fileprivate let capacity: Int
    fileprivate var written = 0
    fileprivate let client: OpaquePointer
    private let notifications = JackNotifications()
    public let clientName: String

    public init(clientName: String, serverName: String?, channelCount: Int, delayFrames: Int) throws(RepeaterError) {
        guard let client = openJackClient(name: clientName, serverName: serverName).client else {
            throw RepeaterError(.jackUnavailable, "delay: cannot connect to JACK server '\(serverName ?? "default")'")
        }
        self.client = client
        self.clientName = String(cString: jack_get_client_name(client))
        self.channelCount = channelCount
        self.delayFrames = max(0, delayFrames)
        var size = 1
        while size < self.delayFrames + 16_384 { size <<= 1 }
        capacity = size
        var inputs: [OpaquePointer] = [], outputs: [OpaquePointer] = []
        for index in 1...channelCount {
            guard let input = jack_port_register(client, "in_\(index)", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0),
                  let output = jack_port_register(client, "out_\(index)", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0) else {
                throw RepeaterError(.failure, "delay: cannot register its ports")
            }
            inputs.append(input)
            outputs.append(output)
        }
        self.inputs = inputs
        self.outputs = outputs
        rings = (0..<channelCount).map { _ in
            let ring = UnsafeMutablePointer<Float>.allocate(capacity: size)
            ring.initialize(repeating: 0, count: size)
            return ring
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_set_process_callback(client, delayProcess, me)
        jack_set_latency_callback(client, delayLatency, me)
        jack_on_info_shutdown(client, repeaterJackShutdown, Unmanaged.passUnretained(notifications).toOpaque())
        guard jack_activate(client) == 0 else { throw RepeaterError(.failure, "delay: cannot activate") }
    }

    /// Whether the server has shut down under it (the tool then leaves: a test that stopped its
    /// server, or died and had it stopped for it, leaves no delay client behind).
    public var serverGone: Bool { notifications.serverShutdown.load(ordering: .relaxed) }

    public func close() {
        if !serverGone { jack_deactivate(client) }
        jack_client_close(client)
    }
}

private func delayProcess(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<DelayClient>.fromOpaque(argument!)._withUnsafeGuaranteedRef { delay in
        let n = Int(frameCount)
        let mask = delay.capacity - 1
        for channel in 0..<delay.channelCount {
            let input = jack_port_get_buffer(delay.inputs[channel], frameCount).assumingMemoryBound(to: Float.self)
            let output = jack_port_get_buffer(delay.outputs[channel], frameCount).assumingMemoryBound(to: Float.self)
            let ring = delay.rings[channel]
            for i in 0..<n { ring[(delay.written + i) & mask] = input[i] }
            for i in 0..<n { output[i] = ring[(delay.written + i - delay.delayFrames) & mask] }
        }
        delay.written += n
    }
    return 0
}

private func delayLatency(_ mode: jack_latency_callback_mode_t, _ argument: UnsafeMutableRawPointer?) {
    Unmanaged<DelayClient>.fromOpaque(argument!)._withUnsafeGuaranteedRef { delay in
        let extra = UInt32(delay.delayFrames)
        for channel in 0..<delay.channelCount {
            var range = jack_latency_range_t()
            if mode == JackCaptureLatency {
                jack_port_get_latency_range(delay.inputs[channel], JackCaptureLatency, &range)
                range.min += extra
                range.max += extra
                jack_port_set_latency_range(delay.outputs[channel], JackCaptureLatency, &range)
            } else {
                jack_port_get_latency_range(delay.outputs[channel], JackPlaybackLatency, &range)
                range.min += extra
                range.max += extra
                jack_port_set_latency_range(delay.inputs[channel], JackPlaybackLatency, &range)
            }
        }
    }
}
