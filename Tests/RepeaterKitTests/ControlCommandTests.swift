import RepeaterKit
import Testing

@Suite("Stdin protocol")
struct ControlCommandTests {
    @Test("every documented command parses", arguments: [
        ("play", ControlCommand.play), ("pause", .pause), ("toggle", .toggle), ("status", .status), ("quit", .quit),
        ("seek 1:23.5", .seek(.seconds(83.5))), ("seek +5", .seekBy(5)), ("seek -2.5", .seekBy(-2.5)),
        ("a", .setA(nil)), ("b", .setB(nil)), ("a 12.5", .setA(.seconds(12.5))), ("b 480000f", .setB(.frames(480_000))),
        ("loop 1-2.5", .loop(LoopSpec(start: .seconds(1), end: .seconds(2.5)))),
        ("loop 0:30-end", .loop(LoopSpec(start: .seconds(30), end: nil))),
        ("loop on", .loopOn(true)), ("loop off", .loopOn(false)), ("gap 0.5", .gap(.seconds(0.5))),
        ("  PLAY  ", .play), ("rate 0.8", .rate(0.8)), ("pitch -0.5", .pitch(-0.5)), ("chime 3:47", .chime(hour: 3, minute: 47)),
        ("chime", .chimeNow), ("save", .save), ("loops", .listLoops), ("loop save chorus 2", .loopSave("chorus 2")),
        ("loop delete intro", .loopDelete("intro")), ("loop verse", .loopSelect("verse")), ("loop verse-2", .loopSelect("verse-2")),
        ("loop 3", .loopSelect("3")), ("trainer off", .trainer(nil)),
        ("trainer 0.6:0.05:3:1.0", .trainer(TrainerSpec(from: 0.6, step: 0.05, every: 3, to: 1))),
        ("volume -6dB", .volume(Volume.gain(decibels: -6))), ("pan 0.5", .pan(0.5)),
        ("transport follow", .transport(.follow)), ("transport DRIVE", .transport(.drive)), ("transport off", .transport(.off)),
        ("learn ab-here", .learn(.abHere)), ("learn faster", .learn(.faster)), ("learn off", .learn(nil)),
    ])
    func parses(line: String, command: ControlCommand) throws {
        #expect(try ControlCommand(line: line) == command)
    }

    @Test("unknown and malformed commands are refused with a one-line reason", arguments: [
        ("jump 3", "unknown command 'jump'"), ("seek", "usage: seek TIME"), ("seek x", "'x' is not a time"),
        ("a 1 2", "usage: a [TIME]"), ("loop", "usage: loop A-B"), ("loop save", "usage: loop save NAME"),
        ("trainer 0.6:0.05:0:1", "EVERY is a number of passes"), ("trainer 1:0.1:3:0.5", "never takes"), ("trainer fast", "not a trainer"),
        ("volume loud", "volume takes decibels"), ("pan left", "pan takes -1"),
        ("loop 1-x", "'x' is not a time"), ("rate 5", "rate takes 0.25 to 4"), ("pitch 30", "pitch takes -24 to 24"),
        ("chime 25:00", "not a time of day"), ("transport on", "transport takes off, follow or drive"),
        ("learn jump", "learn takes one of play-pause, ab-here"), ("learn", "usage: learn ACTION"), ("gap", "usage: gap TIME"), ("play now", "'play' takes no argument"),
    ])
    func refuses(line: String, reason: String) {
        #expect {
            _ = try ControlCommand(line: line)
        } throws: { error in
            guard let message = (error as? RepeaterError)?.message else { return false }
            return message.contains(reason) && !message.contains("\n")
        }
    }

    @Test("a loop is checked against the file: A < B ≤ length")
    func loopChecks() throws {
        let spec = try LoopSpec(parsing: "1-end")
        #expect(try spec.frames(sampleRate: 48000, frameCount: 96_000) == (48_000, 96_000))
        #expect(throws: RepeaterError.input("loop 0:01.000-0:01.000: A must be before B")) {
            _ = try LoopSpec(parsing: "1-1").frames(sampleRate: 48000, frameCount: 96_000)
        }
        #expect(throws: RepeaterError.input("loop 0:01.000-0:03.000 ends after the file (0:02.000)")) {
            _ = try LoopSpec(parsing: "1-3").frames(sampleRate: 48000, frameCount: 96_000)
        }
    }
}
