import CRepeaterSupport
import Foundation
import RepeaterEngine

/// `repeater chime`: strikes the minute repeater once through JACK (ports out_1, out_2, the gongs
/// centred) or into a file, and ends when the last gong has died away.
public struct ChimeRunner {
    public var hour: Int
    public var minute: Int
    public var chime = ChimeOptions()
    public var serverName: String?
    public var clientName = "repeater"
    public var connect: ConnectMode = .auto
    public var startServer = false
    public var verbose = false

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    private func engine(sampleRate: Int) throws(RepeaterError) -> Engine {
        let configuration = Engine.Configuration(channelCount: 2, sourceFrameCount: 0, blockFrames: 16, blockCount: 2,
                                                 headFrames: 1, sampleRate: sampleRate, chimeTempo: chime.tempo)
        return Engine(configuration, gongs: try Gongs.bank(sampleRate: sampleRate, lowPath: chime.lowPath, highPath: chime.highPath))
    }

    /// The chime's length in frames: the last onset plus the longer gong.
    private func length(of engine: Engine) -> Int {
        let schedule = ChimeSchedule(hour: hour, minute: minute, sampleRate: engine.configuration.sampleRate, tempo: chime.tempo)
        return schedule.onset(schedule.count - 1) + max(engine.gongs.lowFrames, engine.gongs.highFrames)
    }

    /// Writes the chime to a file (32-bit float WAV unless the extension says otherwise), exactly its
    /// length. Returns the frames written.
    @discardableResult
    public func render(to path: String, sampleRate: Int = 48_000) throws(RepeaterError) -> Int {
        guard let format = OutputFormat.forPath(path) else {
            throw .input("cannot tell the format of '\(path)' from its extension: use .wav, .aiff, .flac or .ogg")
        }
        Engine.warmUpRuntime()
        let engine = try engine(sampleRate: sampleRate)
        let total = length(of: engine)
        let writer = try AudioFileWriter(path: path, format: format, sampleRate: sampleRate, channelCount: 2)
        let cycle = 1024
        let planar = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: cycle) }
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        defer {
            planar.forEach { $0.deallocate() }
            interleaved.deallocate()
        }
        _ = repeater_rtprobe_init()
        engine.send(.chime(hour: hour, minute: minute))
        var written = 0
        while written < total {
            planar.withUnsafeBufferPointer { outputs in
                repeater_rtprobe_enter()
                engine.render(frameCount: cycle, outputs: outputs.baseAddress!)
                repeater_rtprobe_leave()
            }
            let valid = min(cycle, total - written)
            try writer.write(planar: planar, frameCount: valid, scratch: interleaved)
            written += valid
        }
        writer.close()
        return written
    }

    /// Plays the chime through JACK; returns the exit code.
    public func play() throws(RepeaterError) -> Int32 {
        JackClient.setVerbose(verbose)
        if repeater_signals_install() != 0 { throw RepeaterError(.failure, "cannot install signal handlers") }
        let server = startServer ? try JackServerProcess.startPrivate() : nil
        defer { server?.stop() }
        let client = try JackClient(clientName: clientName, serverName: server?.name ?? serverName)
        defer { client.close() }
        let engine = try engine(sampleRate: client.sampleRate)
        try client.registerOutputs(count: 2)
        Engine.warmUpRuntime()
        client.attach(engine: engine)
        _ = repeater_rtprobe_init()
        try client.activate()
        for warning in client.connect(connect) { Console.warning(warning) }
        engine.send(.chime(hour: hour, minute: minute))
        var endedCycle = -1
        while true {
            var fd = pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)
            _ = poll(&fd, 1, 20)
            if repeater_signal_take() != 0 { return 0 }
            if client.notifications.serverShutdown.load(ordering: .relaxed) {
                throw RepeaterError(.jackShutdown, "the JACK server shut down; stopping")
            }
            while let event = engine.events.pop()?.event {
                if case .chimeEnded = event { endedCycle = engine.status.cycles.load(ordering: .relaxed) }
            }
            // The cycle that carried the last samples has completed downstream too.
            if endedCycle >= 0 && engine.status.cycles.load(ordering: .relaxed) >= endedCycle + 2 { return 0 }
        }
    }
}
