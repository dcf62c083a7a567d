import Foundation
import RepeaterEngine
import Synchronization
import Testing

/// Measured timings, once per flavour and rate for the whole suite (R3: a second or two of CPU each).
private let measuredTimings = Mutex<[String: StretchTiming]>([:])
private func measured(consistent: Bool, sampleRate: Int) -> StretchTiming {
    let key = "\(consistent) \(sampleRate)"
    if let known = measuredTimings.withLock({ $0[key] }) { return known }
    let timing = StretchTiming.measure(kind: .finer, pitchConsistent: consistent, sampleRate: sampleRate)
    measuredTimings.withLock { $0[key] = timing }
    return timing
}

/// An engine looping A = 1 s … B = 2 s of a source at `sourceRate` on an output at `outputRate`,
/// at `speed` and `pitch`, with a stretcher as the player's supply makes one (pitch-consistent
/// where the pitch or the rates ask for it, with its measured timing), and `maxPasses` passes.
private func loopingEngine(speed: Double, pitch: Double = 0, sourceRate: Int, outputRate: Int, maxPasses: Int = 0,
                           source: @escaping (Int) -> Float) -> (Engine, RampFeeder) {
    let base = Double(sourceRate) / Double(outputRate)
    let consistent = sourceRate != outputRate || pitch != 0
    let configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: sourceRate * 10, startFrame: sourceRate,
                                             blockFrames: 2048, blockCount: 16, headFrames: 96_000,
                                             loop: (a: sourceRate, b: 2 * sourceRate), maxPasses: maxPasses,
                                             sampleRate: outputRate, sourceSampleRate: sourceRate)
    let engine = Engine(configuration)
    engine.controls.speed.store(speed, ordering: .relaxed)
    engine.controls.pitchSemitones.store(pitch, ordering: .relaxed)
    let pointer = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
    if Stretcher.Flavour(speed: speed, pitch: pitch, baseRate: base) == .resampler {  // (speed 1, pitch 0: libsoxr, not Rubber Band)
        pointer.initialize(to: Stretcher(resamplingFrom: sourceRate, to: outputRate, channelCount: 1)!)
    } else {
        pointer.initialize(to: Stretcher(kind: .finer, sampleRate: outputRate, channelCount: 1, timeRatio: 1 / (speed * base),
                                         pitchScale: base * pow(2, pitch / 12), pitchConsistent: consistent,
                                         timing: measured(consistent: consistent, sampleRate: outputRate)))
    }
    engine.freshStretchers.push(UInt(bitPattern: pointer))
    return (engine, RampFeeder(engine: engine, totalFrames: sourceRate * 10) { frame, _ in source(frame) })
}

@Suite("Stretcher timing: marks where the stretched output is heard")
struct StretchTimingTests {
    @Test("a pitch-consistent R3 stretcher's lag and start offset depend on step ÷ pitch scale alone (within 10 frames at scales 0.5, 0.92 and 2)",
          arguments: [(0.5, 0.5), (1.0, 0.918_75), (1.5, 2.0)])
    func ratioRule(speed: Double, scale: Double) {
        let shifted = StretchTiming.measure(speed: speed, pitchScale: scale, kind: .finer, sampleRate: 48_000)
        let plain = StretchTiming.measure(speed: speed / scale, pitchScale: 1, kind: .finer, sampleRate: 48_000)
        print("timing at speed \(speed), pitch scale \(scale): lag \(shifted.lag), start offset \(shifted.startOffset); at ratio \(speed / scale), scale 1: \(plain.lag), \(plain.startOffset)")
        #expect(abs(shifted.lag - plain.lag) <= 10)
        #expect(abs(shifted.startOffset - plain.startOffset) <= 10)
    }

