import Foundation
import RepeaterEngine
import RepeaterTestSupport
import RTCheck
import Testing

@Suite("Engine: a file at another rate, through the resampler (issue 30)")
struct ResampleQualityTests {
    /// A sine at `frequency` (amplitude 0.5) in a file at `sourceRate`, played by an engine at
    /// `outputRate` at speed 1: 0.5 s of output after the first 0.2 s.
    static func tone(_ frequency: Double, sourceRate: Int, outputRate: Int) -> (samples: ArraySlice<Float>, play: ResampledPlay) {
        let play = ResampledPlay(sourceRate: sourceRate, outputRate: outputRate, sourceFrames: sourceRate * 2) { frame, _ in
            Float(0.5 * sin(2 * Double.pi * frequency * Double(frame) / Double(sourceRate)))
        }
        play.run(outputRate * 3 / 4)
        play.finish()
        let from = play.heardFrom + outputRate / 5
        return (play.driver.output[0][from..<(from + outputRate / 2)], play)
    }

    @Test("a 1 kHz sine, 44.1 → 48 kHz and 48 → 44.1 kHz: THD+N at most −100 dB, at 1000 Hz exactly, through libsoxr (no stretcher)")
    func thdN() {
        for (from, to) in [(44_100, 48_000), (48_000, 44_100)] {
            let (samples, play) = Self.tone(1000, sourceRate: from, outputRate: to)
            let fit = fitSine(samples, frequency: 1000, sampleRate: Double(to))
            print(String(format: "1 kHz sine, %.1f → %.1f kHz: amplitude %.6f (%.4f dB), THD+N %.1f dB", Double(from) / 1000, Double(to) / 1000,
                         fit.amplitude, 20 * log10(fit.amplitude / 0.5), fit.residualDB))
            #expect(fit.residualDB <= -100, "THD+N \(fit.residualDB) dB, \(from) → \(to)")
            #expect(abs(20 * log10(fit.amplitude / 0.5)) < 0.01)
            #expect(play.supply.flavours.allSatisfy { $0 == .resampler }, "no Rubber Band: \(play.supply.flavours)")
            #expect(play.engine.status.underruns.load(ordering: .relaxed) == 0)
        }
    }

    @Test("passband flatness to 20 kHz and the aliasing of a 21 kHz sine, both ways (printed; flat within 0.05 dB, spurious below −90 dB)")
    func passbandAndAliasing() {
        let frequencies = [20.0, 100, 1000, 5000, 10_000, 15_000, 18_000, 19_000, 20_000]
        for (from, to) in [(44_100, 48_000), (48_000, 44_100)] {
            var line = String(format: "%.1f → %.1f kHz, gain (dB):", Double(from) / 1000, Double(to) / 1000)
            var worst = 0.0
            for frequency in frequencies {
                let fit = fitSine(Self.tone(frequency, sourceRate: from, outputRate: to).samples, frequency: frequency, sampleRate: Double(to))
                let gain = 20 * log10(fit.amplitude / 0.5)
                worst = max(worst, abs(gain))
                line += String(format: " %g Hz %+.4f", frequency, gain)
            }
            print(line)
            #expect(worst <= 0.05, "\(from) → \(to): the passband is off by \(worst) dB")
            // 21 kHz lies between the passband's end (91 % of the lower Nyquist, 20.1 kHz) and 22.05 kHz:
            // attenuated, and whatever else comes out (images at 44.1 − 21 = 23.1 kHz going up, folded
            // energy going down) is measured against it.
            let fit = fitSine(Self.tone(21_000, sourceRate: from, outputRate: to).samples, frequency: 21_000, sampleRate: Double(to))
            print(String(format: "  a 21 kHz sine: gain %.2f dB, everything else (images, aliases, noise) %.1f dB below it",
                         20 * log10(fit.amplitude / 0.5), -fit.residualDB))
            #expect(fit.residualDB <= -90, "spurious \(fit.residualDB) dB at 21 kHz, \(from) → \(to)")
        }
    }

