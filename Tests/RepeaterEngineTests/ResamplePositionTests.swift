import Foundation
import RepeaterEngine
import Testing

/// Positions through the resampler, on a 44.1 kHz file on a 48 kHz engine. A frame of the file and a
/// frame of the output rarely coincide (160 output frames for every 147 of the file), so "exact"
/// means: a mark (a wrap, a pass start, a click) is on the output frame nearest to where its file
/// frame falls, and "A/B here" gives the file frame nearest to what the output frame carries. The
/// truth comes from the audio itself: markers (Hann-windowed bursts) in the file, whose energy
/// centroid in the output says where their centre fell, to a small fraction of a frame.
@Suite("Engine: positions through the resampler, exact to the frame (issue 30)")
struct ResamplePositionTests {
    static let step = 44_100.0 / 48_000
    /// Half a frame, and what the centroid's own error may add.
    static let nearest = 0.5 + 0.06

    /// The true output time of file frame `frame`, from a marker starting at `markerStart` whose
    /// centroid came out at `centroid`.
    static func outputTime(of frame: Int, markerStart: Int, centroid: Double) -> Double {
        centroid + (Double(frame) - (Double(markerStart) + Marker.centre)) / step
    }

    @Test("wraps, pass starts and clicks land on the output frame nearest to where B, A and the beat fall; the count-in at the stretched… resampled tempo")
    func wrapsPassesAndClicks() throws {
        let a = 44_100, b = 44_100 + 30_000
        let markers = [a + 1000, b - 1100, a + 10_000, a + 20_000]
        let beats = [a + 10_000, a + 20_000]
        let play = ResampledPlay(sourceFrames: 10 * 44_100, startFrame: a, loop: (a: a, b: b), clickPort: true,
                                 clicks: ClickBank(beat: [0.5] + [Float](repeating: 0, count: 31), accent: [1] + [Float](repeating: 0, count: 31)),
                                 before: { engine in
                                     engine.beatTables.push(BeatTable.handOver(BeatTable(frames: beats, downbeats: [beats[0]])))
                                     engine.controls.clickOn.store(true, ordering: .relaxed)
                                 }) { frame, _ in Marker.value(at: frame, starts: markers) }
        play.run(5 * 32_700)
        play.finish()
        let output = play.driver.output[0]
        let events = play.driver.events()
        let passes = passStarts(events), wraps = wrapEvents(events)
        let clicks = play.driver.output[1].enumerated().filter { $0.element != 0 }.map(\.offset)
        #expect(passes.count >= 5 && wraps.count >= 4)
        var worst = 0.0
        for (index, pass) in passes.prefix(5).enumerated() {
            #expect(pass.frame == a)
            let guess = Double(pass.outputFrame)
            guard let atA = Marker.centroid(in: output, near: guess + (1000 + Marker.centre) / Self.step),
                  let atB = Marker.centroid(in: output, near: guess + (30_000 - 1100 + Marker.centre) / Self.step) else {
                Issue.record("pass \(index): markers not found")
                continue
            }
            let trueA = Self.outputTime(of: a, markerStart: a + 1000, centroid: atA)
            let trueB = Self.outputTime(of: b, markerStart: b - 1100, centroid: atB)
            worst = max(worst, abs(trueA - guess))
            #expect(abs(trueA - guess) <= Self.nearest, "pass \(index): starts at \(pass.outputFrame), A falls at \(trueA)")
            if index < wraps.count {
                let wrap = wraps[index]
                #expect(wrap.from == b && wrap.to == a)
                worst = max(worst, abs(trueB - Double(wrap.outputFrame)))
                #expect(abs(trueB - Double(wrap.outputFrame)) <= Self.nearest, "wrap \(index) at \(wrap.outputFrame), B falls at \(trueB)")
            }
            for beat in beats {
                guard let heard = Marker.centroid(in: output, near: guess + (Double(beat - a) + Marker.centre) / Self.step) else { continue }
                let trueBeat = Self.outputTime(of: beat, markerStart: beat, centroid: heard)
                let click = clicks.min { abs(Double($0) - trueBeat) < abs(Double($1) - trueBeat) } ?? -1
                worst = max(worst, abs(trueBeat - Double(click)))
                #expect(abs(trueBeat - Double(click)) <= Self.nearest, "pass \(index): the beat at \(beat) falls at \(trueBeat), its click at \(click)")
            }
        }
        print("resampled: wraps, pass starts and clicks at most \(worst) output frames from where their file frame falls")
    }

