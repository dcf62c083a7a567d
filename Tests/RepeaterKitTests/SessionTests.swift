import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import Testing

/// The repository's root, from this file's place in it.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

private func parse(_ text: String, shown: String = "'s.json'") throws(RepeaterError) -> Session {
    try Session.parse(Data(text.utf8), shown: shown)
}

/// The error message `body` throws, or nil.
private func message(_ body: () throws -> Void) -> String? {
    do { try body() } catch { return (error as? RepeaterError)?.message ?? "\(error)" }
    return nil
}

@Suite("Sessions")
struct SessionTests {
    static let golden = repositoryRoot + "/Tests/RepeaterKitTests/Golden/session-example.json"

    @Test("the documented example: load → save writes it back byte for byte, unknown fields included")
    func goldenRoundTrip() throws {
        let text = try String(contentsOfFile: Self.golden, encoding: .utf8)
        let session = try parse(text)
        #expect(session.text == text)
        #expect(try parse(session.text) == session)
        #expect(session.extra["notes"] == .string("Fields repeater does not know, like this one, are kept when it saves."))
        #expect(session.loops[1].extra["colour"] == .string("orange"))
        #expect(session.loops.map(\.name) == ["head", "solo bar 9"])
        #expect(session.loop == CurrentLoop(a: 2_690_100, b: 2_866_500, on: true))
        #expect(session.trainer == SpeedTrainer(from: 0.6, step: 0.05, every: 3, to: 1, stepIndex: 2, passes: 1))
    }

    @Test("the manual shows the documented example exactly")
    func manualShowsGolden() throws {
        let readme = try String(contentsOfFile: repositoryRoot + "/docs/manual.md", encoding: .utf8)
        let text = try String(contentsOfFile: Self.golden, encoding: .utf8)
        #expect(readme.contains("```json\n" + text + "```"))
    }

    @Test("the sessions in sessions/ read and round-trip")
    func shippedSessions() throws {
        for name in ["demo.json", "language.json"] {
            let text = try String(contentsOfFile: repositoryRoot + "/sessions/" + name, encoding: .utf8)
            let session = try parse(text)
            #expect(session.text == text, "\(name) is not in the form repeater writes")
            // The demo has its named loops; the language demo its subtitles and a drill through them.
            if name == "demo.json" { #expect(session.loops.count >= 2) } else {
                #expect(session.linesSource == "phrases.srt" && session.drill == DrillSpec(passes: 2, gapFactor: 1.2))
            }
        }
    }

    @Test("a session built in code round-trips: load → save → load is identical")
    func builtRoundTrip() throws {
        var session = Session(audio: "/music/a b \"c\".wav", sampleRate: 48_000)
        session.position = 123_456
        session.loop = CurrentLoop(a: 1000, b: 2000, on: false)
        session.loops = [NamedLoop(name: "é ü 漢字", start: 5, end: 6), NamedLoop(name: "tab\there", start: 0, end: 1)]
        session.activeLoop = "é ü 漢字"
        session.speed = 1.25
        session.pitch = 3
        session.volume = 0
        session.pan = -1
        session.gapSeconds = 0.333
        session.trainer = SpeedTrainer(from: 1, step: -0.1, every: 1, to: 0.5)
        let again = try parse(session.text)
        #expect(again == session)
        #expect(again.text == session.text)
    }

    @Test("frames win; a loop written only with times is read from them")
    func timesAsFallback() throws {
        let session = try parse("""
        {"version": 1, "audio": "x.wav", "sample_rate": 48000,
         "loops": [{"name": "v", "start_time": "0:01.5", "end_time": "2"}], "loop": {"a_time": "1", "b": 96001}}
        """)
        #expect(session.loops[0].start == 72_000 && session.loops[0].end == 96_000)
        #expect(session.loop == CurrentLoop(a: 48_000, b: 96_001, on: true))
    }

