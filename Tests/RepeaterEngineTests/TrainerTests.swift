import Foundation
import RepeaterEngine
import Testing

@Suite("Speed trainer on the engine")
struct TrainerTests {
    @Test("0.6:0.05:3:0.8 on a 0.5 s loop: the speed steps after exactly 3, 6, 9 and 12 wraps, and each pass plays at its step's speed")
    func stepsAfterEveryWraps() {
        let loop = (a: 48_000, b: 72_000)
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 480_000, blockFrames: 2048, blockCount: 16, loop: loop))
        var trainer = SpeedTrainer(from: 0.6, step: 0.05, every: 3, to: 0.8)
        engine.controls.speed.store(trainer.speed, ordering: .relaxed)
        let stretcher = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
        stretcher.initialize(to: Stretcher(kind: .faster, sampleRate: 48_000, channelCount: 1, timeRatio: 1 / trainer.speed))
        engine.freshStretchers.push(UInt(bitPattern: stretcher))
        let feeder = RampFeeder(engine: engine, totalFrames: 480_000) { frame, _ in Float(0.3 * sin(Double(frame) * 0.05)) }
        let driver = CycleDriver(engine: engine)
        var changes: [(wraps: Int, speed: Double)] = []
        var wrapFrames: [Int: Int] = [:]  // wrap count → output frame
        var cycles = 0
        while wrapFrames.count < 15 && cycles < 10_000 {
            driver.cycle(256, feeder: feeder)
            cycles += 1
            for event in driver.events() {
                guard case .wrap(let count, _, _, let outputFrame) = event else { continue }
                wrapFrames[count] = outputFrame
                if let next = trainer.passCompleted() {
                    engine.controls.speed.store(next, ordering: .relaxed)  // what the player does on a wrap event
                    changes.append((count, next))
                }
            }
        }
        #expect(changes.map(\.wraps) == [3, 6, 9, 12])
        #expect(changes.map(\.speed) == [0.65, 0.7, 0.75, 0.8])
        #expect(trainer.isDone)
        // A whole pass inside a step lasts the loop's length over that speed (within one period;
        // the 30 ms glide happens in the pass right after a step, which is not measured).
        for (first, speed) in [(1, 0.6), (4, 0.65), (7, 0.7), (10, 0.75), (13, 0.8)] {
            guard let start = wrapFrames[first], let end = wrapFrames[first + 1] else {
                Issue.record("missing wraps \(first), \(first + 1)")
                continue
            }
            let expected = Double(loop.b - loop.a) / speed
            #expect(abs(Double(end - start) - expected) <= 256, "pass \(first + 1) at \(speed): \(end - start) frames, expected \(expected)")
        }
        reclaimStretchers(engine)
    }
}
