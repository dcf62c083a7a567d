import RepeaterEngine
import RTCheck

/// The value a "ramp" source carries at `frame` on `channel`: an exact float that encodes both, so
/// that any missing, repeated, zeroed or swapped sample shows.
func rampValue(frame: Int, channel: Int, channels: Int) -> Float {
    Float((frame * channels + channel + 1) % (1 << 23)) / Float(1 << 23)
}

/// Stands in for the disk reader: fills the engine's block ring from a function of the frame, and
/// follows the engine's seek requests, synchronously, so every test is deterministic.
final class RampFeeder {
    let engine: Engine
    let totalFrames: Int
    /// The source signal (the ramp unless a test gives another).
    var value: (Int, Int) -> Float
    var position: Int
    var generation: UInt32 = 0
    var atEnd = false
    /// When false, the feeder delivers nothing (a disk that is late).
    var enabled = true

    init(engine: Engine, totalFrames: Int, value: ((Int, Int) -> Float)? = nil) {
        self.engine = engine
        self.totalFrames = totalFrames
        let channels = engine.channelCount
        self.value = value ?? { rampValue(frame: $0, channel: $1, channels: channels) }
        position = engine.configuration.startFrame
    }

    func fill() {
        while let request = engine.readerRequests.pop() {
            switch request {
            case .seek(let frame, let newGeneration):
                position = min(frame, totalFrames)
                generation = newGeneration
                atEnd = false
            case .loadHead(let frame, let count, let slot):
                let n = max(0, min(count, totalFrames - frame))
                for channel in 0..<engine.channelCount {
                    let destination = engine.heads.channel(channel, ofSlot: slot)
                    for i in 0..<n { destination[i] = value(frame + i, channel) }
                }
                engine.headLoaded.push(HeadLoaded(slot: slot, frame: frame, frameCount: n))
            }
        }
        guard enabled else { return }
        while !atEnd, let slot = engine.blocks.writableSlot() {
            let count = min(engine.blocks.blockFrames, totalFrames - position)
            if count == 0 {
                engine.blocks.publish(BlockTag(startFrame: position, frameCount: 0, generation: generation, isEnd: true))
                atEnd = true
                break
            }
            for channel in 0..<engine.channelCount {
                let destination = engine.blocks.channel(channel, ofSlot: slot)
                for i in 0..<count {
                    destination[i] = value(position + i, channel)
                }
            }
            engine.blocks.publish(BlockTag(startFrame: position, frameCount: count, generation: generation))
            position += count
        }
    }
}

/// Drives an engine the way JACK does: cycles of given sizes, collecting what the ports carried.
final class CycleDriver {
    let engine: Engine
    private(set) var output: [[Float]]
    /// Events drained after every cycle (as the control thread does), so none is ever lost.
    private var collected: [SourcedEvent] = []
    private let buffers: [UnsafeMutablePointer<Float>]
    let maxCycle: Int

    init(engine: Engine, maxCycle: Int = 8192) {
        self.engine = engine
        self.maxCycle = maxCycle
        output = Array(repeating: [], count: engine.renderChannelCount)
        buffers = (0..<engine.renderChannelCount).map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: maxCycle)
            buffer.initialize(repeating: .nan, count: maxCycle)
            return buffer
        }
    }

    deinit { buffers.forEach { $0.deallocate() } }

    /// MIDI reports drained after every cycle.
    private(set) var reports: [MIDIReport] = []

    /// Renders one cycle (the feeder is given a chance to fill first, like the disk thread would).
    /// `midi` are this cycle's MIDI events (frame offset, bytes), `transport` the transport's state,
    /// handed to the engine as the JACK binding does before it renders.
    func cycle(_ frameCount: Int, feeder: RampFeeder?, countRealTime: Bool = false, midi: [(Int, [UInt8])] = [],
               transport: Bool? = nil) {
        feeder?.fill()
        for buffer in buffers { buffer.update(repeating: .nan, count: frameCount) }  // catch unwritten frames
        // The events' bytes in memory of their own, as JACK's port buffer holds them.
        let eventBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, midi.count * 8))
        defer { eventBytes.deallocate() }
        for (index, event) in midi.enumerated() {
            for (k, byte) in event.1.prefix(8).enumerated() { eventBytes[index * 8 + k] = byte }
        }
        let offsets = midi.map(\.0), counts = midi.map { min(8, $0.1.count) }
        buffers.withUnsafeBufferPointer { pointers in
            if countRealTime { rtcheck_enter() }
            if let transport { engine.setTransport(rolling: transport) }
            var index = 0
            while index < offsets.count {
                engine.receiveMIDI(offset: offsets[index], bytes: eventBytes + index * 8, count: counts[index])
                index += 1
            }
            engine.render(frameCount: frameCount, outputs: pointers.baseAddress!)
            if countRealTime { rtcheck_leave() }
        }
        for channel in 0..<engine.renderChannelCount {
            output[channel].append(contentsOf: UnsafeBufferPointer(start: buffers[channel], count: frameCount))
        }
        while let event = engine.events.pop() { collected.append(event) }
        while let report = engine.midiReports.pop() { reports.append(report) }
    }

    /// The MIDI reports since the last call.
    func takeReports() -> [MIDIReport] {
        defer { reports.removeAll() }
        return reports
    }

    /// Renders cycles whose sizes repeat `pattern` until `total` frames are out.
    func run(total: Int, pattern: [Int], feeder: RampFeeder?, countRealTime: Bool = false) {
        var done = 0
        var index = 0
        while done < total {
            let size = min(pattern[index % pattern.count], total - done)
            cycle(size, feeder: feeder, countRealTime: countRealTime)
            done += size
            index += 1
        }
    }

    /// Renders 256-frame cycles until the engine reports the end (at most `maxCycles`).
    func runUntilFinished(feeder: RampFeeder, maxCycles: Int = 2000) {
        var cycles = 0
        while engine.status.finishedCycle.load(ordering: .relaxed) < 0, cycles < maxCycles {
            cycle(256, feeder: feeder)
            cycles += 1
        }
    }

    /// The events since the last call.
    func events() -> [EngineEvent] { sourcedEvents().map(\.event) }

    /// The events since the last call, with the source of the command that caused each.
    func sourcedEvents() -> [SourcedEvent] {
        while let event = engine.events.pop() { collected.append(event) }
        defer { collected.removeAll() }
        return collected
    }
}

/// The source frame a ramp sample encodes (channel 0 of an N-channel ramp), or nil for silence.
func decodeRamp(_ value: Float, channels: Int) -> Int? {
    if value == 0 { return nil }
    let code = Int((value * Float(1 << 23)).rounded()) - 1
    return code / channels
}
