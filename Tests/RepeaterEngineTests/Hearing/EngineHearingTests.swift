import Foundation
import RepeaterEngine
import RTCheck
import Testing

/// A stereo source: a 440 Hz tone in the middle (both channels) and a 660 Hz tone hard left.
private func centredAndLeft(_ frame: Int, _ channel: Int) -> Float {
    let centre = Float(0.3 * sin(2 * Double.pi * 440 * Double(frame) / 48_000))
    let left = Float(0.3 * sin(2 * Double.pi * 660 * Double(frame) / 48_000))
    return centre + (channel == 0 ? left : 0)
}

@Suite("Engine: hearing the part through render")
struct EngineHearingTests {
    @Test("isolate sides in render: the centred tone falls by more than 20 dB, the side tone stays within 1 dB; the delay is reported; back to off, bit for bit")
    func sidesThroughRender() {
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 960_000, blockFrames: 2048, blockCount: 16))
        let feeder = RampFeeder(engine: engine, totalFrames: 960_000, value: centredAndLeft)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 48_000, pattern: [256], feeder: feeder)
        #expect(engine.status.processingLatency.load(ordering: .relaxed) == 0)
        engine.send(.isolate(.sides))
        driver.run(total: 96_000, pattern: [256, 100], feeder: feeder)
        #expect(engine.status.processingLatency.load(ordering: .relaxed) == 2048)
        let events = driver.events()
        #expect(events.contains(.isolation(delayFrames: 2048)))
        let settled = 96_000..<144_000
        let centreBefore = toneLevel(driver.output[0], 0..<48_000, 440), centreAfter = toneLevel(driver.output[0], settled, 440)
        let sideBefore = toneLevel(driver.output[0], 0..<48_000, 660), sideAfter = toneLevel(driver.output[0], settled, 660)
        print(String(format: "sides in render: centred 440 Hz %.1f → %.1f dB, left 660 Hz %.1f → %.1f dB", centreBefore, centreAfter, sideBefore, sideAfter))
        #expect(centreAfter < centreBefore - 20)
        #expect(abs(sideAfter - sideBefore) < 1)
        // Back to off: after the crossfade, the source frames again, bit for bit.
        engine.send(.isolate(.off))
        driver.run(total: 48_000, pattern: [256], feeder: feeder)
        #expect(engine.status.processingLatency.load(ordering: .relaxed) == 0)
        let tail = 180_000..<192_000
        var exact = true
        for frame in tail where driver.output[0][frame] != centredAndLeft(frame, 0) || driver.output[1][frame] != centredAndLeft(frame, 1) { exact = false }
        #expect(exact, "off is not bit-exact after the switch back")
    }

    @Test("a mono source: bass and a band work, a stereo mode is refused and changes nothing")
    func monoRefusesStereoModes() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 96_000, blockFrames: 2048, blockCount: 16))
        let feeder = RampFeeder(engine: engine, totalFrames: 96_000) { frame, _ in Float(0.3 * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)) }
        let driver = CycleDriver(engine: engine)
        engine.send(.isolate(.centre))
        driver.run(total: 4800, pattern: [256], feeder: feeder)
        #expect(driver.events().contains(.isolationRefused))
        #expect(engine.status.processingLatency.load(ordering: .relaxed) == 0)
        engine.send(.isolate(.bass))
        driver.run(total: 48_000, pattern: [256], feeder: feeder)
        #expect(driver.events().contains(.isolation(delayFrames: 0)))  // mono: no spectral frame, no delay
        let level = toneLevel(driver.output[0], 24_000..<52_800, 1000)
        #expect(level < -20 - 10.5, "1 kHz through the bass band: \(level) dB")
    }

    @Test("the tap carries the heard mix (after isolation) as mono while on, and nothing while off")
    func tap() {
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 96_000, blockFrames: 2048, blockCount: 16))
        let feeder = RampFeeder(engine: engine, totalFrames: 96_000, value: centredAndLeft)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        var frames: [Float] = []
        engine.tap.drain(into: &frames)
        #expect(frames.isEmpty)
        engine.controls.tapOn.store(true, ordering: .relaxed)
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        engine.tap.drain(into: &frames)
        #expect(frames.count == 4096)
        #expect(zip(frames.indices, frames).allSatisfy { abs($1 - (centredAndLeft(4096 + $0, 0) + centredAndLeft(4096 + $0, 1)) / 2) < 1e-6 })
    }

    @Test("isolation switches, EQ changes and the tap while playing and stretching: no allocation, no lock", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() {
        Engine.warmUpRuntime()
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 960_000, blockFrames: 1024, blockCount: 16, headFrames: 96_000,
                                  loop: (a: 10_000, b: 58_000)))
        let feeder = RampFeeder(engine: engine, totalFrames: 960_000, value: centredAndLeft)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 8192, pattern: [256], feeder: feeder)
        queueStretcher(engine, speed: 0.8)
        var drained: [Float] = []
        drained.reserveCapacity(1 << 17)
        rtcheck_thread_reset()
        engine.controls.tapOn.store(true, ordering: .relaxed)
        let modes: [IsolationMode] = [.centre, .sides, .bass, .band(lowHz: 200, highHz: 2000), .left, .right, .through, .off]
        for step in 0..<32 {
            engine.send(.isolate(modes[step % modes.count]))
            engine.send(.equalize(lowDB: Double(step % 5) * -6, midDB: 3, highDB: step % 2 == 0 ? 0 : -12))
            if step == 8 { engine.controls.speed.store(0.8, ordering: .relaxed) }
            if step == 24 { engine.controls.speed.store(1, ordering: .relaxed) }
            driver.run(total: 9600, pattern: [256, 37, 1024], feeder: feeder, countRealTime: true)
            drained.removeAll(keepingCapacity: true)
            engine.tap.drain(into: &drained)
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
        reclaimStretchers(engine)
    }
}
