import CJack
import RepeaterEngine
import Foundation
import Synchronization

/// A JACK client that records its inputs into memory set aside up front: the test harness's ears.
/// It also notes the JACK frame time of its first recorded frame and, cycle by cycle, when the JACK
/// transport starts or stops rolling (as capture frame indices), so that tests can place MIDI presses
/// and transport changes in the recording.
public final class CaptureClient: @unchecked Sendable {
    fileprivate let channelCount: Int
    /// JACK frame time of the first recorded frame (-1 before the first cycle).
    fileprivate let firstFrameTime = Atomic<Int>(-1)
    /// Transport changes: (capture frame, rolling) pairs as Ints, up to `changeCapacity`.
    fileprivate let changes: UnsafeMutablePointer<Int>
    fileprivate let changeCapacity = 1024
    fileprivate let changeCount = Atomic<Int>(0)
    fileprivate var lastRolling = -1
    fileprivate let capacityFrames: Int
    fileprivate let ports: [OpaquePointer]
    fileprivate let storage: [UnsafeMutablePointer<Float>]
    fileprivate let framesWritten = Atomic<Int>(0)
    /// Gaps in the server's frame time between two of this client's cycles: (capture frame, frames
    /// the server went on without calling this client), up to `changeCapacity`.
    fileprivate let gaps: UnsafeMutablePointer<Int>
    fileprivate let gapCount = Atomic<Int>(0)
    fileprivate var nextFrameTime = -1
    /// Where the server reported an xrun: the capture frame recording had reached (within a cycle
    /// or two: the report comes on JACK's notification thread), up to `changeCapacity`.
    fileprivate let xrunFrames: UnsafeMutablePointer<Int>
    fileprivate let xrunCount = Atomic<Int>(0)
    fileprivate let client: OpaquePointer
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
        changes = .allocate(capacity: 2 * changeCapacity)
        changes.initialize(repeating: 0, count: 2 * changeCapacity)
        gaps = .allocate(capacity: 2 * changeCapacity)
        gaps.initialize(repeating: 0, count: 2 * changeCapacity)
        xrunFrames = .allocate(capacity: changeCapacity)
        xrunFrames.initialize(repeating: 0, count: changeCapacity)
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_set_process_callback(client, captureProcess, me)
        jack_on_info_shutdown(client, repeaterJackShutdown, Unmanaged.passUnretained(notifications).toOpaque())
        jack_set_xrun_callback(client, captureXrun, me)
        guard jack_activate(client) == 0 else { throw RepeaterError(.failure, "capture: cannot activate") }
    }

    public var isFull: Bool { framesWritten.load(ordering: .relaxed) >= capacityFrames }
    public var serverGone: Bool { notifications.serverShutdown.load(ordering: .relaxed) }
    /// Xruns the server reported while recording.
    public var xruns: Int { xrunCount.load(ordering: .relaxed) }

    /// The capture frames at which the server reported its xruns (see `xrunFrames`).
    public var xrunPositions: [Int] { (0..<min(xrunCount.load(ordering: .acquiring), changeCapacity)).map { xrunFrames[$0] } }

    /// JACK frame time of the first recorded frame, or -1.
    public var firstFrame: Int { firstFrameTime.load(ordering: .acquiring) }

    /// Cycles the server ran without this client: (capture frame, frames skipped) — the graph's
    /// own losses, which a recording cannot see otherwise.
    public var frameTimeGaps: [(frame: Int, frames: Int)] {
        (0..<min(gapCount.load(ordering: .acquiring), changeCapacity)).map { (gaps[2 * $0], gaps[2 * $0 + 1]) }
    }

    /// Where the transport started (true) or stopped rolling, as capture frame indices.
    public var transportChanges: [(frame: Int, rolling: Bool)] {
        (0..<min(changeCount.load(ordering: .acquiring), changeCapacity)).map { (changes[2 * $0], changes[2 * $0 + 1] != 0) }
    }

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

/// JACK's notification thread: notes where recording was when the server reported an xrun.
private func captureXrun(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<CaptureClient>.fromOpaque(argument!)._withUnsafeGuaranteedRef { capture in
        let count = capture.xrunCount.load(ordering: .relaxed)
        if count < capture.changeCapacity { capture.xrunFrames[count] = capture.framesWritten.load(ordering: .relaxed) }
        capture.xrunCount.store(count + 1, ordering: .releasing)
    }
    return 0
}

