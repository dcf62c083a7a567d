import Foundation
import RepeaterEngine
import RTCheck
import Testing

/// Decodes a 1-channel ramp output into source frames (nil for silence).
func sourceFrames(_ output: [Float]) -> [Int?] { output.map { decodeRamp($0, channels: 1) } }

/// Checks that `frames` is a sequence of exact runs joined only at the reported wraps: wherever
/// frame k does not follow frame k-1, a wrap event at output k says from = previous + 1, to = frame k.
/// Returns the number of seams found.
@discardableResult
func expectExactRunsAndSeams(_ frames: [Int?], wraps: [(from: Int, to: Int, outputFrame: Int)],
                            sourceLocation: SourceLocation = #_sourceLocation) -> Int {
    var wrapAt: [Int: (from: Int, to: Int)] = [:]
    for wrap in wraps { wrapAt[wrap.outputFrame] = (wrap.from, wrap.to) }
    var problems = 0
    var seams = 0
    var firstProblem = -1
    for k in 1..<frames.count {
        guard let previous = frames[k - 1], let current = frames[k] else {
            problems += 1
            if firstProblem < 0 { firstProblem = k }
            continue
        }
        if let wrap = wrapAt[k] {
            seams += 1
            if wrap.from != previous + 1 || wrap.to != current {
                problems += 1
                if firstProblem < 0 { firstProblem = k }
            }
        } else if current != previous + 1 {
            problems += 1
            if firstProblem < 0 { firstProblem = k }
        }
    }
    if problems > 0 {
        let window = max(1, firstProblem - 3)..<min(frames.count, firstProblem + 3)
        let nearby = wraps.filter { $0.outputFrame <= firstProblem + 2 }.suffix(3)
        print("first problem at \(firstProblem): frames \(window.map { frames[$0] ?? -1 }), wraps nearby \(nearby)")
    }
    #expect(problems == 0, "first problem at output frame \(firstProblem)", sourceLocation: sourceLocation)
    return seams
}

func wrapEvents(_ events: [EngineEvent]) -> [(from: Int, to: Int, outputFrame: Int)] {
    events.compactMap { if case .wrap(_, let from, let to, let outputFrame) = $0 { return (from, to, outputFrame) } else { return nil } }
}

