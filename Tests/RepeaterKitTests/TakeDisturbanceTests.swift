import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// The process callback and a loop out → in of R frames, cycle by cycle in the server's time,
/// without JACK: the engine's output frames (each one its own value) leave the outputs back to back
/// unless a cycle is *short* (the render-ahead helper was late: half the period, then silence), and
/// what left R frames ago comes back on the input. `InputCapture` gets each cycle as the callback
/// gives it; the `TakeRecorder` thread cuts takes out of what it captured.
private final class LoopSimulation {
    let period = 256
    let roundTrip = 1000
    let capture = InputCapture(channelCount: 1, probe: Calibration.probe)
    let recorder: TakeRecorder
    /// Every frame the outputs carried, in the server's time (after the probe, as the callback leaves them).
    private(set) var sent: [Float] = []
    /// The engine output frame the next cycle starts with (the FIFO's read position).
    private(set) var position = 0
    private var output = [Float](repeating: 0, count: 256)
    private var input = [Float](repeating: 0, count: 256)

    init() {
        recorder = TakeRecorder(capture: capture, sampleRate: 48_000)
        capture.armed.store(true, ordering: .relaxed)
        recorder.start()
    }

    deinit { recorder.stop() }

    /// The engine's output frame f: a value no other frame has, and one a 24-bit take keeps exactly.
    static func frame(_ f: Int) -> Float { Float((f % 4_000_000) - 2_000_000) / 8_388_608 }

    /// One cycle; `short`: the helper was late, half a period went out, then silence. `inputLost`:
    /// the way back lost this period (an xrun elsewhere in the graph: a converter's input, a loop
    /// through another client), which this client cannot see; `reported`: the server's xrun report
    /// reaches this cycle.
    func cycle(short: Bool = false, inputLost: Bool = false, reported: Bool = false) {
        let available = short ? period / 2 : period
        let now = sent.count
        for i in 0..<period {
            let t = now + i - roundTrip
            input[i] = t >= 0 && !inputLost ? sent[t] : 0
            output[i] = i < available ? Self.frame(position + i) : 0
        }
        // The capture ring holds 10.9 s; the writer drains it every 10 ms. Keep at most a second
        // waiting in it, as the server's pace would: unpaced, a writer starved by parallel tests
        // found ten seconds waiting at once, and its history (10.9 s) overwrote the start of a take
        // it had not copied yet ("the input was interrupted", seen once in a full run).
        while capture.blocks.readableCount >= 48 { usleep(1000) }
        input.withUnsafeMutableBufferPointer { inputs in
            output.withUnsafeMutableBufferPointer { outputs in
                var inputPointer = inputs.baseAddress!
                var outputPointer = outputs.baseAddress!
                withUnsafePointer(to: &inputPointer) { inputList in
                    withUnsafePointer(to: &outputPointer) { outputList in
                        capture.process(inputs: inputList, outputs: outputList, outputCount: 1, frameCount: period,
                                        tag: position, disturbed: short, reported: reported)
                    }
                }
            }
        }
        sent += output
        position += available
    }

    func run(until frame: Int, shortAt: Set<Int> = [], inputLostAt: Set<Int> = [], reportedAt: Set<Int> = []) {
        while position < frame {
            let index = position / period
            cycle(short: shortAt.contains(index), inputLost: inputLostAt.contains(index), reported: reportedAt.contains(index))
        }
    }

    /// Runs 10 000 frames, asks for a calibration and runs until the probe leaves; its tag.
    func calibrateUntilTheProbeLeaves() -> Int {
        run(until: 10_000)
        recorder.calibrate()
        while capture.probeStartTag.load(ordering: .acquiring) < 0 { cycle() }
        return capture.probeStartTag.load(ordering: .acquiring)
    }

    /// Waits (up to 20 s) for `count` results from the writer.
    func results(_ count: Int) -> [TakeRecorder.Result] {
        var collected: [TakeRecorder.Result] = []
        let deadline = Date().addingTimeInterval(20)
        while collected.count < count && Date() < deadline {
            cycle()  // the server keeps running meanwhile
            collected += recorder.takeResults()
        }
        return collected
    }
}