    @Test("each wrap is reported where the pass's first burst is heard (its energy centre within 1 ms), with a file at another rate and with the pitch shifted",
          arguments: [(0.75, 0.0, 48_000, 48_000), (0.75, 0.0, 44_100, 48_000), (1.0, 0.0, 44_100, 48_000), (0.75, 0.0, 48_000, 44_100), (0.75, 5.0, 48_000, 48_000)])
    func wrapsWhereHeard(speed: Double, pitch: Double, sourceRate: Int, outputRate: Int) {
        // A burst of 96 frames at A: one marker a pass.
        let (engine, feeder) = loopingEngine(speed: speed, pitch: pitch, sourceRate: sourceRate, outputRate: outputRate) { frame in
            let t = frame - sourceRate
            return (0..<96).contains(t) ? Float(0.9 * sin(2 * Double.pi * Double(t) / 24)) : 0
        }
        let driver = CycleDriver(engine: engine)
        let step = speed * Double(sourceRate) / Double(outputRate)
        driver.run(total: Int(6 * Double(sourceRate) / step), pattern: [256], feeder: feeder)
        // (a wrap whose window runs past the output's end has its burst cut off: not judged)
        let wraps = wrapEvents(driver.events()).map(\.outputFrame).filter { $0 + 6000 <= driver.output[0].count }
        #expect(wraps.count >= 4)
        var distances: [Double] = []
        for wrap in wraps {
            var energy = 0.0, moment = 0.0
            for n in max(0, wrap - 6000)..<min(driver.output[0].count, wrap + 6000) {
                let e = Double(driver.output[0][n]) * Double(driver.output[0][n])
                energy += e
                moment += e * Double(n)
            }
            guard energy > 0 else { continue }
            distances.append(moment / energy - Double(wrap) - 47.5 / step)  // less the burst's own centre
        }
        let oneMillisecond = Double(outputRate) / 1000
        print("wraps at speed \(speed), pitch \(pitch), \(sourceRate) → \(outputRate) Hz: burst heard \(distances.map { String(format: "%.1f", $0) }) frames after the wrap")
        #expect(distances.count == wraps.count)
        for distance in distances { #expect(abs(distance) <= oneMillisecond, "a pass's first burst heard \(distance) frames from its wrap") }
        reclaimStretchers(engine)
    }

    @Test("the last pass of --loops 2 ends with its wrap, and the engine ends after it, whatever the rates (it lost it at 48 → 44.1 kHz)",
          arguments: [(0.75, 48_000, 44_100), (1.0, 48_000, 44_100), (0.75, 44_100, 48_000), (0.75, 48_000, 48_000)])
    func lastPass(speed: Double, sourceRate: Int, outputRate: Int) {
        let (engine, feeder) = loopingEngine(speed: speed, sourceRate: sourceRate, outputRate: outputRate, maxPasses: 2) { frame in
            Float(0.3 * sin(Double(frame) * 0.05))
        }
        let driver = CycleDriver(engine: engine)
        driver.runUntilFinished(feeder: feeder)
        let events = driver.events()
        let wraps = events.compactMap { event -> (count: Int, outputFrame: Int)? in
            if case .wrap(let count, _, _, let outputFrame) = event { return (count, outputFrame) } else { return nil }
        }
        let ends = events.compactMap { event -> Int? in if case .finished(_, _, let outputFrame) = event { return outputFrame } else { return nil } }
        print("--loops 2 at speed \(speed), \(sourceRate) → \(outputRate) Hz: wraps \(wraps), end \(ends)")
        #expect(wraps.map(\.count) == [1, 2])
        #expect(ends.count == 1)
        if let last = wraps.last, let end = ends.first {
            #expect(end >= last.outputFrame)
            // Each pass lasts the loop over the step, within a period.
            let passFrames = Double(sourceRate) / (speed * Double(sourceRate) / Double(outputRate))
            #expect(abs(Double(last.outputFrame - wraps[0].outputFrame) - passFrames) <= 256)
        }
        reclaimStretchers(engine)
    }
}