    @Test("the engine's output is libsoxr's own resampling of the whole file, frame for frame (nothing lost, repeated or shifted)")
    func sameAsOneShot() throws {
        let frames = 3 * 44_100
        func source(_ frame: Int) -> Float { Float(0.3 * sin(2 * Double.pi * 440 * Double(frame) / 44_100) + 0.2 * sin(2 * Double.pi * 3_150 * Double(frame) / 44_100)) }
        let play = ResampledPlay(sourceFrames: frames) { frame, _ in source(frame) }
        play.run(3 * 48_000 + 4096)
        play.finish()
        let output = Array(play.driver.output[0][play.heardFrom...])
        // The same signal through one fresh resampler, in one go.
        var reference = Stretcher(resamplingFrom: 44_100, to: 48_000, channelCount: 1)!
        let input = UnsafeMutablePointer<Float>.allocate(capacity: frames + 8192 + 4096)
        input.initialize(repeating: 0, count: frames + 8192 + 4096)
        defer { input.deallocate() }
        for n in 0..<frames { input[n] = source(n) }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 1 << 16)
        defer { scratch.deallocate() }
        var inputPointer = input, scratchPointer = scratch
        var expected: [Float] = []
        for start in stride(from: 0, to: frames + 8192, by: 4096) {
            withUnsafePointer(to: &inputPointer) { reference.process($0, offset: start, frameCount: 4096) }
            let got = withUnsafePointer(to: &scratchPointer) { reference.retrieve(into: $0, offset: 0, frameCount: 1 << 16) }
            expected.append(contentsOf: UnsafeBufferPointer(start: scratch, count: got))
        }
        let count = 3 * 48_000
        #expect(expected.count >= count && output.count >= count)
        var largest: Float = 0
        for n in 0..<min(count, min(expected.count, output.count)) { largest = max(largest, abs(output[n] - expected[n])) }
        print("engine against one resampler over the whole file: largest difference \(largest)")
        #expect(largest <= 1e-5, "the engine's output differs from the file resampled in one go by \(largest)")
    }

    /// Plays a 220 Hz tone in a 44.1 kHz file on a 48 kHz engine through `steps` (speed, pitch, seconds).
    static func play(_ steps: [(Double, Double, Double)], kind: Stretcher.Kind) -> (output: [Float], play: ResampledPlay) {
        let play = ResampledPlay(sourceFrames: 30 * 44_100, channels: 2, kind: kind, measured: true) { frame, _ in
            Float(0.5 * sin(2 * Double.pi * 220 * Double(frame) / 44_100))
        }
        for (speed, pitch, seconds) in steps {
            play.engine.controls.speed.store(speed, ordering: .relaxed)
            play.engine.controls.pitchSemitones.store(pitch, ordering: .relaxed)
            play.run(Int(seconds * 48_000))
        }
        play.finish()
        return (Array(play.driver.output[0][play.heardFrom...]), play)
    }

    /// No hole (no run below 10 % of the tone longer than 2 ms), no click (no step between
    /// neighbouring samples much larger than the tone's own), no underrun.
    static func expectSeamless(_ output: [Float], _ play: ResampledPlay, _ label: String, tone: Double = 220) {
        let quiet = longestQuietRun(output, threshold: 0.05, in: 2400..<(output.count - 2400))
        print("\(label): longest run below 10 %: \(quiet.length) frames")
        #expect(quiet.length <= 96, "\(label): a hole of \(quiet.length) frames at output frame \(quiet.at)")
        let toneStep = Float(0.5 * 2 * Double.pi * tone / 48_000)
        var largest: Float = 0, at = 0
        for n in 1..<output.count where abs(output[n] - output[n - 1]) > largest { (largest, at) = (abs(output[n] - output[n - 1]), n) }
        #expect(largest <= 1.5 * toneStep, "\(label): a step of \(largest) at \(at) (the tone's: \(toneStep))")
        #expect(play.engine.status.underruns.load(ordering: .relaxed) == 0)
    }

    @Test("speed 1 → 0.8 → 1 on resampled material: the resampler hands over to Rubber Band and back with no hole and no click", arguments: Stretcher.Kind.allCases)
    func speedAwayAndBack(kind: Stretcher.Kind) {
        let (output, play) = Self.play([(1, 0, 1), (0.8, 0, 1.5), (1, 0, 1.5)], kind: kind)
        Self.expectSeamless(output, play, "44.1 kHz file, speed 1 → 0.8 → 1, \(kind)")
        // Two hand-overs (and the first resampler): resampler → stretcher → resampler.
        #expect(play.supply.made >= 3, "\(play.supply.made) made")
        // The pitch stays the file's through it all (R2 smears a lone partial: within 3 %).
        for second in [0.5, 1.8, 3.6] {
            let start = Int(second * 48_000)
            let frequency = measuredFrequency(output, in: start..<(start + 9_600))
            #expect(abs(frequency - 220) <= (kind == .finer ? 1 : 6.6), "\(frequency) Hz at \(second) s")
        }
        // Back at 1, the resampler plays again: the output is the file's 220 Hz through libsoxr.
        let fit = fitSine(output[(4 * 48_000 - 12_000)..<(4 * 48_000)], frequency: 220, sampleRate: 48_000)
        print("\(kind): back at speed 1, THD+N \(fit.residualDB) dB")
        #expect(fit.residualDB <= -100, "back at speed 1: THD+N \(fit.residualDB) dB (not the resampler?)")
    }

    @Test("pitch +2 and back to 0 at speed 1 on resampled material: resampler → Rubber Band → resampler, no hole, no click", arguments: Stretcher.Kind.allCases)
    func pitchAwayAndBack(kind: Stretcher.Kind) {
        let (output, play) = Self.play([(1, 0, 1), (1, 2, 1.5), (1, 0, 1.5)], kind: kind)
        Self.expectSeamless(output, play, "44.1 kHz file, pitch 0 → +2 → 0, \(kind)", tone: 220 * pow(2, 2.0 / 12))
        let shifted = measuredFrequency(output, in: Int(1.8 * 48_000)..<Int(2.2 * 48_000))
        #expect(abs(shifted - 220 * pow(2, 2.0 / 12)) <= (kind == .finer ? 2 : 7.4), "\(shifted) Hz at +2")
        let fit = fitSine(output[(4 * 48_000 - 12_000)..<(4 * 48_000)], frequency: 220, sampleRate: 48_000)
        #expect(fit.residualDB <= -100, "back at pitch 0: THD+N \(fit.residualDB) dB")
    }

    @Test("resampling, and switching to Rubber Band and back while looping: no allocation, no lock on the render thread", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() {
        Engine.warmUpRuntime()
        let play = ResampledPlay(sourceFrames: 20 * 44_100, channels: 2, startFrame: 10_000, loop: (a: 10_000, b: 60_000)) { frame, channel in
            Float(0.3 * sin(Double(frame * (channel + 1)) * 0.05))
        }
        play.run(48_000)
        rtcheck_thread_reset()
        for step in 0..<24 {
            // Resampling alone, then speed and pitch away from and back to 1 and 0 in turn.
            play.engine.controls.speed.store(step % 6 == 3 ? 0.8 : 1, ordering: .relaxed)
            play.engine.controls.pitchSemitones.store(step % 6 == 5 ? 1 : 0, ordering: .relaxed)
            for _ in 0..<40 {
                play.supply.service()
                play.driver.cycle([256, 37, 1024][play.driver.output[0].count % 3], feeder: play.feeder, countRealTime: true)
            }
        }
        let counts = rtcheck_thread_counts()
        play.finish()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
        #expect(play.engine.status.passes.load(ordering: .relaxed) >= 5)
        #expect(play.supply.made >= 6, "the switches happened: \(play.supply.made) made")
    }
}