    @Test("a count-in of 3 before each pass: its clicks are the beat's length in file frames apart, resampled, and the last one a beat before A is heard")
    func countIn() {
        let a = 44_100, b = 44_100 + 20_000, period = 7_001
        let play = ResampledPlay(sourceFrames: 10 * 44_100, startFrame: a, loop: (a: a, b: b), clickPort: true,
                                 clicks: ClickBank(beat: [0.5] + [Float](repeating: 0, count: 31), accent: [1] + [Float](repeating: 0, count: 31)),
                                 before: { $0.send(.countIn(beats: 3, periodFrames: period)) }) { frame, _ in Marker.value(at: frame, starts: [a + 1000]) }
        play.run(4 * 45_000)
        play.finish()
        let output = play.driver.output[0]
        let clicks = play.driver.output[1].enumerated().filter { $0.element != 0 }.map(\.offset)
        let passes = passStarts(play.driver.events())
        #expect(passes.count >= 3)
        for pass in passes.prefix(3) {
            guard let atA = Marker.centroid(in: output, near: Double(pass.outputFrame) + (1000 + Marker.centre) / Self.step) else {
                Issue.record("no marker after the pass start at \(pass.outputFrame)")
                continue
            }
            let trueA = Self.outputTime(of: a, markerStart: a + 1000, centroid: atA)
            for beat in 1...3 {
                let want = trueA - Double(beat * period) / Self.step
                let click = clicks.min { abs(Double($0) - want) < abs(Double($1) - want) } ?? -1
                #expect(abs(want - Double(click)) <= Self.nearest, "count-in beat \(4 - beat) before A (\(trueA)): want \(want), click at \(click)")
            }
        }
    }

    @Test("\"A here\" and \"B here\" give the file frame nearest to what the output frame heard carries, and the loop they make wraps exactly")
    func abHere() throws {
        let markers = stride(from: 2000, to: 10 * 44_100, by: 4410).map { $0 }
        let play = ResampledPlay(sourceFrames: 10 * 44_100) { frame, _ in Marker.value(at: frame, starts: markers) }
        play.run(48_000 + 77)  // an output frame that is not a whole number of file frames
        let hereA = play.driver.output[0].count
        play.engine.send(.setA(frame: nil))
        play.run(30_011)
        let hereB = play.driver.output[0].count
        play.engine.send(.setB(frame: nil))
        play.run(4 * 32_000)
        play.finish()
        let output = play.driver.output[0]
        let events = play.driver.events()
        let points = pointsSet(events)
        try #require(points.count == 2)
        // What the output carried at `here`: from the nearest marker before it (a marker played
        // before A was set, so the linear map from the file holds there).
        func carried(at here: Int) -> Double {
            let start = markers.last { Double($0) <= (Double(here - play.heardFrom) * Self.step) } ?? markers[0]
            let guess = Double(play.heardFrom) + (Double(start) + Marker.centre) / Self.step
            let centroid = Marker.centroid(in: output, near: guess) ?? guess
            return Double(start) + Marker.centre + (Double(here) - centroid) * Self.step
        }
        let wantA = carried(at: hereA), wantB = carried(at: hereB)
        print("A here at output \(hereA): \(points[0].frame) (it carried \(wantA)); B here at \(hereB): \(points[1].frame) (it carried \(wantB))")
        #expect(abs(Double(points[0].frame) - wantA) <= Self.nearest)
        #expect(abs(Double(points[1].frame) - wantB) <= Self.nearest)
        // The loop they set wraps from B to A, at the output frame nearest to where B falls. (B is
        // heard now, behind the frames already pulled into the resampler: the first wrap comes
        // after them, at once, as with any B moved behind the playhead; the next ones at B.)
        let (a, b) = (points[0].frame, points[1].frame)
        let all = wrapEvents(events)
        try #require(all.count >= 3)
        #expect(all[0].from >= b && all[0].from - b <= 2048 && all[0].to == a, "the first wrap: \(all[0])")
        let wraps = Array(all.dropFirst())
        for wrap in wraps.prefix(3) {
            #expect(wrap.from == b && wrap.to == a)
            // The last marker before B in the pass that ends at this wrap.
            let start = markers.last { $0 + Marker.length <= b }!
            let guess = Double(wrap.outputFrame) - (Double(b - start) - Marker.centre) / Self.step
            guard let centroid = Marker.centroid(in: output, near: guess) else { Issue.record("no marker before B"); continue }
            let trueB = Self.outputTime(of: b, markerStart: start, centroid: centroid)
            #expect(abs(trueB - Double(wrap.outputFrame)) <= Self.nearest, "wrap at \(wrap.outputFrame), B falls at \(trueB)")
        }
    }

