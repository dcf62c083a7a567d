import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import Testing

/// A steady grid: a beat every 24 000 frames (120 BPM at 48 kHz) from frame 12 000, a bar every 4
/// beats from the third beat (two beats of pickup), 40 s long.
private func steadyGrid() -> BeatGrid {
    let beats = stride(from: 12_000, to: 1_920_000, by: 24_000).map { $0 }
    return BeatGrid(sampleRate: 48_000, frameCount: 1_920_000, beatFrames: beats,
                    downbeatFrames: beats.enumerated().filter { $0.offset >= 2 && ($0.offset - 2) % 4 == 0 }.map(\.element),
                    beatsPerBar: 4, key: "A minor")
}

@Suite("The map: bars and beats, corrections, the cache")
struct MapTests {
    @Test("bar and beat of a frame: bar 1 at the first downbeat, a pickup counts up to the bar's last beat")
    func barAndBeat() {
        let grid = steadyGrid()
        #expect(grid.tempoBPM == 120)
        #expect(grid.barAndBeat(at: 0) == nil)  // before the first beat
        #expect(grid.barAndBeat(at: 12_000)! == (0, 3))  // the pickup: beats 3 and 4 of bar 0
        #expect(grid.barAndBeat(at: 36_000)! == (0, 4))
        #expect(grid.barAndBeat(at: 60_000)! == (1, 1))
        #expect(grid.barAndBeat(at: 60_000 + 3 * 24_000 + 23_999)! == (1, 4))
        #expect(grid.barAndBeat(at: 60_000 + 4 * 24_000)! == (2, 1))
    }

    @Test("bars 2 to 3 run from the downbeat of 2 to the downbeat of 4; the last bar ends a bar's length later; out of range is one line")
    func framesOfBars() throws {
        let grid = steadyGrid()
        let bars = try grid.frames(ofBars: 2, 3)
        #expect(bars == (a: grid.downbeatFrames[1], b: grid.downbeatFrames[3]))
        #expect(grid.bars(a: bars.a, b: bars.b)! == (2, 3))
        let last = grid.barCount
        let end = try grid.frames(ofBars: last, last)
        #expect(end == (a: grid.downbeatFrames[last - 1], b: min(grid.frameCount, grid.downbeatFrames[last - 1] + 96_000)))
        #expect(throws: RepeaterError.input("bar \(last + 1) is past the last bar (\(last))")) { _ = try grid.frames(ofBars: 2, last + 1) }
        #expect(throws: RepeaterError.input("bars 3-2: the first bar is 1, and the range runs forwards")) { _ = try grid.frames(ofBars: 3, 2) }
    }

    @Test("snapping: the nearest beat, the nearest bar")
    func nearest() {
        let grid = steadyGrid()
        #expect(grid.nearest(to: 70_000, bars: false) == 60_000)
        #expect(grid.nearest(to: 73_000, bars: false) == 84_000)
        #expect(grid.nearest(to: 100_000, bars: true) == 60_000)
        #expect(grid.nearest(to: 120_000, bars: true) == 156_000)
    }

    @Test("corrections: double and halve the tempo, a steady tempo through a marked downbeat, a nudge, beats per bar; applied twice they give the same")
    func corrections() {
        let detected = steadyGrid()
        var corrections = MapCorrections()
        #expect(corrections.apply(to: detected) == detected)
        corrections.tempoOctaves = 1
        let doubled = corrections.apply(to: detected)
        #expect(doubled.tempoBPM == 240)
        #expect(doubled.beatFrames.prefix(4) == [12_000, 24_000, 36_000, 48_000])
        #expect(doubled.downbeatFrames.contains(60_000))  // bars still count from the analysis's first bar
        #expect(doubled.downbeatFrames[1] - doubled.downbeatFrames[0] == 48_000)  // four of the new beats
        corrections.tempoOctaves = -1
        let halved = corrections.apply(to: detected)
        #expect(halved.tempoBPM == 60)
        #expect(halved.beatFrames.contains(60_000))  // the bar's first beat is kept
        corrections = MapCorrections()
        corrections.tempoBPM = 100
        corrections.downbeatFrame = 60_000
        corrections.beatsPerBar = 3
        let steady = corrections.apply(to: detected)
        #expect(steady.tempoBPM == 100)
        #expect(steady.beatFrames.contains(60_000) && steady.beatFrames[1] - steady.beatFrames[0] == 28_800)
        #expect(steady.downbeatFrames.contains(60_000) && steady.downbeatFrames[1] - steady.downbeatFrames[0] == 3 * 28_800)
        #expect(steady.beatsPerBar == 3)
        #expect(corrections.apply(to: detected) == steady)
        var nudged = MapCorrections()
        nudged.nudgeFrames = 480
        #expect(nudged.apply(to: detected).beatFrames.first == 12_480)
        #expect(nudged.apply(to: detected).downbeatFrames.first == 60_480)
    }