@Suite("Takes without JACK: a dropout during a take or a calibration")
struct TakeDisturbanceTests {
    @Test("a short cycle (the helper late) misplaces the input for a round trip after it: the take there is dropped with why, the takes before and after it are the output bit for bit")
    func shortCycleDropsTheTakeAcrossIt() throws {
        let scratch = ScratchDirectory()
        let loop = LoopSimulation()
        let r = loop.roundTrip
        // Takes of engine output frames [0, 20 000), [30 000, 50 000) (a short cycle at 40 960) and
        // [70 000, 100 000) (after the short cycle's round trip and the margin).
        let takes = [(0, 20_000), (30_000, 50_000), (70_000, 100_000)]
        for (id, take) in takes.enumerated() {
            loop.recorder.begin(id: id, startTag: take.0 + r, roundTrip: r, path: scratch.file("take-\(id).flac"))
            loop.recorder.end(id: id, endTag: take.1 + r)
        }
        loop.run(until: 101_000 + r, shortAt: [40_960 / loop.period])
        let results = loop.results(3)
        #expect(results.count == 3)
        var saved: [Int: String] = [:], dropped: [Int: String] = [:]
        for result in results {
            switch result {
            case .saved(let id, let path, _): saved[id] = path
            case .dropped(let id, let reason): dropped[id] = reason
            case .calibrated: Issue.record("a calibration nobody asked for")
            }
        }
        #expect(Set(saved.keys) == [0, 2] && Set(dropped.keys) == [1], "saved \(saved.keys.sorted()), dropped \(dropped)")
        #expect(dropped[1]?.contains("missed a period") == true, "\(dropped[1] ?? "")")
        for id in saved.keys.sorted() {
            let take = takes[id]
            let heard = try TakeFile.read(saved[id]!).channels[0]
            let expected = (take.0..<take.1).map(LoopSimulation.frame)
            #expect(heard.count == expected.count && zip(heard, expected).allSatisfy { $0 == $1 }, "take \(id): \(heard.count) frames")
        }
        // What the input brought back in the dropped take's span was indeed misplaced: tagged as the
        // callback tags it, input frames there are not the output frames their tags stand for.
        let shortTag = 40_960
        let misplaced = (0..<r).filter { k in
            // The input of server-time frame (shortTag + period + k) is tagged shortTag + period/2 + k.
            let tag = shortTag + loop.period / 2 + k
            return loop.sent[shortTag + loop.period + k - r] != LoopSimulation.frame(tag - r)
        }
        #expect(misplaced.count == r, "misplaced \(misplaced.count) of the \(r) frames after the short cycle")
    }

    @Test("a period lost on the way back that this client cannot see (an xrun elsewhere in the graph), reported by the server two cycles later: the take across it is dropped, even though it had ended before the report; the takes before and after are kept bit for bit")
    func reportedXrunDropsTheTakeItSpoiled() throws {
        let scratch = ScratchDirectory()
        let loop = LoopSimulation()
        let r = loop.roundTrip
        // The input of server cycle 160 (frames 40 960 … 41 215) comes back silent; the take
        // [30 000, 41 000) ends within it; the server's report reaches cycle 162.
        let takes = [(0, 20_000), (30_000, 41_000 - r + 100), (70_000, 100_000)]
        for (id, take) in takes.enumerated() {
            loop.recorder.begin(id: id, startTag: take.0 + r, roundTrip: r, path: scratch.file("take-\(id).flac"))
            loop.recorder.end(id: id, endTag: take.1 + r)
        }
        loop.run(until: 101_000 + r, inputLostAt: [160], reportedAt: [162])
        let results = loop.results(3)
        var saved: [Int: String] = [:], dropped: [Int: String] = [:]
        for result in results {
            switch result {
            case .saved(let id, let path, _): saved[id] = path
            case .dropped(let id, let reason): dropped[id] = reason
            case .calibrated: Issue.record("a calibration nobody asked for")
            }
        }
        #expect(Set(saved.keys) == [0, 2] && Set(dropped.keys) == [1], "saved \(saved.keys.sorted()), dropped \(dropped)")
        for id in saved.keys.sorted() {
            let take = takes[id]
            let heard = try TakeFile.read(saved[id]!).channels[0]
            let expected = (take.0..<take.1).map(LoopSimulation.frame)
            #expect(heard.count == expected.count && zip(heard, expected).allSatisfy { $0 == $1 }, "take \(id): \(heard.count) frames")
        }
    }

