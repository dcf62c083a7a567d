import RepeaterEngine
import Testing

@Suite("Engine: a loop queued for the next wrap (a drill's next line)")
struct QueuedLoopTests {
    @Test("line, gap, then the queued line after the gap, exact to the frame; then its own gap; finishing at a wrap ends the source")
    func queuedLoop() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 96_000, startFrame: 1000, blockFrames: 1024, blockCount: 16,
                                  headFrames: 4000, loop: (a: 1000, b: 3000), gapFrames: 500))
        let feeder = RampFeeder(engine: engine, totalFrames: 96_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 1000, pattern: [256], feeder: feeder)
        engine.send(.setLoopAtWrap(a: 40_000, b: 41_200, gapFrames: 300))
        driver.run(total: 2000 + 500 + 1200 + 300 + 1200 - 1000, pattern: [256, 77], feeder: feeder)
        engine.send(.finishAtWrap)
        driver.runUntilFinished(feeder: feeder)
        let frames = driver.output[0].map { decodeRamp($0, channels: 1) }
        var expected: [Int?] = (1000..<3000).map { $0 }
        expected += [Int?](repeating: nil, count: 500)
        expected += (40_000..<41_200).map { $0 }
        expected += [Int?](repeating: nil, count: 300)
        expected += (40_000..<41_200).map { $0 }
        #expect(Array(frames.prefix(expected.count)) == expected)
        #expect(frames.dropFirst(expected.count).allSatisfy { $0 == nil }, "nothing after the finishing wrap")
        let wraps = driver.events().compactMap { event -> (Int, Int)? in
            if case .wrap(_, let from, let to, _) = event { return (from, to) }
            return nil
        }
        #expect(wraps.map(\.0) == [3000, 41_200, 41_200] && wraps.map(\.1) == [40_000, 40_000, 41_200])
    }
}
