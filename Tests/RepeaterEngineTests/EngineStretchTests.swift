import Foundation
import RepeaterEngine
import RTCheck
import Testing

/// Queues a primed stretcher, as the control thread's supply does.
func queueStretcher(_ engine: Engine, kind: Stretcher.Kind = .finer, speed: Double = 1) {
    let pointer = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
    pointer.initialize(to: Stretcher(kind: kind, sampleRate: 48_000, channelCount: engine.channelCount, timeRatio: 1 / speed))
    engine.freshStretchers.push(UInt(bitPattern: pointer))
}

/// Frees what the engine handed back.
func reclaimStretchers(_ engine: Engine) {
    while let bits = engine.usedStretchers.pop() {
        let pointer = UnsafeMutablePointer<Stretcher>(bitPattern: bits)!
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

@Suite("Engine with the stretcher")
struct EngineStretchTests {
    @Test("speed 0.8 through the engine: 440 ± 1 Hz, length × 1.25 within 0.5 %, the tail played out")
    func speed() {
        let frames = 5 * 48_000
        var configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: frames, blockFrames: 2048, blockCount: 16)
        configuration.prerollFramesPerCycle = Int.max  // primed before the first frame, as offline
        let engine = Engine(configuration)
        engine.controls.speed.store(0.8, ordering: .relaxed)
        queueStretcher(engine)
        let feeder = RampFeeder(engine: engine, totalFrames: frames) { frame, _ in Float(0.5 * sin(2 * Double.pi * 440 * Double(frame) / 48_000)) }
        let driver = CycleDriver(engine: engine)
        driver.runUntilFinished(feeder: feeder)
        let output = driver.output[0]
        let events = driver.events()
        guard case .finished(_, _, let end)? = events.first(where: { if case .finished = $0 { return true } else { return false } }) else {
            Issue.record("no end")
            return
        }
        #expect(abs(Double(end) / (Double(frames) / 0.8) - 1) <= 0.005, "output \(end) frames")
        let frequency = measuredFrequency(output, in: 48_000..<(end - 48_000))
        #expect(abs(frequency - 440) <= 1, "\(frequency) Hz")
    }

    @Test("bit-exact bypass at speed 1, before and after a trip to 0.8 and back")
    func bypassTrip() {
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 2_000_000, blockFrames: 1024, blockCount: 16, declickFrames: 64))
        let feeder = RampFeeder(engine: engine, totalFrames: 2_000_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 20_000, pattern: [256], feeder: feeder)
        expectRamp(driver.output, first: 0, count: 20_000)
        queueStretcher(engine)
        engine.controls.speed.store(0.8, ordering: .relaxed)
        driver.run(total: 40_000, pattern: [256], feeder: feeder)
        engine.controls.speed.store(1, ordering: .relaxed)
        driver.run(total: 60_000, pattern: [256], feeder: feeder)
        reclaimStretchers(engine)
        // After the return: a long exact run of the ramp again (after the 64-frame fade in).
        let tail = Array(driver.output[0][100_000...])
        let frames = tail.map { decodeRamp($0, channels: 2) }
        let start = frames.firstIndex { $0 != nil }!
        let first = frames[start + 64]!
        expectRamp(driver.output.map { Array($0[(100_000 + start + 64)...]) }, first: first, count: 20_000 - start - 64)
        do { let underruns = engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
    }

    @Test("switching to the stretcher, speed sweeps and loop wraps while stretching: no allocation, no lock", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
        Engine.warmUpRuntime()
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 400_000, blockFrames: 1024, blockCount: 16, headFrames: 96_000,
                                  loop: (a: 10_000, b: 58_000)))
        let feeder = RampFeeder(engine: engine, totalFrames: 400_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 8192, pattern: [256], feeder: feeder)
        rtcheck_thread_reset()
        queueStretcher(engine, speed: 0.75)  // primed on this (control) thread at the ratio it starts with
        engine.controls.speed.store(0.75, ordering: .relaxed)
        for step in 0..<40 {
            if step == 39 { engine.controls.speed.store(1, ordering: .relaxed) }  // and back to bypass
            if step < 39 { engine.controls.speed.store(0.5 + Double(step % 10) * 0.15, ordering: .relaxed) }
            driver.run(total: 12_000, pattern: [256, 37, 1024], feeder: feeder, countRealTime: true)
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
        do { let passes = engine.status.passes.load(ordering: .relaxed); #expect(passes >= 5) }
    }
}

@Suite("Engine: loops while stretching")
struct EngineStretchLoopTests {
    @Test("a 1 s loop at speed 0.75 repeats every 1.3333 s of output; over 20 loops the drift stays under one period")
    func loopDrift() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 480_000, startFrame: 48_000, blockFrames: 2048, blockCount: 16,
                                  headFrames: 96_000, loop: (a: 48_000, b: 96_000)))
        engine.controls.speed.store(0.75, ordering: .relaxed)
        queueStretcher(engine, speed: 0.75)
        let feeder = RampFeeder(engine: engine, totalFrames: 480_000) { frame, _ in Float(0.3 * sin(2 * Double.pi * 330 * Double(frame) / 48_000)) }
        let driver = CycleDriver(engine: engine)
        driver.run(total: 23 * 64_000, pattern: [256], feeder: feeder)
        let wraps = wrapEvents(driver.events())
        #expect(wraps.count >= 21)
        let outputs = wraps.prefix(21).map(\.outputFrame)
        let drift = (outputs[20] - outputs[0]) - 20 * 64_000
        #expect(abs(drift) < 256, "20 loops took \(outputs[20] - outputs[0]) output frames, drift \(drift)")
        for (earlier, later) in zip(outputs, outputs.dropFirst()) { #expect(abs((later - earlier) - 64_000) < 256) }
        reclaimStretchers(engine)
    }

    @Test("the same, heard: a click at A comes out of the stretcher every 64000 frames, 20 loops within one period")
    func loopDriftInTheAudio() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 480_000, startFrame: 48_000, blockFrames: 2048, blockCount: 16,
                                  headFrames: 96_000, loop: (a: 48_000, b: 96_000)))
        engine.controls.speed.store(0.75, ordering: .relaxed)
        queueStretcher(engine, speed: 0.75)
        // Quiet noise-free source with a short burst at 1.25 s (inside the loop): one marker per pass.
        let feeder = RampFeeder(engine: engine, totalFrames: 480_000) { frame, _ in
            let t = frame - 60_000
            return (0..<96).contains(t) ? Float(0.9 * sin(2 * Double.pi * Double(t) / 24)) : 0
        }
        let driver = CycleDriver(engine: engine)
        driver.run(total: 23 * 64_000, pattern: [256], feeder: feeder)
        var markers: [Int] = []
        for (n, value) in driver.output[0].enumerated() where abs(value) > 0.3 {
            if let last = markers.last, n - last < 20_000 { continue }
            markers.append(n)
        }
        #expect(markers.count >= 21)
        if markers.count >= 21 {
            let drift = (markers[20] - markers[0]) - 20 * 64_000
            #expect(abs(drift) < 256, "20 loops took \(markers[20] - markers[0]) output frames, drift \(drift)")
        }
        reclaimStretchers(engine)
    }
}