    @Test("calibrate measures the round trip to the frame; a short cycle during the measurement fails it with a one-line why (try again), not a wrong round trip")
    func calibrationAndADropout() throws {
        let loop = LoopSimulation()
        loop.run(until: 10_000)
        loop.recorder.calibrate()
        #expect(loop.results(1).map(describe) == ["calibrated 1000"])
        loop.recorder.calibrate()
        while loop.capture.probeStartTag.load(ordering: .acquiring) < 0 { loop.cycle() }
        loop.cycle()
        loop.cycle(short: true)  // the probe is still leaving
        let failed = loop.results(1).map(describe)
        #expect(failed.count == 1 && failed[0].hasPrefix("failed: the player missed a period during the measurement"), "\(failed)")
        loop.recorder.calibrate()
        #expect(loop.results(1).map(describe) == ["calibrated 1000"])
    }

    @Test("a dropout after the probe came back, within the 2 s the calibration listens, leaves it alone: calibrated to the frame; asked for just after one, the probe waits until the input has run clear of it")
    func calibrationAndALaterDropout() throws {
        let loop = LoopSimulation()
        let probeTag = loop.calibrateUntilTheProbeLeaves()
        // The probe (2048 frames) is back 1000 frames after it left; half a second later, a short cycle.
        loop.run(until: probeTag + 2048 + 1000 + 24_000)
        loop.cycle(short: true)
        #expect(loop.results(1).map(describe) == ["calibrated 1000"])
        // A short cycle, then the request at once: the probe waits until the input has run clear of
        // the hole by the margin (it could reach that far), then measures to the frame.
        let hole = loop.position
        loop.cycle(short: true)
        loop.recorder.calibrate()
        let deadline = Date().addingTimeInterval(20)
        while loop.capture.probeStartTag.load(ordering: .acquiring) < 0 && Date() < deadline { loop.cycle() }
        let waited = loop.capture.probeStartTag.load(ordering: .acquiring) - hole
        #expect(waited >= 16_384 && waited < 48_000, "the probe left \(waited) frames after the hole")
        #expect(loop.results(1).map(describe) == ["calibrated 1000"])
    }

    @Test("a probe that does not come back is said so, also when the input stops following on right after the 2 s the calibration listened to (it once said \"the input was interrupted\")")
    func probeLostThenADropout() throws {
        let loop = LoopSimulation()
        let probeTag = loop.calibrateUntilTheProbeLeaves()
        // Nothing comes back (the path out → in is open) for the whole window; its last cycle and a
        // short one right behind it, given to the writer together (once it has taken all before).
        let windowEnd = probeTag + Calibration.searchFrames(sampleRate: 48_000) + Calibration.probe.count
        while loop.position + loop.period < windowEnd { loop.cycle(inputLost: true) }
        while loop.capture.blocks.readableCount > 0 { usleep(200) }
        loop.cycle(inputLost: true)
        loop.cycle(short: true, inputLost: true)
        let result = loop.results(1).map(describe)
        #expect(result.count == 1 && result[0].hasPrefix("failed: the probe did not come back"), "\(result)")
    }
}

private func describe(_ result: TakeRecorder.Result) -> String {
    switch result {
    case .calibrated(let frames, let reason, _): frames.map { "calibrated \($0)" } ?? "failed: \(reason ?? "")"
    case .saved(let id, _, _): "saved \(id)"
    case .dropped(let id, let reason): "dropped \(id): \(reason)"
    }
}
