import Foundation
import RepeaterTestSupport
import Testing

@Suite("The test harness itself")
struct HarnessTests {
    @Test("a player that exited early: sending to it and waiting on it report \"player exited with status S: <stderr>\" as an issue of that test, and the test run goes on (a closed pipe once ended it)")
    func playerExitedEarly() throws {
        let scratch = ScratchDirectory()
        let player = try Child(repeaterPath, ["play", "missing.wav", "--status", "json"], in: scratch.path)
        player.process.waitUntilExit()
        withKnownIssue {
            player.send("line prev")
            player.send("quit")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("player exited with status 2: repeater: error: 'missing.wav': no such file") }
        }
        let waiting = try Child(repeaterPath, ["play", "missing.wav", "--status", "json"], in: scratch.path)
        withKnownIssue {
            #expect(!waiting.waitForOutput(timeout: 10) { $0.contains("\"event\":\"drill\"") })
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("player exited with status 2") }
        }
        #expect(player.finish(timeout: 5).status == 2)
    }

    @Test("the capture comparison: a cycle lost at a reported xrun inside a steady tone is a slip of −256 there and nothing unexplained; the same losses unreported are unexplained; one changed sample is one")
    func captureComparisonOfASteadyTone() throws {
        let scratch = ScratchDirectory()
        // The drill test's old material: a tone whose values repeat every 973 frames, two passes of
        // 1 s with 1.2 s of silence between, after 0.25 s of silence in the capture.
        let tone = (0..<48_000).map { Float(0.3 + 0.2 * sin(2 * Double.pi * Double($0) / 97.3)) }
        let expected = tone + [Float](repeating: 0, count: 57_600) + tone
        var captured = [Float](repeating: 0, count: 12_000) + expected + [Float](repeating: 0, count: 12_000)
        captured.removeSubrange((12_000 + 80_000)..<(12_000 + 80_256))  // one period lost in the gap
        captured.removeSubrange((12_000 + 120_000)..<(12_000 + 120_256))  // and one in the second pass
        try "xrun 92000\nxrun 131700\nxruns 2\n".write(toFile: scratch.file("losses.log"), atomically: true, encoding: .utf8)
        let reported = CaptureComparison(captured: [captured], expected: [expected], losses: GraphLosses(logPath: scratch.file("losses.log")))
        #expect(reported.start == 12_000)
        #expect(reported.slips.map(\.shift) == [-256, -256], "\(reported.slips)")
        #expect(reported.unexplained == 0, "\(reported.unexplained) from \(String(describing: reported.firstUnexplained))")
        try "xruns 0\n".write(toFile: scratch.file("none.log"), atomically: true, encoding: .utf8)
        let unreported = CaptureComparison(captured: [captured], expected: [expected], losses: GraphLosses(logPath: scratch.file("none.log")))
        #expect(unreported.slips.isEmpty && unreported.unexplained > 0)
        var changed = [Float](repeating: 0, count: 12_000) + expected
        changed[12_000 + 130_000] += 0.001
        let one = CaptureComparison(captured: [changed], expected: [expected], losses: GraphLosses(logPath: scratch.file("none.log")))
        #expect(one.unexplained == 1 && one.firstUnexplained?.expectedFrame == 130_000)
    }
}
