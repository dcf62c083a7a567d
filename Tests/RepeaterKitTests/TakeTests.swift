import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("Takes without JACK: the probe, the take file, the commands, the session")
struct TakeTests {
    @Test("the probe is found to the frame after any delay, attenuated by 30 dB or inverted; silence and noise are not it", arguments: [0, 1, 256, 1256, 47_000])
    func locateProbe(delay: Int) {
        let probe = Calibration.probe
        var input = [Float](repeating: 0, count: delay + probe.count + 500)
        for (index, value) in probe.enumerated() { input[delay + index] = value * 0.03 }
        #expect(Calibration.locate(input) == delay)
        #expect(Calibration.locate(input.map { -$0 }) == delay)
        #expect(Calibration.locate([Float](repeating: 0, count: input.count)) == nil)
        var state: UInt32 = 7
        let noise = (0..<input.count).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) - 0.5
        }
        #expect(Calibration.locate(noise) == nil)
    }

    @Test("the probe is found after the music that played before it comes back, louder than half its peak (clicks at 0.8 from a loop)")
    func locateProbeAfterMusic() {
        let probe = Calibration.probe
        let delay = 512
        var input = [Float](repeating: 0, count: 96_000)
        // The tail of the music before the probe: 96-frame bursts at 0.8, in the 512 frames before
        // the probe arrives and one under it.
        for start in [40, 300, 700] {
            for t in 0..<96 { input[start + t] += Float(0.8 * cos(2 * Double.pi * Double(t) / 24)) }
        }
        for (index, value) in probe.enumerated() { input[delay + index] += value }
        #expect(Calibration.locate(input) == delay)
    }

    @Test("a take file keeps 16- and 24-bit values bit for bit (libsndfile's own float → integer scaling would not), and clips beyond full scale")
    func takeFileExact() throws {
        let scratch = ScratchDirectory()
        let sixteen = (0..<4096).map { Float(Int16(truncatingIfNeeded: $0 &* 40_503)) / 32_768 }
        let twentyFour = (0..<4096).map { (index: Int) -> Float in
            let value: Int = (index &* 2_654_435) % 8_388_608 - 4_194_304
            return Float(value) / 8_388_608
        }
        let path = scratch.file("take.flac")
        try TakeFile.write([sixteen, twentyFour], sampleRate: 48_000, to: path)
        let (channels, rate) = try TakeFile.read(path)
        #expect(rate == 48_000 && channels.count == 2)
        #expect(channels[0] == sixteen && channels[1] == twentyFour)
        try TakeFile.write([[1.5, -1.5, 1, -1]], sampleRate: 48_000, to: path)
        #expect(try TakeFile.read(path).channels[0] == [8_388_607 / 8_388_608, -1, 8_388_607 / 8_388_608, -1])
        #expect(!FileManager.default.fileExists(atPath: path + ".part"))
        #expect(throws: RepeaterError.self) { try TakeFile.write([[0]], sampleRate: 48_000, to: scratch.file("no/such/folder/take.flac")) }
    }

    @Test("the commands parse; bad ones say how to write them", arguments: [
        ("record on", ControlCommand.take(.record(true))), ("record off", .take(.record(false))), ("calibrate", .take(.calibrate)),
        ("take play", .take(.play(nil))), ("take play 3", .take(.play(3))), ("take stop", .take(.stop)),
        ("take keep 2", .take(.keep(2))), ("take delete 7", .take(.delete(7))), ("compare both", .take(.compare(.both))),
    ])
    func commands(text: String, expected: ControlCommand) throws {
        #expect(try ControlCommand(line: text) == expected)
    }

    @Test("bad take commands are refused in one line", arguments: [("record maybe", "usage: record on"), ("take play zero", "not a take number"),
                                                                  ("take", "usage: take play"), ("compare loud", "not a mode"), ("calibrate now", "usage: calibrate")])
    func badCommands(text: String, message: String) {
        #expect(throws: RepeaterError.self) { try ControlCommand(line: text) }
        do { _ = try ControlCommand(line: text) } catch { #expect(error.message.contains(message), "\(error.message)") }
    }

    @Test("the session lists its takes and reads them back; a bad entry names its field")
    func sessionTakes() throws {
        var session = Session(audio: "song.flac", sampleRate: 48_000)
        session.takes = [Take(number: 1, file: "song.takes/take-0001.flac", kind: .pass, pass: 3, line: nil, startFrame: 48_000, endFrame: 96_000,
                              speed: 0.75, frameCount: 64_000, sampleRate: 48_000, roundTripFrames: 1256, roundTripMeasured: true, kept: true,
                              recorded: "2026-12-01T17:00:00Z"),
                         Take(number: 4, file: "/abs/take-0004.flac", kind: .answer, pass: 0, line: 2, startFrame: 96_000, endFrame: 120_000,
                              speed: 1, frameCount: 28_800, sampleRate: 48_000, roundTripFrames: 512, roundTripMeasured: false, recorded: "")]
        let read = try Session.parse(Data(session.text.utf8), shown: "s.json")
        #expect(read.takes == session.takes)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(session.text.utf8)) as? [String: Any])
        var takes = try #require(object["takes"] as? [[String: Any]])
        #expect(takes[0]["start_time"] as? String == "0:01.000" && takes[0]["round_trip"] as? Int == 1256)
        takes[1]["kind"] = "chorus"
        var bad = object
        bad["takes"] = takes
        let badData = try JSONSerialization.data(withJSONObject: bad)
        do {
            _ = try Session.parse(badData, shown: "s.json")
            Issue.record("a take of kind chorus was read")
        } catch {
            #expect(error.message.contains("takes[2].kind"), "\(error.message)")
        }
    }

    @Test("the round trip measured is kept per set of connections and rate, in a file written whole")
    func latencyStore() {
        let scratch = ScratchDirectory()
        let store = LatencyStore(path: scratch.file("config/latency.json"))
        #expect(store.roundTrip(connections: "out_1>system:playback_1|in_1<system:capture_1", sampleRate: 48_000) == nil)
        #expect(store.save(connections: "out_1>system:playback_1|in_1<system:capture_1", sampleRate: 48_000, frames: 1536) == nil)
        #expect(store.save(connections: "out_1>dly:in_1|in_1<dly:out_1", sampleRate: 48_000, frames: 512) == nil)
        #expect(store.roundTrip(connections: "out_1>system:playback_1|in_1<system:capture_1", sampleRate: 48_000) == 1536)
        #expect(store.roundTrip(connections: "out_1>dly:in_1|in_1<dly:out_1", sampleRate: 48_000) == 512)
        #expect(store.roundTrip(connections: "out_1>dly:in_1|in_1<dly:out_1", sampleRate: 44_100) == nil)
    }
}