    @Test("a drill's next line (queued at the wrap) and its end: the line's bounds are heard at the nearest output frames; a take compared starts on the pass start")
    func drillAndTake() throws {
        let line1 = (a: 44_100, b: 66_150), line2 = (a: 100_000, b: 125_000)
        let markers = [line1.a + 1000, line1.b - 1100, line2.a + 1000, line2.b - 1100]
        let take = TakeAudio(channels: [(0..<2000).map { Marker.value(at: $0, starts: [500]) }])
        let play = ResampledPlay(sourceFrames: 10 * 44_100, startFrame: line1.a, loop: line1) { frame, _ in Marker.value(at: frame, starts: markers) }
        play.engine.send(.compare(take: TakeAudio.handOver(take), mode: .both, atGap: false, pan: 0))
        play.run(10_000)
        play.engine.send(.setLoopAtWrap(a: line2.a, b: line2.b, gapFrames: 0))
        play.run(30_000)
        play.engine.send(.finishAtWrap)
        play.run(50_000)
        play.finish()
        let output = play.driver.output[0]
        let events = play.driver.events()
        let passes = passStarts(events), wraps = wrapEvents(events)
        try #require(passes.count >= 2 && wraps.count >= 2)
        // Line 1 ends at its B, line 2 starts at its A, and ends at its B (the drill's end).
        #expect(wraps[0].from == line1.b && wraps[0].to == line2.a)
        #expect(passes[1].frame == line2.a)
        let bounds: [(frame: Int, marker: Int, outputFrame: Int, what: String)] = [
            (line1.b, line1.b - 1100, wraps[0].outputFrame, "line 1's B"),
            (line2.a, line2.a + 1000, passes[1].outputFrame, "line 2's A"),
            (line2.b, line2.b - 1100, wraps[1].outputFrame, "line 2's B (the end)"),
        ]
        for bound in bounds {
            let guess = Double(bound.outputFrame) + (Double(bound.marker - bound.frame) + Marker.centre) / Self.step
            guard let centroid = Marker.centroid(in: output, near: guess) else { Issue.record("\(bound.what): no marker"); continue }
            let truth = Self.outputTime(of: bound.frame, markerStart: bound.marker, centroid: centroid)
            #expect(abs(truth - Double(bound.outputFrame)) <= Self.nearest, "\(bound.what) at \(bound.outputFrame), falls at \(truth)")
        }
        // The take's frame k plays at the pass start + k: its marker (centred at 500 + 47.5) exactly there.
        for pass in passes.prefix(2) {
            let want = Double(pass.outputFrame) + 500 + Marker.centre
            // (line 1's own marker is 1000 file frames in: 1089 output frames, far from it)
            let centroid = Marker.centroid(in: output, near: want, reach: 100)
            #expect(centroid.map { abs($0 - want) <= 0.05 } == true, "the take's marker at \(String(describing: centroid)), want \(want)")
        }
        while let bits = play.engine.usedTakes.pop() { TakeAudio.free(bits) }
    }

    @Test("the chime strikes at its own output frames while a resampled file plays")
    func chime() {
        var low = [Float](repeating: 0, count: 4800), high = [Float](repeating: 0, count: 4800)
        low[0] = 0.9
        high[0] = -0.9
        let play = ResampledPlay(sourceFrames: 10 * 44_100, gongs: GongBank(low: low, high: high)) { _, _ in 0 }
        play.run(12_345)
        let start = play.driver.output[0].count
        play.engine.send(.chime(hour: 1, minute: 1))  // low at 0, high at 1.2 s
        play.run(2 * 48_000)
        play.finish()
        let output = play.driver.output[0]
        let struck = output.enumerated().filter { abs($0.element) > 0.5 }.map { ($0.offset, $0.element > 0) }
        #expect(struck.map(\.0) == [start, start + 57_600] && struck.map(\.1) == [true, false], "strikes at \(struck)")
    }
}
