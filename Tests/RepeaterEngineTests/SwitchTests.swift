import Foundation
import RepeaterEngine
import RepeaterTestSupport
import Synchronization
import Testing

/// Keeps a primed stretcher queued as the player's `StretcherSupply` does: of the flavour the
/// targets need (the resampler at speed 1, pitch 0 with the rates differing), at speed 1 while the
/// engine plays bypass, else at the targets; with Rubber Band's timing measured when `measured`.
final class TestSupply {
    let engine: Engine
    let kind: Stretcher.Kind
    let measured: Bool
    private(set) var made = 0
    /// The flavour of each one made, in order.
    private(set) var flavours: [Stretcher.Flavour] = []

    /// The loop cache's buffers, as the player's supply makes them.
    let loopCaches: LoopCacheSupply

    init(engine: Engine, kind: Stretcher.Kind, measured: Bool = false) {
        self.engine = engine
        self.kind = kind
        self.measured = measured
        loopCaches = LoopCacheSupply(engine: engine)
    }

    /// Each kind's measured timing, once per test run.
    private static let timings = Mutex<[String: StretchTiming]>([:])

    static func timing(kind: Stretcher.Kind, consistent: Bool, sampleRate: Int) -> StretchTiming {
        let key = "\(kind) \(consistent) \(sampleRate)"
        if let known = timings.withLock({ $0[key] }) { return known }
        let measured = StretchTiming.measure(kind: kind, pitchConsistent: consistent, sampleRate: sampleRate)
        timings.withLock { $0[key] = measured }
        return measured
    }

    func service() {
        loopCaches.service()
        reclaimStretchers(engine)
        let speed = engine.controls.speed.load(ordering: .relaxed), pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        let base = engine.configuration.baseRate, rate = engine.configuration.sampleRate
        guard speed != 1 || pitch != 0 || base != 1, engine.freshStretchers.count == 0 else { return }
        let pointer = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
        if Stretcher.Flavour(speed: speed, pitch: pitch, baseRate: base) == .resampler {
            pointer.initialize(to: Stretcher(resamplingFrom: engine.configuration.sourceSampleRate, to: rate, channelCount: engine.channelCount)!)
        } else {
            let atTargets = engine.status.stretching.load(ordering: .relaxed) || engine.status.cycles.load(ordering: .relaxed) == 0
            let consistent = pitch != 0 || base != 1
            pointer.initialize(to: Stretcher(kind: kind, sampleRate: rate, channelCount: engine.channelCount,
                                             timeRatio: atTargets ? 1 / (base * speed) : 1,
                                             pitchScale: atTargets ? base * pow(2, pitch / 12) : 1, pitchConsistent: consistent,
                                             timing: measured ? Self.timing(kind: kind, consistent: consistent, sampleRate: rate) : .unknown))
        }
        engine.freshStretchers.push(UInt(bitPattern: pointer))
        made += 1
        flavours.append(pointer.pointee.flavour)
    }

    func drain() {
        loopCaches.drain()
        reclaimStretchers(engine)
        while let bits = engine.freshStretchers.pop() {
            let pointer = UnsafeMutablePointer<Stretcher>(bitPattern: bits)!
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
    }
}

/// A steady 220 Hz tone at amplitude 0.5 on every channel.
func steadyTone(_ frame: Int, _ channel: Int) -> Float { Float(0.5 * sin(2 * Double.pi * 220 * Double(frame) / 48_000)) }

@Suite("Speed and pitch switches without a hole")
struct SwitchTests {
    /// Plays a steady tone through `steps` (speed, pitch, seconds) in 256-frame cycles, the supply
    /// serviced after each cycle as the control thread does.
    static func play(_ steps: [(Double, Double, Double)], kind: Stretcher.Kind, channels: Int = 2) -> (output: [Float], engine: Engine) {
        let engine = Engine(.init(channelCount: channels, sourceFrameCount: 40 * 48_000, blockFrames: 2048, blockCount: 32))
        let supply = TestSupply(engine: engine, kind: kind)
        let feeder = RampFeeder(engine: engine, totalFrames: 40 * 48_000, value: steadyTone)
        let driver = CycleDriver(engine: engine)
        for (speed, pitch, seconds) in steps {
            engine.controls.speed.store(speed, ordering: .relaxed)
            engine.controls.pitchSemitones.store(pitch, ordering: .relaxed)
            for _ in 0..<Int(seconds * 48_000 / 256) {
                supply.service()
                driver.cycle(256, feeder: feeder)
            }
        }
        supply.drain()
        return (driver.output[0], engine)
    }