    @Test("an unsure tempo offers the other octave (grid, screen, analyze's text); a tempo correction makes it sure")
    func unsureTempo() {
        var grid = steadyGrid()
        grid.tempoConfidence = 0.15
        grid.tempoAlternativeBPM = 240
        #expect(grid.unsureAlternativeBPM == 240)
        var sure = grid
        sure.tempoConfidence = 0.8
        #expect(sure.unsureAlternativeBPM == nil)
        var doubled = MapCorrections()
        doubled.tempoOctaves = 1
        let corrected = doubled.apply(to: grid)
        #expect(corrected.tempoConfidence == 1 && corrected.tempoAlternativeBPM == nil && corrected.unsureAlternativeBPM == nil)
        #expect(abs(corrected.tempoBPM - 240) < 1)
        // A nudge is no tempo correction: the doubt stays.
        var nudged = MapCorrections()
        nudged.nudgeFrames = 100
        #expect(nudged.apply(to: grid).unsureAlternativeBPM == 240)
        // The screen names both and the key that switches; analyze's text too.
        var state = exampleScreenState()
        state.map.state = .ready
        state.map.bar = 3
        state.map.beat = 1
        state.map.tempoBPM = 120
        state.map.tempoAlternativeBPM = 240
        state.map.beatsPerBar = 4
        let lines = Screen.render(state, width: 132, color: false)
        #expect(lines.contains { $0.contains("120.0 BPM (or 240? * doubles)") }, "\(lines)")
        state.map.tempoAlternativeBPM = 60
        #expect(Screen.render(state, width: 132, color: false).contains { $0.contains("120.0 BPM (or 60? / halves)") })
        let text = MapReport.text(grid, path: "song.wav", cached: false)
        #expect(text.contains("or 240.0 BPM? (sure 0.15 of 1); in play, * (tempo double) switches to it"), "\(text)")
        #expect(!MapReport.text(sure, path: "song.wav", cached: false).contains(" or "))
    }

    @Test("the cache: written, read back the same, refused when broken or made by another analysis version")
    func cache() throws {
        let scratch = ScratchDirectory()
        var grid = steadyGrid()
        grid.tempoChanges = [TempoSpan(startFrame: 12_000, bpm: 120)]
        grid.tempoConfidence = 0.375
        grid.tempoAlternativeBPM = 240
        let path = scratch.file("maps/abc.json")
        #expect(MapCache.save(grid, to: path))
        guard case .found(let read) = MapCache.load(path) else { Issue.record("not read back"); return }
        #expect(read == grid)
        try Data("{\"format\":\"repeater-map\",\"analysis_version\":1,\"beat_frames\":[3,2]".utf8).write(to: URL(fileURLWithPath: path))
        guard case .unusable(let why) = MapCache.load(path) else { Issue.record("a broken entry was used"); return }
        #expect(why.hasPrefix("the cached analysis '\(path)' cannot be used ("), "\(why)")
        guard case .missing = MapCache.load(scratch.file("maps/none.json")) else { Issue.record("found a missing entry"); return }
    }

