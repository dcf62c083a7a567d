import RepeaterEngine
import RTCheck
import Testing

/// Decodes `bytes` as one JACK MIDI event.
private func decode(_ bytes: [UInt8]) -> MIDIMessage? {
    bytes.withUnsafeBufferPointer { MIDIMessage.decode($0.baseAddress!, count: $0.count) }
}

@Suite("MIDI messages")
struct MIDIMessageTests {
    @Test("control change, note on and off, program change decode on any channel; presses are what a pedal means")
    func decodesWhatRepeaterActsOn() {
        #expect(decode([0xB0, 64, 127]) == MIDIMessage(kind: .controlChange, channel: 0, number: 64, value: 127))
        #expect(decode([0xBF, 65, 64])?.channel == 15)
        #expect(decode([0xBF, 65, 64])?.isPress == true)
        #expect(decode([0xB3, 65, 63])?.isPress == false)  // value < 64: a release
        #expect(decode([0x99, 60, 100]) == MIDIMessage(kind: .noteOn, channel: 9, number: 60, value: 100))
        #expect(decode([0x90, 60, 0])?.isPress == false)  // note on at velocity 0 is a release
        #expect(decode([0x80, 60, 64])?.isPress == false)
        #expect(decode([0xC2, 5]) == MIDIMessage(kind: .programChange, channel: 2, number: 5, value: 127))
        #expect(decode([0xC2, 5])?.isPress == true)
    }

    @Test("SysEx, real-time and system bytes, running status, truncated, overlong and garbage messages decode to nothing")
    func ignoresTheRest() {
        let ignored: [[UInt8]] = [
            [0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7],  // SysEx
            [0xF8], [0xFA], [0xFE], [0xFF],        // clock, start, active sensing, reset
            [0xF2, 0x10, 0x20], [0xF3, 1],         // song position, song select
            [64, 127],                             // running status: data without a status byte
            [0xB0, 64],                            // truncated
            [0xB0], [0xC0],                        // status alone
            [0xB0, 64, 127, 1],                    // overlong
            [0xB0, 0x80, 127], [0x90, 60, 0xFF],   // data bytes ≥ 0x80
            [0xE0, 0, 64], [0xA0, 60, 10], [0xD0, 10],  // pitch bend, aftertouch
        ]
        for bytes in ignored { #expect(decode(bytes) == nil, "\(bytes)") }
        let empty: [UInt8] = [0]
        #expect(empty.withUnsafeBufferPointer { MIDIMessage.decode($0.baseAddress!, count: 0) } == nil)
    }

    @Test("the default map: CC 64–67 and notes 60, 62, 64, 65; every program change selects a loop; rebinding replaces")
    func defaultMap() {
        let table = MIDIBindings()
        func action(_ bytes: [UInt8]) -> MIDIAction { table.action(for: decode(bytes)!) }
        #expect(action([0xB0, 64, 127]) == .playPause)
        #expect(action([0xB5, 65, 127]) == .abHere)
        #expect(action([0xB0, 66, 127]) == .loopToggle)
        #expect(action([0xB0, 67, 127]) == .restart)
        #expect(action([0x90, 60, 1]) == .playPause)
        #expect(action([0x90, 62, 1]) == .abHere)
        #expect(action([0x90, 64, 1]) == .loopToggle)
        #expect(action([0x90, 65, 1]) == .restart)
        #expect(action([0xC0, 0]) == .selectLoop)
        #expect(action([0xC0, 127]) == .selectLoop)
        #expect(action([0xB0, 1, 127]) == .none)
        table.bind(.controlChange, 20, to: .faster)
        table.bind(.controlChange, 64, to: .chime)
        #expect(action([0xB0, 20, 127]) == .faster)
        #expect(action([0xB0, 64, 127]) == .chime)
        table.setDefaults()
        #expect(action([0xB0, 20, 127]) == .none)
        #expect(action([0xB0, 64, 127]) == .playPause)
    }
}

@Suite("Engine: MIDI presses, the transport, command sources")
struct EngineControlTests {
    private func stereoEngine(loop: (a: Int, b: Int)? = nil) -> (Engine, RampFeeder, CycleDriver) {
        let engine = Engine(.init(channelCount: 2, blockFrames: 1024, blockCount: 16, declickFrames: 64, headFrames: 4096, loop: loop))
        return (engine, RampFeeder(engine: engine, totalFrames: 1_000_000), CycleDriver(engine: engine))
    }