/// Real-time thread.
private func captureProcess(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<CaptureClient>.fromOpaque(argument!)._withUnsafeGuaranteedRef { capture in
        let start = capture.framesWritten.load(ordering: .relaxed)
        let count = min(Int(frameCount), capture.capacityFrames - start)
        guard count > 0 else { return }
        let frameTime = Int(jack_last_frame_time(capture.client))
        if start == 0 { capture.firstFrameTime.store(frameTime, ordering: .releasing) }
        let gapped = capture.gapCount.load(ordering: .relaxed)
        if capture.nextFrameTime >= 0, frameTime != capture.nextFrameTime, gapped < capture.changeCapacity {
            capture.gaps[2 * gapped] = start
            capture.gaps[2 * gapped + 1] = frameTime - capture.nextFrameTime
            capture.gapCount.store(gapped + 1, ordering: .releasing)
        }
        capture.nextFrameTime = frameTime + Int(frameCount)
        let rolling = jack_transport_query(capture.client, nil).rawValue == JackTransportRolling.rawValue ? 1 : 0
        let changed = capture.changeCount.load(ordering: .relaxed)
        if rolling != capture.lastRolling, changed < capture.changeCapacity {
            capture.lastRolling = rolling
            capture.changes[2 * changed] = start
            capture.changes[2 * changed + 1] = rolling
            capture.changeCount.store(changed + 1, ordering: .releasing)
        }
        for channel in 0..<capture.channelCount {
            let input = jack_port_get_buffer(capture.ports[channel], frameCount).assumingMemoryBound(to: Float.self)
            let destination = capture.storage[channel] + start
            for i in 0..<count { destination[i] = input[i] }
        }
        capture.framesWritten.store(start + count, ordering: .releasing)
    }
    return 0
}

/// A JACK client with one MIDI output port: the tests' foot pedal. `send` queues a message for the
/// next cycle at a given frame offset; `sentTimes` gives the JACK frame time each one went out at.
public final class MIDISendClient: @unchecked Sendable {
    fileprivate let client: OpaquePointer
    fileprivate let port: OpaquePointer
    fileprivate let queue = SPSCRing<MIDIPacket>(capacity: 256)
    fileprivate let sent = SPSCRing<Int>(capacity: 256)
    public let clientName: String

    public init(clientName: String, serverName: String?) throws(RepeaterError) {
        guard let client = openJackClient(name: clientName, serverName: serverName).client else {
            throw RepeaterError(.jackUnavailable, "midi-send: cannot connect to JACK server '\(serverName ?? "default")'")
        }
        self.client = client
        self.clientName = String(cString: jack_get_client_name(client))
        guard let port = jack_port_register(client, "midi_out", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsOutput.rawValue), 0) else {
            throw RepeaterError(.failure, "midi-send: cannot register midi_out")
        }
        self.port = port
        jack_set_process_callback(client, midiSendProcess, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw RepeaterError(.failure, "midi-send: cannot activate") }
    }

    /// Connects midi_out to `destination` (a full port name).
    public func connect(to destination: String) -> Bool {
        jack_connect(client, clientName + ":midi_out", destination) == 0
    }

    /// Queues raw bytes (1 to 3) to go out at `offset` frames into the next cycle.
    public func send(_ bytes: [UInt8], offset: Int) {
        var packet = MIDIPacket()
        packet.count = UInt8(min(3, bytes.count))
        if bytes.count > 0 { packet.b0 = bytes[0] }
        if bytes.count > 1 { packet.b1 = bytes[1] }
        if bytes.count > 2 { packet.b2 = bytes[2] }
        packet.offset = UInt32(offset)
        queue.push(packet)
    }

    /// JACK frame times of the messages sent since the last call.
    public func sentTimes() -> [Int] {
        var times: [Int] = []
        while let time = sent.pop() { times.append(time) }
        return times
    }

    public func close() {
        jack_deactivate(client)
        jack_client_close(client)
    }
}

struct MIDIPacket: BitwiseCopyable {
    var b0: UInt8 = 0, b1: UInt8 = 0, b2: UInt8 = 0
    var count: UInt8 = 0
    var offset: UInt32 = 0
}

/// Real-time thread: at most one queued message per cycle, at its offset.
private func midiSendProcess(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<MIDISendClient>.fromOpaque(argument!)._withUnsafeGuaranteedRef { sender in
        guard let buffer = jack_port_get_buffer(sender.port, frameCount) else { return }
        jack_midi_clear_buffer(buffer)
        guard let packet = sender.queue.pop() else { return }
        let offset = min(packet.offset, frameCount - 1)
        if let data = jack_midi_event_reserve(buffer, offset, Int(packet.count)) {
            data[0] = packet.b0
            if packet.count > 1 { data[1] = packet.b1 }
            if packet.count > 2 { data[2] = packet.b2 }
            sender.sent.push(Int(jack_last_frame_time(sender.client)) + Int(offset))
        }
    }
    return 0
}

/// An idle JACK client that counts the server's xruns (the benchmark's idle baseline).
public final class XrunCounter {
    private let client: OpaquePointer
    private let notifications = JackNotifications()

    public init(clientName: String, serverName: String?) throws(RepeaterError) {
        guard let client = openJackClient(name: clientName, serverName: serverName).client else {
            throw RepeaterError(.jackUnavailable, "xrun counter: cannot connect to JACK server '\(serverName ?? "default")'")
        }
        self.client = client
        jack_set_xrun_callback(client, repeaterJackXrun, Unmanaged.passUnretained(notifications).toOpaque())
        guard jack_activate(client) == 0 else { throw RepeaterError(.failure, "xrun counter: cannot activate") }
    }

    public var count: Int { notifications.xruns.load(ordering: .relaxed) }

    public func close() {
        jack_deactivate(client)
        jack_client_close(client)
    }
}