@Suite("Engine: Rubber Band waits for the render-ahead helper")
struct RenderAheadGateTests {
    @Test("while the helper does not render, a speed change keeps the bypass exact and asks for it; once it renders, the stretcher takes over; a stretched start is silent until then, never the original")
    func gate() {
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 2_000_000, blockFrames: 1024, blockCount: 16))
        engine.controls.renderAheadReady.store(false, ordering: .relaxed)
        let supply = TestSupply(engine: engine, kind: .faster)
        let feeder = RampFeeder(engine: engine, totalFrames: 2_000_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        do { let wish = engine.status.wantsRenderAhead.load(ordering: .relaxed); #expect(!wish) }
        engine.controls.speed.store(0.8, ordering: .relaxed)
        for _ in 0..<20 {
            supply.service()
            driver.cycle(256, feeder: feeder)
        }
        // Still the file, bit for bit, and the wish is out.
        expectRamp(driver.output, first: 0, count: 4096 + 20 * 256)
        do { let wish = engine.status.wantsRenderAhead.load(ordering: .relaxed); #expect(wish) }
        do { let stretching = engine.status.stretching.load(ordering: .relaxed); #expect(!stretching) }
        engine.controls.renderAheadReady.store(true, ordering: .relaxed)
        for _ in 0..<40 {
            supply.service()
            driver.cycle(256, feeder: feeder)
        }
        do { let stretching = engine.status.stretching.load(ordering: .relaxed); #expect(stretching, "the stretcher took over once the helper rendered") }
        supply.drain()

        // A start at 0.8 while the helper does not render yet: silence, then stretched audio.
        var configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: 4 * 48_000, blockFrames: 2048, blockCount: 32)
        configuration.startsHeld = true
        let starting = Engine(configuration)
        starting.controls.renderAheadReady.store(false, ordering: .relaxed)
        starting.controls.speed.store(0.8, ordering: .relaxed)
        let startSupply = TestSupply(engine: starting, kind: .faster)
        let tone = RampFeeder(engine: starting, totalFrames: 4 * 48_000, value: steadyTone)
        let startDriver = CycleDriver(engine: starting)
        startSupply.service()
        startDriver.cycle(256, feeder: tone)
        starting.send(.start)
        for _ in 0..<10 {
            startSupply.service()
            startDriver.cycle(256, feeder: tone)
        }
        #expect(startDriver.output[0].allSatisfy { $0 == 0 }, "nothing of the original before the stretcher")
        starting.controls.renderAheadReady.store(true, ordering: .relaxed)
        for _ in 0..<60 {
            startSupply.service()
            startDriver.cycle(256, feeder: tone)
        }
        let output = startDriver.output[0]
        let first = output.firstIndex { abs($0) > 0.001 } ?? output.count
        #expect(first < output.count && abs(measuredFrequency(output, in: (first + 2400)..<(first + 7200)) - 220) <= 7, "stretched tone after the start")
        startSupply.drain()
    }
}