@Suite("A/B loop")
struct LoopTests {
    @Test("every wrap is …, B−1, A, A+1, … exactly", arguments: [1, 100, 256, 480_000])
    func exactWrap(length: Int) {
        let a = 12_345
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 2_000_000, startFrame: a, blockFrames: 1024, blockCount: 16,
                                  headFrames: 96_000, loop: (a: a, b: a + length)))
        let feeder = RampFeeder(engine: engine, totalFrames: 2_000_000)
        let driver = CycleDriver(engine: engine)
        let total = max(5_000, length * 5 / 2)
        driver.run(total: total, pattern: [1, 37, 256, 4096, 300], feeder: feeder)
        var mismatches = 0
        for channel in 0..<2 {
            for k in 0..<total where driver.output[channel][k] != rampValue(frame: a + k % length, channel: channel, channels: 2) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        let wraps = wrapEvents(driver.events())
        #expect(wraps.count == (total - 1) / length)
        #expect(wraps.allSatisfy { $0.from == a + length && $0.to == a })
        #expect(wraps.enumerated().allSatisfy { $0.element.outputFrame == ($0.offset + 1) * length })
        do { let underruns = engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
    }

    @Test("--gap puts exactly that many silent frames before each repetition")
    func gap() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 100_000, startFrame: 500, blockFrames: 512, blockCount: 8,
                                  headFrames: 4096, loop: (a: 500, b: 1500), gapFrames: 777))
        let feeder = RampFeeder(engine: engine, totalFrames: 100_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 5 * 1777, pattern: [256, 100], feeder: feeder)
        var mismatches = 0
        for k in 0..<(5 * 1777) {
            let position = k % 1777
            let expected: Float = position < 1000 ? rampValue(frame: 500 + position, channel: 0, channels: 1) : 0
            if driver.output[0][k] != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("--loops N plays N passes and then ends")
    func passes() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 10_000, startFrame: 100, blockFrames: 64, blockCount: 8,
                                  headFrames: 512, loop: (a: 100, b: 200), maxPasses: 3))
        let feeder = RampFeeder(engine: engine, totalFrames: 10_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 1000, pattern: [128], feeder: feeder)
        #expect((0..<300).allSatisfy { driver.output[0][$0] == rampValue(frame: 100 + $0 % 100, channel: 0, channels: 1) })
        #expect(driver.output[0][300...].allSatisfy { $0 == 0 })
        let events = driver.events()
        #expect(events.contains { if case .finished(_, _, 300) = $0 { return true } else { return false } })
        do { let passes = engine.status.passes.load(ordering: .relaxed); #expect(passes == 3) }
    }

    @Test("B set behind the playhead wraps at the next frame; a new A takes effect at the next wrap")
    func movesAcrossThePlayhead() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 1_000_000, startFrame: 1000, blockFrames: 1024, blockCount: 16,
                                  headFrames: 8192, loop: (a: 1000, b: 60_000)))
        let feeder = RampFeeder(engine: engine, totalFrames: 1_000_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 20_000, pattern: [256], feeder: feeder)
        engine.send(.setB(frame: 10_000))  // the playhead is at 21000
        driver.run(total: 256, pattern: [256], feeder: feeder)
        #expect(driver.output[0][19_999] == rampValue(frame: 20_999, channel: 0, channels: 1))
        #expect(driver.output[0][20_000] == rampValue(frame: 1000, channel: 0, channels: 1))
        engine.send(.setA(frame: 5000))
        driver.run(total: 30_000, pattern: [256], feeder: feeder)
        let frames = sourceFrames(driver.output[0])
        let wraps = wrapEvents(driver.events())
        #expect(wraps.first.map { $0.from == 21_000 && $0.to == 1000 && $0.outputFrame == 20_000 } == true)
        #expect(wraps.dropFirst().allSatisfy { $0.from == 10_000 && $0.to == 5000 })
        #expect(expectExactRunsAndSeams(frames, wraps: wraps) == wraps.count)
        #expect(wraps.count >= 3)
    }

    @Test("thousands of random moves of A and B: always exact runs and exact seams, never a gap",
          arguments: [20261130, 7, 42, 1234] as [UInt64])
    func randomizedMoves(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let total = 1_000_000
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: total, startFrame: 0, blockFrames: 1024, blockCount: 16,
                                  headFrames: 5000, loop: (a: 0, b: 30_000)))
        let feeder = RampFeeder(engine: engine, totalFrames: total)
        let driver = CycleDriver(engine: engine)
        var moves = 0
        var rendered = 0
        let sizes = [1, 37, 64, 256, 1024, 4096, 333]
        while moves < 3000 {
            let size = sizes[Int(generator.next() % UInt64(sizes.count))]
            driver.cycle(size, feeder: feeder)
            rendered += size
            let playhead = engine.status.playheadFrame.load(ordering: .relaxed)
            let a = engine.status.loopA.load(ordering: .relaxed)
            let b = engine.status.loopB.load(ordering: .relaxed)
            let choice = generator.next() % 6
            let random = Int(generator.next() % UInt64(total - 1))
            switch choice {
            case 0: engine.send(.setB(frame: max(a + 1, playhead - Int(generator.next() % 3000))))  // behind
            case 1: engine.send(.setB(frame: min(total, playhead + 1 + Int(generator.next() % 20_000))))  // ahead
            case 2: engine.send(.setA(frame: max(0, min(b - 1, playhead - Int(generator.next() % 20_000)))))
            case 3: engine.send(.setA(frame: min(b - 1, playhead + Int(generator.next() % 2000))))  // ahead of the playhead
            case 4:
                let length = 1 + Int(generator.next() % 12_000)
                let start = min(random, total - length - 1)
                engine.send(.setLoop(a: start, b: start + length))
            default: engine.send(.setB(frame: a + 1 + Int(generator.next() % 50)))  // tiny loops
            }
            moves += 1
        }
        let events = driver.events()
        let wraps = wrapEvents(events)
        let seams = expectExactRunsAndSeams(sourceFrames(driver.output[0]), wraps: wraps)
        #expect(seams == wraps.count)
        #expect(wraps.count > 1000)
        do { let underruns = engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
        do { let lost = engine.status.lostEvents.load(ordering: .relaxed); #expect(lost == 0) }
        #expect(rendered == driver.output[0].count)
    }

    @Test("\"A here\" and \"B here\" resolve to the frame heard now: the output latency ago, across a wrap")
    func here() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 100_000, blockFrames: 512, blockCount: 8,
                                  headFrames: 8192, loop: (a: 0, b: 4000)))
        engine.controls.latencyFrames.store(512, ordering: .relaxed)
        let feeder = RampFeeder(engine: engine, totalFrames: 100_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 10_000, pattern: [250], feeder: feeder)
        _ = driver.events()
        engine.send(.setA(frame: nil))  // heard now: output 9488 = source 1488
        engine.send(.setB(frame: nil))  // the same frame: refused, A must stay before B
        driver.run(total: 500, pattern: [250], feeder: feeder)  // the new A's head is cached in the next cycle
        let events = driver.events()
        #expect(events.contains(.pointSet(isB: false, frame: 1488)))
        #expect(events.contains(.refused(.bNotAfterA, frame: 1488)))
        #expect(events.contains(.loop(a: 1488, b: 4000, enabled: true)))
    }

    @Test("--declick keeps the loop period and brings the seam's largest step down to the sine's own")
    func declick() {
        let frequency = 440.0, rate = 48_000.0
        let sine: (Int, Int) -> Float = { frame, _ in Float(sin(2 * Double.pi * frequency * Double(frame) / rate)) }
        // A at a zero crossing, B near a crest: the raw splice jumps mid-wave.
        let a = 0, b = 48_027  // sin(2π·440·48027/48000) ≈ 1: B−1 is near a crest, A is 0
        var steps: [Float] = []
        var periods: [[Int]] = []
        for fade in [0, 240] {
            let engine = Engine(.init(channelCount: 1, sourceFrameCount: 200_000, blockFrames: 1024, blockCount: 16,
                                      headFrames: 96_000, loop: (a: a, b: b), seamFadeFrames: fade))
            let feeder = RampFeeder(engine: engine, totalFrames: 200_000, value: sine)
            let driver = CycleDriver(engine: engine)
            driver.run(total: 3 * b + 1000, pattern: [256], feeder: feeder)
            let output = driver.output[0]
            var largest: Float = 0
            for k in (b - 500)..<(b + 500) { largest = max(largest, abs(output[k] - output[k - 1])) }
            steps.append(largest)
            periods.append(wrapEvents(driver.events()).map(\.outputFrame))
        }
        let sineStep = Float(2 * Double.pi * frequency / rate)  // the sine's own largest step, ≈ 0.0576
        #expect(steps[0] > 0.5)  // the raw splice jumps
        #expect(steps[1] <= sineStep * 1.15, "largest step \(steps[1]) vs the sine's \(sineStep)")
        #expect(periods[0] == periods[1])
        #expect(periods[1] == [b, 2 * b, 3 * b])
    }

    @Test("wraps, moves, gaps and seam fades make no allocation and take no lock", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
        Engine.warmUpRuntime()
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 400_000, blockFrames: 1024, blockCount: 16,
                                  headFrames: 5000, loop: (a: 1000, b: 9000), gapFrames: 100, seamFadeFrames: 64))
        let feeder = RampFeeder(engine: engine, totalFrames: 400_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        rtcheck_thread_reset()
        let commands: [EngineCommand] = [.setB(frame: 3000), .setA(frame: 2000), .setA(frame: nil), .setB(frame: nil),
                                         .setLoop(a: 100_000, b: 150_000), .gap(frames: 0), .seekToA,
                                         .loopEnabled(false), .loopEnabled(true), .setLoop(a: 5, b: 6), .gap(frames: 7)]
        for command in commands {
            engine.send(command)
            driver.run(total: 20_000, pattern: [1, 37, 256, 4096], feeder: feeder, countRealTime: true)
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0)
        do { let passes = engine.status.passes.load(ordering: .relaxed); #expect(passes > 10) }
    }
}

/// A small deterministic generator for the randomized tests.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
