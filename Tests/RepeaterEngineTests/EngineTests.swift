import RepeaterEngine
import RTCheck
import Testing

/// Checks that `output` holds the ramp frames `first ..< first + count` exactly, on every channel.
func expectRamp(_ output: [[Float]], from offset: Int = 0, first: Int, count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let channels = output.count
    var mismatches = 0
    var firstMismatch: (Int, Int)?
    for channel in 0..<channels {
        for i in 0..<count where output[channel][offset + i] != rampValue(frame: first + i, channel: channel, channels: channels) {
            mismatches += 1
            if firstMismatch == nil { firstMismatch = (channel, offset + i) }
        }
    }
    #expect(mismatches == 0, "first mismatch at channel/output frame \(String(describing: firstMismatch))", sourceLocation: sourceLocation)
}

@Suite("Engine")
struct EngineTests {
    @Test("output equals the source bit for bit through irregular cycle sizes", arguments: [1, 2, 6])
    func bitExactIrregularCycles(channels: Int) {
        let total = 100_000
        let engine = Engine(.init(channelCount: channels, blockFrames: 1000, blockCount: 8))
        let feeder = RampFeeder(engine: engine, totalFrames: total)
        let driver = CycleDriver(engine: engine)
        driver.run(total: total + 5000, pattern: [1, 37, 256, 4096, 300, 1], feeder: feeder)
        expectRamp(driver.output, first: 0, count: total)
        for channel in 0..<channels { #expect(driver.output[channel][total...].allSatisfy { $0 == 0 }) }
        do { let ok = engine.status.underruns.load(ordering: .relaxed) == 0; #expect(ok) }
        let events = driver.events()
        do { let ok = events.count == 1; #expect(ok) }
        if case .finished(let frame, _, let outputFrame) = events.first {
            #expect(frame == total)
            #expect(outputFrame == total)
        } else {
            Issue.record("no finished event: \(events)")
        }
    }

    @Test("starting mid-file begins at exactly that frame")
    func startFrame() {
        let engine = Engine(.init(channelCount: 2, startFrame: 12_345, blockFrames: 512, blockCount: 8))
        let feeder = RampFeeder(engine: engine, totalFrames: 50_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 50_000 - 12_345, pattern: [256], feeder: feeder)
        expectRamp(driver.output, first: 12_345, count: 50_000 - 12_345)
    }

    @Test("a late disk gives silence and an underrun, never a wait; playback resumes where it stopped")
    func underrun() {
        let engine = Engine(.init(channelCount: 1, blockFrames: 256, blockCount: 4, declickFrames: 64))
        let feeder = RampFeeder(engine: engine, totalFrames: 100_000)
        let driver = CycleDriver(engine: engine)
        driver.cycle(256, feeder: feeder)  // the feeder fills 4 blocks: frames 0 ..< 1024
        feeder.enabled = false
        driver.run(total: 1280, pattern: [256], feeder: feeder)  // 768 frames more, then two empty cycles
        do { let count = engine.status.underruns.load(ordering: .relaxed); #expect(count == 2) }
        expectRamp(driver.output, first: 0, count: 1024)
        #expect(driver.output[0][1024..<1536].allSatisfy { $0 == 0 })
        feeder.enabled = true
        driver.run(total: 2048, pattern: [256], feeder: feeder)
        // The first 64 frames after the gap fade in, then the stream is exact again, from frame 1024.
        let resumed = Array(driver.output[0][1536...])
        for i in 0..<64 {
            let gain = Float(i + 1) / 64
            #expect(resumed[i] == rampValue(frame: 1024 + i, channel: 0, channels: 1) * gain)
        }
        expectRamp([resumed], from: 64, first: 1024 + 64, count: 2048 - 64)
    }

    @Test("seek fades out, skips stale blocks, and continues exactly at the new frame")
    func seek() {
        let engine = Engine(.init(channelCount: 2, blockFrames: 512, blockCount: 8, declickFrames: 32))
        let feeder = RampFeeder(engine: engine, totalFrames: 200_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 1000, pattern: [100], feeder: feeder)
        do { let ok = engine.send(.seek(frame: 150_000)); #expect(ok) }
        driver.run(total: 4000, pattern: [100], feeder: feeder)
        // 32 frames of fade-out continue the stream from frame 1000 ...
        for i in 0..<32 {
            let gain = Float(31 - i) / 32
            #expect(driver.output[0][1000 + i] == rampValue(frame: 1000 + i, channel: 0, channels: 2) * gain)
        }
        // ... silence until the reader has the new position (here: the next cycle, at output 1100) ...
        #expect(driver.output[0][1032..<1100].allSatisfy { $0 == 0 })
        // ... then the new position fades in and runs exactly.
        for i in 0..<32 {
            let gain = Float(i + 1) / 32
            #expect(driver.output[1][1100 + i] == rampValue(frame: 150_000 + i, channel: 1, channels: 2) * gain)
        }
        expectRamp(driver.output, from: 1132, first: 150_032, count: 5000 - 1132)
        do { let stale = engine.status.staleBlocks.load(ordering: .relaxed); #expect(stale > 0) }
        do { let underruns = engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
        #expect(driver.events().contains(.seeked(frame: 150_000)))
    }

    @Test("pause stops consuming after its fade; play continues from the same frame")
    func pauseAndPlay() {
        let engine = Engine(.init(channelCount: 1, blockFrames: 512, blockCount: 8, declickFrames: 16))
        let feeder = RampFeeder(engine: engine, totalFrames: 100_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 300, pattern: [100], feeder: feeder)
        engine.send(.pause)
        driver.run(total: 500, pattern: [100], feeder: feeder)
        do { let ok = engine.status.playheadFrame.load(ordering: .relaxed) == 316; #expect(ok) }
        #expect(driver.output[0][316..<800].allSatisfy { $0 == 0 })
        engine.send(.play)
        driver.run(total: 500, pattern: [100], feeder: feeder)
        expectRamp(driver.output, from: 800 + 16, first: 316 + 16, count: 484)
        do { let ok = engine.status.underruns.load(ordering: .relaxed) == 0; #expect(ok) }
    }

    @Test("the render path makes no allocation and takes no lock, with commands, seeks, underruns and the end", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
        let engine = Engine(.init(channelCount: 2, blockFrames: 1024, blockCount: 8, declickFrames: 64))
        let feeder = RampFeeder(engine: engine, totalFrames: 400_000)
        let driver = CycleDriver(engine: engine)
        Engine.warmUpRuntime()  // as the player does before activation
        driver.run(total: 2048, pattern: [256], feeder: feeder)
        _ = driver.events()
        rtcheck_thread_reset()
        let commands: [EngineCommand] = [.pause, .play, .toggle, .toggle, .seek(frame: 390_000), .seek(frame: 1000)]
        for (index, command) in commands.enumerated() {
            engine.send(command)
            driver.run(total: 2000 + index * 7, pattern: [1, 37, 256, 4096], feeder: feeder, countRealTime: true)
        }
        feeder.enabled = false
        driver.run(total: 20_000, pattern: [256], feeder: feeder, countRealTime: true)  // underruns
        feeder.enabled = true
        engine.send(.seek(frame: 399_000))
        driver.run(total: 4000, pattern: [256], feeder: feeder, countRealTime: true)  // the end
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0)
        #expect(counts.frees == 0)
        #expect(counts.locks == 0)
        do { let ok = engine.status.underruns.load(ordering: .relaxed) > 0; #expect(ok) }
        do { let ok = engine.status.finishedCycle.load(ordering: .relaxed) >= 0; #expect(ok) }
    }

    @Test("the allocation counter does see an allocation on a marked thread", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func counterCatchesAllocation() throws {
        rtcheck_thread_reset()
        rtcheck_enter()
        let array = [Int](repeating: 1, count: Int.random(in: 100...200))
        rtcheck_leave()
        do { let ok = array.count >= 100; #expect(ok) }
        #expect(rtcheck_thread_counts().allocs >= 1)
    }
}