    @Test("the content hash follows the bytes: the same bytes the same key, one byte changed another")
    func contentHash() throws {
        let scratch = ScratchDirectory()
        var bytes = Data((0..<3_000_001).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: scratch.file("a")))
        try bytes.write(to: URL(fileURLWithPath: scratch.file("b")))
        bytes[2_999_999] ^= 1
        try bytes.write(to: URL(fileURLWithPath: scratch.file("c")))
        let a = try ContentHash.of(path: scratch.file("a")), b = try ContentHash.of(path: scratch.file("b")), c = try ContentHash.of(path: scratch.file("c"))
        #expect(a == b && a != c && a.count == 16)
    }

    @Test("a session keeps the corrections and the practice settings, and reads them back")
    func sessionRoundTrip() throws {
        var session = Session(audio: "song.flac", sampleRate: 48_000)
        session.mapCorrections.tempoBPM = 96
        session.mapCorrections.tempoOctaves = 0
        session.mapCorrections.nudgeFrames = -240
        session.mapCorrections.downbeatFrame = 60_000
        session.mapCorrections.beatsPerBar = 3
        session.snap = .bar
        session.countInBeats = 3
        session.click = true
        var named = NamedLoop(name: "bars 5-8", start: 1000, end: 2000)
        named.extra["bars"] = .array([.int(5), .int(8)])
        session.loops = [named]
        let text = session.text
        #expect(text.contains("\"map\": {") && text.contains("\"downbeat_time\": \"0:01.250\"") && text.contains("\"bars\": [5, 8]"), "\(text)")
        let read = try Session.parse(Data(text.utf8), shown: "'s.json'")
        #expect(read == session)
        #expect(throws: RepeaterError.input("session 's.json': field \"snap\" must be \"beat\", \"bar\" or \"off\", not \"half\"")) {
            _ = try Session.parse(Data(text.replacingOccurrences(of: "\"snap\": \"bar\"", with: "\"snap\": \"half\"").utf8), shown: "'s.json'")
        }
    }

    @Test("the stdin protocol's map commands, and their errors", arguments: [
        ("loop bars 17 24", ControlCommand.map(.loopBars(17, 24))), ("loop bars 3-4", .map(.loopBars(3, 4))),
        ("snap bar", .map(.snap(.bar))), ("count-in 4", .map(.countIn(4))), ("click on", .map(.click(true))),
        ("click-mix off", .map(.clickMix(false))), ("tempo 96.5", .map(.tempo(96.5))), ("tempo double", .map(.tempoDouble)),
        ("tempo half", .map(.tempoHalve)), ("tempo detected", .map(.tempoDetected)), ("grid -10", .map(.gridNudge(-0.01))),
        ("downbeat", .map(.downbeat(nil))), ("downbeat 1:02", .map(.downbeat(.seconds(62)))), ("beats-per-bar 3", .map(.beatsPerBar(3))),
        ("map", .map(.show)), ("map reset", .map(.reset)),
    ])
    func stdinCommands(line: String, command: ControlCommand) throws {
        #expect(try ControlCommand(line: line) == command)
    }

    @Test("map commands out of range are one line", arguments: [
        ("loop bars 17", "usage: loop bars FIRST LAST (e.g. loop bars 17 24)"), ("snap half", "snap takes beat, bar or off, not 'half'"),
        ("count-in 40", "count-in takes 0 to 16 clicks, not '40'"), ("tempo 1000", "tempo takes 20 to 400 BPM, double, half or detected; not '1000'"),
        ("beats-per-bar 0", "beats-per-bar takes 1 to 16, not '0'"),
    ])
    func stdinErrors(line: String, message: String) {
        #expect(throws: RepeaterError.input(message)) { _ = try ControlCommand(line: line) }
    }

    @Test("OSC: /repeater/loop/bars ii and the other map addresses")
    func osc() {
        #expect(OSCRequest.decode(path: "/repeater/loop/bars", arguments: [.int(17), .int(24)]) == .success(.command(.map(.loopBars(17, 24)))))
        #expect(OSCRequest.decode(path: "/repeater/snap", arguments: [.string("beat")]) == .success(.command(.map(.snap(.beat)))))
        #expect(OSCRequest.decode(path: "/repeater/click", arguments: [.int(1)]) == .success(.command(.map(.click(true)))))
        #expect(OSCRequest.decode(path: "/repeater/tempo/double", arguments: []) == .success(.command(.map(.tempoDouble))))
        #expect(OSCRequest.decode(path: "/repeater/loop/bars", arguments: [.int(0), .int(2)])
                == .failure(OSCError(message: "/repeater/loop/bars 0 2: bars count from 1, the first before the last")))
    }

    @Test("--loop bars:17-24 parses; bars:24-17 and bars:x are one line")
    func loopSpec() throws {
        #expect(try LoopSpec(parsing: "bars:17-24").bars == 17...24)
        #expect(throws: RepeaterError.input("'bars:24-17' is not a range of bars: write bars:FIRST-LAST, e.g. bars:17-24 (bar 1 is the first)")) {
            _ = try LoopSpec(parsing: "bars:24-17")
        }
    }
}
