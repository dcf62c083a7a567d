import CJack
import Foundation
import Synchronization

/// A JACK client that records its inputs into memory set aside up front: the test harness's ears.
public final class CaptureClient: @unchecked Sendable {
    fileprivate let channelCount: Int
    fileprivate let capacityFrames: Int
    fileprivate let ports: [OpaquePointer]
    fileprivate let storage: [UnsafeMutablePointer<Float>]
    fileprivate let framesWritten = Atomic<Int>(0)
    private let client: OpaquePointer
    private let notifications = JackNotifications()
    public let sampleRate: Int
    public let clientName: String

    public init(clientName: String, serverName: String?, portCount: Int, seconds: Double) throws(RepeaterError) {
        guard let client = openJackClient(name: clientName, serverName: serverName).client else {
            throw RepeaterError(.jackUnavailable, "capture: cannot connect to JACK server '\(serverName ?? "default")'")
        }
        self.client = client
        self.clientName = String(cString: jack_get_client_name(client))
        sampleRate = Int(jack_get_sample_rate(client))
        channelCount = portCount
        capacityFrames = Int(seconds * Double(sampleRate))
        var ports: [OpaquePointer] = []
        for index in 1...portCount {
            guard let port = jack_port_register(client, "in_\(index)", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0) else {
                throw RepeaterError(.failure, "capture: cannot register in_\(index)")
            }
            ports.append(port)
        }
        self.ports = ports
        let capacity = capacityFrames
        storage = (0..<portCount).map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            buffer.initialize(repeating: 0, count: capacity)  // touch the pages before real-time use
            return buffer
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_set_process_callback(client, captureProcess, me)
        jack_on_info_shutdown(client, repeaterJackShutdown, Unmanaged.passUnretained(notifications).toOpaque())
        guard jack_activate(client) == 0 else { throw RepeaterError(.failure, "capture: cannot activate") }
    }

    public var isFull: Bool { framesWritten.load(ordering: .relaxed) >= capacityFrames }
    public var serverGone: Bool { notifications.serverShutdown.load(ordering: .relaxed) }

    /// Stops recording and writes what was captured as 32-bit float WAV.
    public func finish(writingTo path: String) throws(RepeaterError) {
        if !serverGone { jack_deactivate(client) }
        jack_client_close(client)
        let frames = min(framesWritten.load(ordering: .acquiring), capacityFrames)
        let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: sampleRate, channelCount: channelCount)
        let chunk = 4096
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channelCount)
        defer { scratch.deallocate() }
        var done = 0
        while done < frames {
            let count = min(chunk, frames - done)
            try writer.write(planar: storage.map { $0 + done }, frameCount: count, scratch: scratch)
            done += count
        }
        writer.close()
    }
}

/// Real-time thread.
private func captureProcess(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<CaptureClient>.fromOpaque(argument!)._withUnsafeGuaranteedRef { capture in
        let start = capture.framesWritten.load(ordering: .relaxed)
        let count = min(Int(frameCount), capture.capacityFrames - start)
        guard count > 0 else { return }
        for channel in 0..<capture.channelCount {
            let input = jack_port_get_buffer(capture.ports[channel], frameCount).assumingMemoryBound(to: Float.self)
            let destination = capture.storage[channel] + start
            for i in 0..<count { destination[i] = input[i] }
        }
        capture.framesWritten.store(start + count, ordering: .releasing)
    }
    return 0
}
