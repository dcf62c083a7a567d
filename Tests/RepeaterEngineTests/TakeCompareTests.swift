import RepeaterEngine
import Testing

/// A take of `frames` frames whose every sample is −(k + 1)/2²⁰: nothing like the ramp, and exact.
private func takeSignal(_ frames: Int) -> [Float] { (0..<frames).map { -Float($0 + 1) / Float(1 << 20) } }

@Suite("Engine: a take heard beside the recording")
struct TakeCompareTests {
    /// Plays the loop 1000..<3000 (stereo) with `take` handed over in `mode`, for
    /// `passes` passes after the hand-over; returns output channel 0 from the first pass start after it.
    private func run(mode: TakeCompare, atGap: Bool = false, gap: Int = 0, passes: Int, pan: Float = 0)
        -> (left: [Float], right: [Float], events: [EngineEvent]) {
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 96_000, startFrame: 1000, blockFrames: 1024, blockCount: 16,
                                  headFrames: 4000, loop: (a: 1000, b: 3000), gapFrames: gap))
        let feeder = RampFeeder(engine: engine, totalFrames: 96_000)
        let driver = CycleDriver(engine: engine)
        let take = TakeAudio(channels: [takeSignal(atGap ? gap : 2000)])
        engine.send(.compare(take: TakeAudio.handOver(take), mode: mode, atGap: atGap, pan: pan))
        driver.run(total: (2000 + gap) * passes, pattern: [256, 100], feeder: feeder)
        engine.send(.compareOff)
        driver.run(total: 512, pattern: [256], feeder: feeder)
        var freed = 0
        while let bits = engine.usedTakes.pop() { TakeAudio.free(bits); freed += 1 }
        #expect(freed == 1, "the take comes back to be freed")
        return (driver.output[0], driver.output[1], driver.events())
    }

    @Test("take: every pass is the take alone, frame for frame from the pass's first frame")
    func takeAlone() {
        let (left, right, _) = run(mode: .take, passes: 2)
        let expected = takeSignal(2000)
        #expect(Array(left[0..<2000]) == expected && Array(left[2000..<4000]) == expected)
        #expect(right[0..<4000] == left[0..<4000], "a mono take on both outputs")
    }

    @Test("alternate: the recording's pass, then the take's, then the recording's")
    func alternate() {
        let (left, _, _) = run(mode: .alternate, passes: 3)
        let ramp = (1000..<3000).map { rampValue(frame: $0, channel: 0, channels: 2) }
        #expect(Array(left[0..<2000]) == ramp)
        #expect(Array(left[2000..<4000]) == takeSignal(2000))
        #expect(Array(left[4000..<6000]) == ramp)
    }

    @Test("both, panned apart: the recording on the left, the take on the right; mixed at pan 0")
    func both() {
        let ramp = (1000..<3000).map { rampValue(frame: $0, channel: 0, channels: 2) }
        let apart = run(mode: .both, passes: 1, pan: 1)
        #expect(Array(apart.left[0..<2000]) == ramp && Array(apart.right[0..<2000]) == takeSignal(2000))
        let mixed = run(mode: .both, passes: 1, pan: 0)
        #expect(Array(mixed.left[0..<2000]) == zip(ramp, takeSignal(2000)).map { $0 + $1 })
    }

    @Test("an answer plays in the gap after each pass: the line, the answer, the line again")
    func answerInTheGap() {
        let (left, _, events) = run(mode: .alternate, atGap: true, gap: 700, passes: 2)
        let ramp = (1000..<3000).map { rampValue(frame: $0, channel: 0, channels: 2) }
        #expect(Array(left[0..<2000]) == ramp)
        #expect(Array(left[2000..<2700]) == takeSignal(700))
        #expect(Array(left[2700..<4700]) == ramp)
        let starts = events.compactMap { event -> Int? in
            if case .passStarted(let frame, let output) = event { return frame == 1000 ? output : nil }
            return nil
        }
        #expect(starts.prefix(3) == [0, 2700, 5400], "\(starts)")
    }
}