    @Test("speed across 1 and back, 1 → 0.8 → 1 → 0.9 → 1: no run below 10 % of the tone longer than 2 ms, no underrun", arguments: Stretcher.Kind.allCases)
    func speedAcrossOne(kind: Stretcher.Kind) {
        let (output, engine) = Self.play([(1, 0, 1), (0.8, 0, 1), (1, 0, 1), (0.9, 0, 1), (1, 0, 1)], kind: kind)
        let quiet = longestQuietRun(output, threshold: 0.05, in: 2400..<(output.count - 2400))
        print("speed across 1, \(kind): longest run below 10 %: \(quiet.length) frames")
        #expect(quiet.length <= 96, "a hole of \(quiet.length) frames at output frame \(quiet.at)")
        // It did stretch: 4.7 s of the source (1 + 0.8 + 1 + 0.9 + 1) went into 5 s of output, give or
        // take the glides and the frames a stretcher holds.
        let consumed = Double(engine.status.playheadFrame.load(ordering: .relaxed)) / 48_000
        #expect(abs(consumed - 4.7) < 0.15, "\(consumed) s of the source consumed")
        // And no click: no step between neighbouring samples much larger than the tone's own.
        let toneStep = Float(0.5 * 2 * Double.pi * 220 / 48_000)
        let largest = (1..<output.count).map { abs(output[$0] - output[$0 - 1]) }.max() ?? 0
        #expect(largest <= 1.5 * toneStep, "a step of \(largest) (the tone's: \(toneStep))")
        do { let underruns = engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
        // The pitch is kept through it all (R2 smears a lone partial: within 3 %, as measured before).
        for second in [1.6, 3.6] {
            let start = Int(second * 48_000)
            let frequency = measuredFrequency(output, in: start..<(start + 12_000))
            #expect(abs(frequency - 220) <= (kind == .finer ? 1 : 6.6), "\(frequency) Hz at \(second) s")
        }
    }

    @Test("pitch across 0 and back, at speed 1 and at speed 0.8 (a plain stretcher hands over to a pitch-consistent one and back): no hole", arguments: Stretcher.Kind.allCases)
    func pitchAcrossZero(kind: Stretcher.Kind) {
        let (output, engine) = Self.play([(1, 0, 0.5), (1, 2, 1), (1, 0, 1), (0.8, 0, 1), (0.8, 2, 1), (0.8, 0, 1.6)], kind: kind)
        let quiet = longestQuietRun(output, threshold: 0.05, in: 2400..<(output.count - 2400))
        print("pitch across 0, \(kind): longest run below 10 %: \(quiet.length) frames")
        #expect(quiet.length <= 96, "a hole of \(quiet.length) frames at output frame \(quiet.at)")
        do { let underruns = engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
        let shifted = measuredFrequency(output, in: Int(1.0 * 48_000)..<Int(1.4 * 48_000))
        #expect(abs(shifted - 220 * pow(2, 2.0 / 12)) <= (kind == .finer ? 2 : 7.4), "\(shifted) Hz at +2")
    }

    @Test("a start at 0.75 plays stretched audio from the first frame: no silent run, no blip of the original")
    func stretchedStart() {
        var configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: 4 * 48_000, blockFrames: 2048, blockCount: 32)
        configuration.startsHeld = true
        let engine = Engine(configuration)
        engine.controls.speed.store(0.75, ordering: .relaxed)
        let supply = TestSupply(engine: engine, kind: .finer)
        let feeder = RampFeeder(engine: engine, totalFrames: 4 * 48_000, value: steadyTone)
        let driver = CycleDriver(engine: engine)
        supply.service()
        driver.cycle(256, feeder: feeder)
        driver.cycle(256, feeder: feeder)
        engine.send(.start)  // the ports are connected: from here on the output counts
        var cycles = 0
        while cycles < 400 {
            supply.service()
            driver.cycle(256, feeder: feeder)
            cycles += 1
        }
        supply.drain()
        let output = driver.output[0]
        let first = output.firstIndex { abs($0) > 0.001 } ?? output.count
        // Nothing but stretched tone from the first sound on: no silent run, and the tone at 220 Hz.
        let quiet = longestQuietRun(output, threshold: 0.05, in: (first + 240)..<(first + 4800))
        #expect(quiet.length == 0, "a quiet run of \(quiet.length) frames at \(quiet.at) in the first 100 ms")
        #expect(abs(measuredFrequency(output, in: first..<(first + 4800)) - 220) <= 2)
        // The first sound comes once the stretcher is primed: within a few cycles of the start.
        #expect(first <= 512 + 12 * 256, "first sound at \(first)")
    }

    @Test("a loop stays exact across switches: back in bypass every seam is a reported wrap, and \"A here\" is exact through the ring")
    func loopAcrossSwitches() {
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 40 * 48_000, blockFrames: 2048, blockCount: 32,
                                  headFrames: 48_000, loop: (a: 48_000, b: 72_000)))
        let supply = TestSupply(engine: engine, kind: .faster)
        let feeder = RampFeeder(engine: engine, totalFrames: 40 * 48_000)
        let driver = CycleDriver(engine: engine)
        func run(_ seconds: Double) {
            for _ in 0..<Int(seconds * 48_000 / 256) {
                supply.service()
                driver.cycle(256, feeder: feeder)
            }
        }
        run(1)
        engine.controls.speed.store(0.8, ordering: .relaxed)
        run(2)
        engine.controls.speed.store(1, ordering: .relaxed)
        run(1)
        let checkedFrom = driver.output[0].count
        _ = driver.sourcedEvents()
        run(1)
        engine.send(.setA(frame: nil))  // heard now: output frame `here` (latency 0)
        let here = driver.output[0].count
        run(2)
        supply.drain()
        let events = driver.events()
        let wraps = events.compactMap { event -> (Int, Int, Int)? in
            if case .wrap(_, let from, let to, let outputFrame) = event { return (from, to, outputFrame) } else { return nil }
        }
        // Exact runs of the ramp, each break a reported wrap at its output frame.
        let frames = driver.output[0][checkedFrom...].map { decodeRamp($0, channels: 2) }
        var breaks = 0
        for k in 1..<frames.count {
            guard let previous = frames[k - 1], let current = frames[k] else { Issue.record("silence at \(checkedFrom + k)"); break }
            if current == previous + 1 { continue }
            breaks += 1
            let output = checkedFrom + k
            #expect(wraps.contains { $0.0 == previous + 1 && $0.1 == current && $0.2 == output }, "unreported jump \(previous) → \(current) at \(output)")
        }
        #expect(breaks >= 3)
        guard let a = events.compactMap({ event -> Int? in if case .pointSet(false, let frame) = event { return frame } else { return nil } }).first else {
            Issue.record("no A")
            return
        }
        #expect(decodeRamp(driver.output[0][here], channels: 2) == a, "A \(a), heard \(String(describing: decodeRamp(driver.output[0][here], channels: 2)))")
    }
}
