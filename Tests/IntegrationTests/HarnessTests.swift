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
}
