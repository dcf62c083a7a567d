import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("Times")
struct TimeFormatTests {
    @Test("every documented form parses to the right frame", arguments: [
        ("83.5", 4_008_000), ("1:23.5", 4_008_000), ("1:02:03.25", 178_716_000), ("3984000f", 3_984_000),
        ("0", 0), ("0:00.001", 48), ("  12 ", 576_000),
    ])
    func parses(text: String, frame: Int) throws {
        #expect(try TimeSpec(parsing: text).frame(atRate: 48000) == frame)
    }

    @Test("malformed times are refused with a message that shows the forms", arguments: [
        "", "abc", "1:75", "1::2", "-3", "1:2:3:4", "12ff", "f", "1e3", "1:-5",
    ])
    func refuses(text: String) {
        #expect {
            _ = try TimeSpec(parsing: text)
        } throws: { error in
            (error as? RepeaterError)?.message.contains("83.5") == true
        }
    }

    @Test("positions print as m:ss.mmm, with hours when needed")
    func formats() {
        #expect(formatTime(frame: 0, sampleRate: 48000) == "0:00.000")
        #expect(formatTime(frame: 4_008_000, sampleRate: 48000) == "1:23.500")
        #expect(formatTime(frame: 178_716_000, sampleRate: 48000) == "1:02:03.250")
        #expect(formatTime(frame: 44_099, sampleRate: 44100) == "0:01.000")
        #expect(formatTime(frame: 47_975, sampleRate: 48000) == "0:00.999")
    }
}

@Suite("What fuzzing found")
struct FuzzFindingsTests {
    @Test("a time too large for a frame count is a one-line error, not a crash (a run of 4s, 1e300, 9e18 frames)", arguments: [
        String(repeating: "4", count: 40), "1e300", "99999999999999999999f", "1000000001", "16666667:00",
    ])
    func hugeTimes(text: String) {
        #expect(throws: RepeaterError.self) { try TimeSpec(parsing: text) }
        #expect(TimeSpec.seconds(1e300).frame(atRate: 48_000) == TimeSpec.maximumFrames)
        #expect(TimeSpec.seconds(-.infinity).frame(atRate: 48_000) == 0)
    }

    @Test("a relative seek too large or not a number is refused in one line", arguments: ["seek +1e300", "seek -inf", "seek +nan"])
    func hugeSeeks(line: String) {
        #expect(throws: RepeaterError.self) { try ControlCommand(line: line) }
    }

    @Test("a session without a sample rate formats its times as frames instead of dividing by zero")
    func noSampleRate() {
        #expect(formatTime(frame: 1_323_000, sampleRate: 0) == "1323000f")
    }
}