    @Test("a pedal's \"A/B here\" takes the frame heard at its own offset in the cycle, JACK's latency subtracted")
    func abHereAtTheEventFrame() {
        let (engine, feeder, driver) = stereoEngine()
        engine.controls.latencyFrames.store(300, ordering: .relaxed)
        driver.run(total: 2560, pattern: [256], feeder: feeder)  // output 0 ..< 2560 carried source 0 ..< 2560
        driver.cycle(256, feeder: feeder, midi: [(37, [0xB0, 65, 127])])  // output 2560 + 37, heard 300 frames later
        driver.run(total: 2560, pattern: [256], feeder: feeder)
        driver.cycle(256, feeder: feeder, midi: [(200, [0x90, 62, 90])])  // a note does it too: output 5376 + 200
        let events = driver.sourcedEvents()
        let points = events.compactMap { event -> (Bool, Int, CommandSource)? in
            if case .pointSet(let isB, let frame) = event.event { return (isB, frame, event.source) } else { return nil }
        }
        #expect(points.count == 2)
        #expect(points.first.map { !$0.0 && $0.1 == 2560 + 37 - 300 && $0.2 == .midi } == true, "\(points)")
        #expect(points.last.map { $0.0 && $0.1 == 5376 + 200 - 300 && $0.2 == .midi } == true, "\(points)")
        do { let value = engine.status.loopOn.load(ordering: .relaxed); #expect(value) }
        do { let value = engine.status.loopA.load(ordering: .relaxed); #expect(value == 2297) }
        do { let value = engine.status.loopB.load(ordering: .relaxed); #expect(value == 5276) }
        let reports = driver.takeReports()
        #expect(reports.map(\.action) == [.abHere, .abHere])
        #expect(reports.allSatisfy { $0.performed })
        #expect(reports.map(\.audibleFrame) == [2297, 5276])
        // The third press turns the loop off and clears A and B.
        driver.cycle(256, feeder: feeder, midi: [(0, [0xB0, 65, 127])])
        do { let value = engine.status.loopOn.load(ordering: .relaxed); #expect(!value) }
        do { let value = engine.status.loopA.load(ordering: .relaxed); #expect(value == 0) }
        do { let value = engine.status.loopB.load(ordering: .relaxed); #expect(value == engine.configuration.sourceFrameCount) }  // the end
    }

    @Test("a pedal's pause starts the fade at its frame: everything before it is exact")
    func pauseAtTheEventFrame() {
        let (engine, feeder, driver) = stereoEngine()
        driver.run(total: 1024, pattern: [256], feeder: feeder)
        driver.cycle(256, feeder: feeder, midi: [(100, [0xB0, 64, 127]), (150, [0xB0, 64, 0])])  // press, release
        expectRamp(driver.output, first: 0, count: 1024 + 100)
        // From the press on, the 64-frame fade: gain 63/64, 62/64, … then silence.
        let value = driver.output[0][1024 + 100]
        #expect(value == rampValue(frame: 1124, channel: 0, channels: 2) * (Float(63) * (1 / Float(64))))
        #expect(driver.output[0][1024 + 100 + 64 ..< 1280].allSatisfy { $0 == 0 })
        do { let value = engine.status.playing.load(ordering: .relaxed); #expect(!value) }
        #expect(driver.events().contains(.playing(false)))
        #expect(driver.takeReports().count == 1)  // the release is not a press
    }

    @Test("garbage on the MIDI port is counted and ignored; while learning, nothing acts and every message is reported")
    func garbageAndLearning() {
        let (engine, feeder, driver) = stereoEngine()
        driver.cycle(256, feeder: feeder, midi: [(0, [0xF0, 1, 2, 0xF7]), (1, [0xF8]), (2, [64, 127]), (3, [0xB0, 64]),
                                                  (4, [0xE0, 0, 0])])
        do { let value = engine.status.midiIgnored.load(ordering: .relaxed); #expect(value == 5) }
        do { let value = engine.status.playing.load(ordering: .relaxed); #expect(value) }
        engine.controls.midiLearning.store(true, ordering: .relaxed)
        driver.cycle(256, feeder: feeder, midi: [(10, [0xB0, 64, 127]), (11, [0xB0, 20, 0])])
        do { let value = engine.status.playing.load(ordering: .relaxed); #expect(value) }  // bound to play/pause, but learning
        let reports = driver.takeReports()
        #expect(reports.count == 2)
        #expect(reports.allSatisfy { !$0.performed && $0.action == .none })
        #expect(reports.last?.message == MIDIMessage(kind: .controlChange, channel: 0, number: 20, value: 0))
    }

    @Test("actions the audio thread leaves to the control thread are reported, not done: faster, a loop by program change; play/pause while driving the transport")
    func controlThreadActions() {
        let (engine, feeder, driver) = stereoEngine()
        engine.midiBindings.bind(.controlChange, 20, to: .faster)
        driver.cycle(256, feeder: feeder, midi: [(0, [0xB0, 20, 127]), (5, [0xC0, 3])])
        engine.controls.transportMode.store(TransportMode.drive.rawValue, ordering: .relaxed)
        driver.cycle(256, feeder: feeder, midi: [(9, [0xB0, 64, 127])])
        let reports = driver.takeReports()
        #expect(reports.map(\.action) == [.faster, .selectLoop, .playPause])
        #expect(reports.allSatisfy { !$0.performed })
        do { let value = engine.status.playing.load(ordering: .relaxed); #expect(value) }
    }

    @Test("following the transport: silent from the start while it stands, the fade in at the cycle it rolls, the fade out at the cycle it stops")
    func followsTheTransport() {
        let engine = Engine(.init(channelCount: 1, blockFrames: 1024, blockCount: 16, declickFrames: 64))
        engine.controls.transportMode.store(TransportMode.follow.rawValue, ordering: .relaxed)
        let feeder = RampFeeder(engine: engine, totalFrames: 1_000_000)
        let driver = CycleDriver(engine: engine)
        for _ in 0..<4 { driver.cycle(256, feeder: feeder, transport: false) }
        #expect(driver.output[0].allSatisfy { $0 == 0 })
        driver.cycle(256, feeder: feeder, transport: true)  // output 1024: the fade in begins at once
        #expect(driver.output[0][1024] == rampValue(frame: 0, channel: 0, channels: 1) * (1 / Float(64)))
        for _ in 0..<3 { driver.cycle(256, feeder: feeder, transport: true) }
        expectRamp([Array(driver.output[0][(1024 + 64)...])], first: 64, count: 1024 - 64)
        driver.cycle(256, feeder: feeder, transport: false)  // output 2048: the fade out begins at once
        #expect(driver.output[0][2048] == rampValue(frame: 1024, channel: 0, channels: 1) * (Float(63) * (1 / Float(64))))
        #expect(driver.output[0][(2048 + 64)...].allSatisfy { $0 == 0 })
        do { let value = engine.status.transportRolling.load(ordering: .relaxed); #expect(!value) }
        let events = driver.sourcedEvents().filter { if case .transport = $0.event { return true } else { return false } }
        #expect(events.map(\.event) == [.transport(rolling: false), .transport(rolling: true), .transport(rolling: false)])
        #expect(events.allSatisfy { $0.source == .transport })
        // Off: the transport no longer matters.
        engine.controls.transportMode.store(TransportMode.off.rawValue, ordering: .relaxed)
        driver.cycle(256, feeder: feeder, transport: false)
        do { let value = engine.status.transportRolling.load(ordering: .relaxed); #expect(value) }
    }

    @Test("every event a command causes carries the command's source; wraps and the end carry none")
    func sources() {
        let (engine, feeder, driver) = stereoEngine()
        engine.send(.setLoop(a: 1000, b: 1500), source: .osc)
        engine.send(.seek(frame: 1200), source: .key)
        engine.send(.chime(hour: 1, minute: 1), source: .stdin)
        engine.send(.pause, source: .transport)
        engine.send(.play, source: .midi)
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        let events = driver.sourcedEvents()
        func source(of match: (EngineEvent) -> Bool) -> CommandSource? { events.first { match($0.event) }?.source }
        #expect(source { if case .loop = $0 { true } else { false } } == .osc)
        #expect(source { if case .seeked = $0 { true } else { false } } == .key)
        #expect(source { if case .chimeStarted = $0 { true } else { false } } == .stdin)
        #expect(source { $0 == .playing(false) } == .transport)
        #expect(source { $0 == .playing(true) } == .midi)
        #expect(source { if case .wrap = $0 { true } else { false } } == .player)
        #expect(CommandSource.player.name == nil)
        #expect(CommandSource.allCases.compactMap(\.name) == ["key", "stdin", "osc", "midi", "transport", "trainer", "web"])
    }

    @Test("MIDI presses and transport changes make no allocation and take no lock on the audio thread", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafe() throws {
        Engine.warmUpRuntime()
        let (engine, feeder, driver) = stereoEngine(loop: (a: 2000, b: 9000))
        engine.controls.transportMode.store(TransportMode.follow.rawValue, ordering: .relaxed)
        driver.cycle(256, feeder: feeder, transport: true)
        rtcheck_thread_reset()
        let presses: [[UInt8]] = [[0xB0, 65, 127], [0xB0, 64, 127], [0x90, 60, 9], [0xB0, 66, 127], [0xB0, 67, 127],
                                  [0xC0, 1], [0xF0, 0xF7], [0xB0, 64, 0], [0xF8]]
        for index in 0..<200 {
            let bytes = presses[index % presses.count]
            driver.cycle(256, feeder: feeder, countRealTime: true, midi: [(index % 256, bytes), ((index * 7) % 256, [0xB0, 65, 127])],
                         transport: index % 17 != 0)
            _ = driver.takeReports()
            _ = driver.events()
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
    }
}

@Suite("waking the control thread")
struct ControlWakeTests {
    /// The JACK binding asks `takeControlWork` after every render and writes the control thread's
    /// eventfd when it says so; the control thread marks itself asleep around its poll.
    @Test("a render that hands the control thread an event wakes it once it sleeps, never twice for one hand-over, and a quiet render never")
    func wakesOnlyForWork() {
        let a = 1000, length = 2000
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 200_000, startFrame: a, blockFrames: 1024, blockCount: 16,
                                  headFrames: 8192, loop: (a: a, b: a + length)))
        let feeder = RampFeeder(engine: engine, totalFrames: 200_000)
        let driver = CycleDriver(engine: engine)
        // Warm up: the start's own events (and the first wrap) are handed over while it is awake.
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        #expect(!engine.takeControlWork(), "awake: no wake-up is written")
        engine.controls.controlAsleep.store(true, ordering: .sequentiallyConsistent)
        #expect(engine.takeControlWork(), "what was handed over while it was awake wakes it when it sleeps")
        let asleep = engine.controls.controlAsleep.load(ordering: .relaxed)
        #expect(!asleep, "the waker marks it awake")
        #expect(!engine.takeControlWork(), "one wake-up for one hand-over")
        _ = driver.events()
        // Asleep through cycles without a wrap: no wake-up; the cycle with a wrap: one.
        engine.controls.controlAsleep.store(true, ordering: .sequentiallyConsistent)
        var wokenAt: [Int] = []
        var rendered = 4096
        for _ in 0..<40 {
            driver.cycle(256, feeder: feeder)
            rendered += 256
            if engine.takeControlWork() {
                wokenAt.append(rendered)
                engine.controls.controlAsleep.store(true, ordering: .sequentiallyConsistent)  // it sleeps again
            }
        }
        let wraps = wrapEvents(driver.events()).map(\.outputFrame)
        #expect(wraps.count == 5)
        // Each wrap wakes it in the cycle that rendered it, and nothing else does.
        #expect(wokenAt == wraps.map { ($0 / 256 + 1) * 256 }, "woken after \(wokenAt), wraps at \(wraps)")
    }
}
