import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("Hearing the part: options, commands, sessions, render")
struct HearingKitTests {
    @Test("isolation names parse and print back; bad ones are one line", arguments: [
        ("off", IsolationMode.off), ("centre", .centre), ("center", .centre), ("sides", .sides), ("left", .left), ("right", .right),
        ("bass", .bass), ("band:200-2000", .band(lowHz: 200, highHz: 2000)), ("band:80.5-400", .band(lowHz: 80.5, highHz: 400)),
    ])
    func isolationNames(text: String, mode: IsolationMode) throws {
        #expect(try IsolationMode(parsing: text) == mode)
        #expect(try IsolationMode(parsing: mode.name) == mode)
    }

    @Test("bad isolations and EQs are one line")
    func badInput() {
        #expect(throws: RepeaterError.input("'band:2000-200' is not a band: write band:LO-HI in Hz, from 10 to 20000, LO below HI (e.g. band:200-2000)")) {
            _ = try IsolationMode(parsing: "band:2000-200")
        }
        #expect(throws: RepeaterError.input("'vocals' is not an isolation: use off|centre|sides|left|right|bass|band:LO-HI, e.g. band:200-2000")) {
            _ = try IsolationMode(parsing: "vocals")
        }
        #expect(throws: RepeaterError.input("'-24,0' is not an EQ: write LOW,MID,HIGH in dB from -40 to +12, e.g. -24,0,3")) {
            _ = try EqualizerGains(parsing: "-24,0")
        }
    }

    @Test("stdin and OSC: isolate, eq, notes")
    func commands() throws {
        #expect(try ControlCommand(line: "isolate sides") == .hearing(.isolate(.sides)))
        #expect(try ControlCommand(line: "eq -24,0,3") == .hearing(.equalize(lowDB: -24, midDB: 0, highDB: 3)))
        #expect(try ControlCommand(line: "eq -24 0 3") == .hearing(.equalize(lowDB: -24, midDB: 0, highDB: 3)))
        #expect(try ControlCommand(line: "notes loop") == .hearing(.notes(.loop)))
        #expect(OSCRequest.decode(path: "/repeater/isolate", arguments: [.string("band:200-2000")]) == .success(.command(.hearing(.isolate(.band(lowHz: 200, highHz: 2000))))))
        #expect(OSCRequest.decode(path: "/repeater/eq", arguments: [.float(-24), .int(0), .float(3)]) == .success(.command(.hearing(.equalize(lowDB: -24, midDB: 0, highDB: 3)))))
        #expect(OSCRequest.decode(path: "/repeater/notes", arguments: [.string("playhead")]) == .success(.command(.hearing(.notes(.playhead)))))
        #expect(KeyMap.command(for: .character("i")) == .hearing(.isolateNext))
    }

    @Test("a session keeps the isolation and the EQ, and reads them back; a bad one names the field")
    func session() throws {
        var session = Session(audio: "song.flac", sampleRate: 48_000)
        session.isolation = .band(lowHz: 200, highHz: 2000)
        session.equalizer = EqualizerGains(lowDB: -24, midDB: 0, highDB: 3)
        let text = session.text
        #expect(text.contains("\"isolate\": \"band:200-2000\"") && text.contains("\"eq\": [-24.0, 0.0, 3.0]"), "\(text)")
        #expect(try Session.parse(Data(text.utf8), shown: "'s.json'") == session)
        #expect(throws: RepeaterError.input("session 's.json': field \"isolate\" 'vocals' is not an isolation: use off|centre|sides|left|right|bass|band:LO-HI, e.g. band:200-2000")) {
            _ = try Session.parse(Data(text.replacingOccurrences(of: "band:200-2000", with: "vocals").utf8), shown: "'s.json'")
        }
    }

    @Test("render applies --isolate and --eq: sides takes a centred tone out, a flat EQ and off stay bit-exact; a stereo mode on a mono file is one line")
    func render() throws {
        let scratch = ScratchDirectory()
        let frames = 96_000
        var samples = [Float](repeating: 0, count: frames * 2)
        for n in 0..<frames {
            let centre = Float(0.3 * sin(2 * Double.pi * 440 * Double(n) / 48_000))
            samples[2 * n] = centre + Float(0.3 * sin(2 * Double.pi * 660 * Double(n) / 48_000))
            samples[2 * n + 1] = centre
        }
        let writer = try AudioFileWriter(path: scratch.file("mix.wav"), format: .wav, sampleRate: 48_000, channelCount: 2)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: frames) }
        writer.close()
        func rendered(_ extra: [String]) throws -> [Float] {
            guard case .render(let options) = try Invocation.parse(["render", scratch.file("mix.wav"), "-o", scratch.file("out.wav")] + extra) else {
                Issue.record("not a render"); return []
            }
            _ = try OfflineRenderer(options: options).run()
            return try readAll(scratch.file("out.wav")).samples
        }
        let plain = try rendered(["--eq", "0,0,0", "--isolate", "off"])
        #expect(plain == samples)
        let sides = try rendered(["--isolate", "sides"])
        #expect(sides.count == samples.count)  // the isolation's delay is taken out of the file, its tail flushed
        // … and lined up: the left channel's side tone (660 Hz) where the source has it.
        let left = stride(from: 2 * 48_000, to: 2 * 48_100, by: 2).map { sides[$0] }
        let expectedLeft = (48_000..<48_100).map { Float(0.3 * sin(2 * Double.pi * 660 * Double($0) / 48_000)) }
        #expect(zip(left, expectedLeft).allSatisfy { abs($0 - $1) < 0.03 }, "the side tone is not where the source has it")
        // The right channel held only the centred tone: sides leaves (almost) nothing there.
        let right = stride(from: 1 + 2 * 48_000, to: sides.count, by: 2).map { Double($0 < sides.count ? sides[$0] : 0) }
        let rightRMS = (right.reduce(0) { $0 + $1 * $1 } / Double(right.count)).squareRoot()
        print(String(format: "render --isolate sides: the centred tone's channel at %.1f dB", 20 * log10(rightRMS / (0.3 / 2.0.squareRoot()))))
        #expect(rightRMS < 0.3 / 2.0.squareRoot() * 0.1)
        try writeSine(path: scratch.file("mono.wav"), frequency: 440, seconds: 1)
        #expect(throws: RepeaterError.input("--isolate centre needs a stereo file; '\(scratch.file("mono.wav"))' has 1 channel (bass and band:LO-HI work on any)")) {
            guard case .render(let options) = try Invocation.parse(["render", scratch.file("mono.wav"), "-o", scratch.file("x.wav"), "--isolate", "centre"]) else { return }
            _ = try OfflineRenderer(options: options).run()
        }
    }
}