    @Test("errors name the file and the field or line, in one line", arguments: [
        ("{\"version\": 1,\n \"audio\": \"x.wav\"\n \"speed\": 1}", "session 's.json' line 3, column 2: expected ',' or '}' after the value of \"audio\""),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"speed\": \"fast\"}", "session 's.json': field \"speed\" must be a number, not a string"),
        ("{\"version\": 1, \"audio\": 7}", "session 's.json': field \"audio\" must be a string, not a number"),
        ("{\"version\": 2, \"audio\": \"x.wav\"}", "session 's.json': field \"version\" is 2: the file was written by a newer repeater"),
        ("{\"audio\": \"x.wav\"}", "session 's.json' has no \"version\" field"),
        ("[1, 2]", "session 's.json' is a list, not a session"),
        ("", "session 's.json' line 1, column 1: the file is empty"),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"loops\": [{\"name\": \"a\", \"start\": 10, \"end\": 5}]}", "field \"loops[0]\" \"a\" starts (10) at or after its end (5)"),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"loops\": [{\"name\": \"a\", \"start\": 1.5, \"end\": 5}]}", "field \"loops[0].start\" must be a whole number of frames, not a fraction"),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"loops\": [{\"name\": \"a\", \"start\": 0}]}", "field \"loops[0].end\" is missing"),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"active_loop\": \"b\"}", "field \"active_loop\" names \"b\", which is not in \"loops\""),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"volume\": 9}", "field \"volume\" is 9.0, outside"),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"trainer\": {\"from\": 1, \"step\": 0.1, \"every\": 2, \"to\": 0.5}}", "field \"trainer\" steps by 0.1 from 1.0, which never reaches 0.5"),
        ("{\"version\": 1, \"audio\": \"x.wav\", \"format\": \"other\"}", "field \"format\" is not \"repeater-session\""),
        ("{\"version\": 1, \"audio\": \"x.wav\",}", "line 1, column 33: expected a field name in double quotes, found '}'"),
    ])
    func errors(text: String, expected: String) {
        let got = message { _ = try parse(text) }
        #expect(got?.contains(expected) == true, "\(got ?? "no error")")
        #expect(got.map { !$0.contains("\n") } ?? false)
    }

    @Test("loops and the position are checked against the audio; another rate is scaled")
    func checkAgainstAudio() throws {
        let info = AudioFileInfo(path: "/m/song.wav", formatName: "WAV", encodingName: "16 bit", sampleRate: 48_000,
                                 channelCount: 2, frameCount: 480_000, headerFrameCount: nil)
        var outside = try parse("{\"version\": 1, \"audio\": \"song.wav\", \"sample_rate\": 48000, \"loops\": [{\"name\": \"coda\", \"start\": 0, \"end\": 500000}]}")
        #expect(message { try outside.check(against: info, shown: "'s.json'") }
                == "session 's.json': field \"loops\" \"coda\" ends at 0:10.417, after the end of 'song.wav' (0:10.000)")
        var late = try parse("{\"version\": 1, \"audio\": \"song.wav\", \"sample_rate\": 48000, \"position\": 480000}")
        #expect(message { try late.check(against: info, shown: "'s.json'") }?.contains("field \"position\" 0:10.000 is at or after the end") == true)
        var other = try parse("{\"version\": 1, \"audio\": \"song.wav\", \"sample_rate\": 44100, \"loop\": {\"a\": 44100, \"b\": 88200}}")
        try other.check(against: info, shown: "'s.json'")
        #expect(other.loop == CurrentLoop(a: 48_000, b: 96_000, on: true) && other.sampleRate == 48_000)
    }

    @Test("the per-file session lives under XDG_STATE_HOME, keyed by the absolute path; audio paths resolve from the session's folder")
    func places() {
        let one = SessionStore.keyedPath(forAudio: "/music/a/take.flac", environment: ["XDG_STATE_HOME": "/state", "HOME": "/home/u"])
        let two = SessionStore.keyedPath(forAudio: "/music/b/take.flac", environment: ["XDG_STATE_HOME": "/state", "HOME": "/home/u"])
        #expect(one.hasPrefix("/state/repeater/sessions/take.flac-") && one.hasSuffix(".json") && one != two)
        #expect(one == SessionStore.keyedPath(forAudio: "/music/a/../a/take.flac", environment: ["XDG_STATE_HOME": "/state"]))
        #expect(SessionStore.keyedPath(forAudio: "/x.wav", environment: ["HOME": "/home/u"]).hasPrefix("/home/u/.local/state/repeater/sessions/x.wav-"))
        #expect(Session.audioReference("/s/songs/a.wav", sessionPath: "/s/practice.json") == "songs/a.wav")
        #expect(Session.audioReference("/elsewhere/a.wav", sessionPath: "/s/practice.json") == "/elsewhere/a.wav")
        #expect(Session(audio: "songs/a.wav", sampleRate: 1).audioPath(sessionPath: "/s/p.json") == "/s/songs/a.wav")
        #expect(Session(audio: "/abs/a.wav", sampleRate: 1).audioPath(sessionPath: "/s/p.json") == "/abs/a.wav")
    }

    @Test("an atomic write replaces the file whole and leaves no temporary behind")
    func atomicWrite() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("deep/er/s.json")
        try SessionStore.writeAtomically("one\n", to: path)
        try SessionStore.writeAtomically("two\n", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("deep/er")) == ["s.json"])
        #expect(message { try SessionStore.writeAtomically("x", to: "/proc/nope/s.json") }?.hasPrefix("cannot") == true)
    }

    @Test("the trainer: FROM:STEP:EVERY:TO, exact steps, resumes on its step")
    func trainer() throws {
        var trainer = try TrainerSpec(parsing: "0.6:0.05:3:1.0").trainer
        var speeds: [Double] = [trainer.speed]
        for _ in 0..<40 { if let next = trainer.passCompleted() { speeds.append(next) } }
        #expect(speeds == [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0])
        #expect(trainer.isDone && trainer.speed == 1)
        let resumed = SpeedTrainer(from: 0.6, step: 0.05, every: 3, to: 1, speed: 0.8, passes: 2)
        #expect(resumed.speed == 0.8 && resumed.passes == 2)
        var uneven = SpeedTrainer(from: 0.5, step: 0.3, every: 1, to: 1)
        #expect([uneven.passCompleted(), uneven.passCompleted(), uneven.passCompleted()] == [0.8, 1.0, nil])
    }
}
