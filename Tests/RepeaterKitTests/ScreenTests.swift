import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterLines
import Testing

/// A fixed state: 1:30 file, loop 0:10–0:20, playhead at 0:12.345, two channels metered.
func exampleScreenState() -> ScreenState {
    var state = ScreenState()
    state.fileName = "demo.flac"
    state.state = "playing"
    state.sampleRate = 48_000
    state.frame = 592_560  // 0:12.345
    state.duration = 90 * 48_000
    state.rate = 0.8
    state.pitch = 2
    state.volume = 0.5
    state.pan = -0.2
    state.overview = (0..<2048).map { Float(abs(sin(Double($0) / 90))) }
    state.overviewDone = 2048
    state.a = 10 * 48_000
    state.b = 20 * 48_000
    state.loopOn = true
    state.passes = 3
    state.levels = [ChannelLevel(rmsDB: -12.3, peakDB: -6.1, holdDB: -3, clipped: 0), .silent]
    state.underruns = 1
    state.xruns = 2
    state.load = 0.012
    state.loadPeak = 0.034
    state.trainerLine = "trainer 80 % → 100 %, +5 % every 3 passes: 1 of 3"
    state.sessionLine = "session demo.json · 1 first bar  [2 second bar]  3 whole phrase"
    return state
}

@Suite("Terminal screen")
struct ScreenTests {
    @Test("at 40, 80 and 132 columns every line fits, and the parts are where the state puts them", arguments: [40, 80, 132])
    func layout(width: Int) throws {
        let state = exampleScreenState()
        let lines = Screen.render(state, width: width, color: false)
        for line in lines { #expect(Screen.visibleWidth(line) <= width, "too wide at \(width): '\(line)'") }
        #expect(lines[0].hasPrefix("▶ playing") && lines[0].hasSuffix("0:12.345 / 1:30.000"))
        #expect(lines[1].contains("80 %") && lines[1].contains("+2 st") && lines[1].contains("-6.0 dB") && lines[1].contains("L 20"))
        #expect(lines[2].hasPrefix("trainer 80 %"))
        // The strip and the marker row: A, B and the playhead at their columns.
        let strip = Array(lines[3]), marks = Array(lines[4])
        #expect(strip.count == width && marks.count == width)
        #expect(marks[width * 10 / 90] == "[", "\(lines[3])")
        #expect(marks[Int(Double(20 * 48_000 - 1) / Double(90 * 48_000) * Double(width))] == "]", "\(lines[3])")
        #expect(marks[Int(12.345 / 90 * Double(width))] == "▲", "\(lines[3])")
        #expect(strip.allSatisfy { " ▁▂▃▄▅▆▇█".contains($0) })
        #expect(lines[5].contains("A 0:10.000") && lines[5].contains("B 0:20.000") && lines[5].contains("×3"))
        #expect(lines[6].hasPrefix("session demo.json"))
        // Meters: the RMS bar fills to −12.3 dB of a −60…0 scale, the hold mark sits at −3 dB.
        let left = try #require(lines.first { $0.hasPrefix("L ▕") }), right = try #require(lines.first { $0.hasPrefix("R ▕") })
        let bar = left[left.index(after: left.firstIndex(of: "▕")!)..<left.firstIndex(of: "▏")!]
        let filled = bar.filter { $0 == "█" }.count
        #expect(abs(Double(filled) / Double(bar.count) - 47.7 / 60) < 2.0 / Double(bar.count), "\(filled) of \(bar.count)")
        let hold = bar.distance(from: bar.startIndex, to: bar.firstIndex(of: "│")!)
        #expect(abs(Double(hold) / Double(bar.count) - 57.0 / 60) < 1.5 / Double(bar.count))
        #expect(left.hasSuffix("-12.3  -6.1"))
        #expect(right.hasSuffix("-inf  -inf") && !right.contains("█"))
        #expect(lines.contains { $0.contains("underruns 1") || $0.contains("under 1") })
        #expect(lines.contains { $0.contains("load 1.2 %") })
    }

    @Test("a pass replayed from the loop cache says so after the pass count, at every width; the JSON status carries loop_cache")
    func replayedPass() {
        var state = exampleScreenState()
        for width in [40, 80, 132] {
            let plain = Screen.render(state, width: width, color: false)
            #expect(!plain.joined().contains("replayed"))
        }
        state.loopCache = .replay
        for width in [40, 80, 132] {
            let lines = Screen.render(state, width: width, color: false)
            for line in lines { #expect(Screen.visibleWidth(line) <= width) }
            #expect(lines[5].contains("×3 replayed"), "at \(width): '\(lines[5])'")
        }
        var snapshot = StatusSnapshot()
        for cache in [LoopCacheState.off, .filling, .replay] {
            snapshot.loopCache = cache
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            let writer = StdoutWriter(fd: fds[1])
            JSONSink(out: writer).status(snapshot, force: true)
            writer.finish(timeout: 5)
            close(fds[1])
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = read(fds[0], &buffer, buffer.count)
            close(fds[0])
            let text = String(decoding: buffer[0..<max(0, n)], as: UTF8.self)
            #expect(text.contains("\"loop_cache\":\"\(cache.name)\""), "\(text)")
        }
    }

    @Test("colour is only escape sequences: without them the coloured screen is the plain one")
    func colourIsOnlyDecoration() {
        let state = exampleScreenState()
        for width in [40, 80, 132] {
            let coloured = Screen.render(state, width: width, color: true)
            let plain = Screen.render(state, width: width, color: false)
            #expect(coloured.joined().contains("\u{1b}["))
            #expect(!plain.joined().contains("\u{1b}"))
            #expect(coloured.map(Screen.stripEscapes) == plain)
        }
    }

    @Test("NO_COLOR and a dumb terminal turn colour off; a dumb terminal gets no redrawn screen")
    func colourChoice() {
        #expect(ScreenPainter(environment: ["TERM": "xterm-256color"]).color)
        #expect(!ScreenPainter(environment: ["TERM": "xterm", "NO_COLOR": ""]).color)
        #expect(!ScreenPainter(environment: ["TERM": "dumb"]).color)
        #expect(!ScreenPainter.terminalCanRedraw(environment: ["TERM": "dumb"]))
        #expect(!ScreenPainter.terminalCanRedraw(environment: [:]))
        #expect(ScreenPainter.terminalCanRedraw(environment: ["TERM": "screen"]))
    }

    @Test("the 80-column screen, exactly (the README shows it)")
    func golden() {
        let lines = Screen.render(exampleScreenState(), width: 80, color: false)
        let text = lines.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
        #expect(text == goldenScreen80, "\n\(text)")
    }

    @Test("a paused, loop-less, half-computed overview, a mono file's stereo pair and clipping")
    func otherStates() {
        var state = exampleScreenState()
        state.state = "paused"
        state.loopOn = false
        state.overviewDone = 1024
        state.levels = [ChannelLevel(rmsDB: -1, peakDB: 1.2, holdDB: 1.2, clipped: 1234), ChannelLevel(rmsDB: -70, peakDB: -65, holdDB: -65, clipped: 0)]
        state.trainerLine = nil
        state.sessionLine = nil
        let lines = Screen.render(state, width: 80, color: false)
        #expect(lines[0].hasPrefix("‖ paused"))
        #expect(Array(lines[2])[60] == "·" && Array(lines[2])[10] != "·", "unknown stretches show as dots")
        #expect(!lines[3].contains("[") && lines[3].contains("▲"))
        #expect(lines[4].hasPrefix("loop off"))
        #expect(lines.contains { $0.hasPrefix("L ▕") && $0.hasSuffix("clip 1234") })
        for line in lines { #expect(Screen.visibleWidth(line) <= 80) }
    }

    @Test("with --osc, a line says where it listens, whether only this computer can reach it, and what it refused", arguments: [40, 80])
    func oscLine(width: Int) {
        var state = exampleScreenState()
        #expect(!Screen.render(state, width: width, color: false).contains { $0.hasPrefix("OSC ") })
        state.osc = OSCStatus(listen: ["127.0.0.1:9000", "[::1]:9000"], loopbackOnly: true)
        let closed = Screen.render(state, width: 132, color: false).first { $0.hasPrefix("OSC ") }
        #expect(closed == "OSC 127.0.0.1:9000 [::1]:9000 (this computer only)")
        state.osc = OSCStatus(listen: ["0.0.0.0:9000"], loopbackOnly: false, errors: 2, refused: 17, dropped: 0, subscribers: 1)
        let open = Screen.render(state, width: 132, color: false).first { $0.hasPrefix("OSC ") }
        #expect(open == "OSC 0.0.0.0:9000 (open to the network)  subscribers 1  refused 17  errors 2")
        for line in Screen.render(state, width: width, color: false) { #expect(Screen.visibleWidth(line) <= width) }
    }

    @Test("a short terminal drops the key list, the scale, the hint and the extra lines first, never the meters")
    func shortTerminal() {
        var state = exampleScreenState()
        state.showHelp = true
        state.keyHelp = "one\ntwo\nthree"
        let full = Screen.render(state, width: 80, color: false)
        #expect(full.count == 15)
        for height in [14, 12, 10, 8, 7] {
            let lines = Screen.render(state, width: 80, color: false, height: height)
            #expect(lines.count == height)
            #expect(lines[0].hasPrefix("▶ playing") && lines.contains { $0.hasPrefix("L ▕") } && lines.contains { $0.hasPrefix("R ▕") })
            #expect(lines.filter { $0.hasPrefix("A 0:10.000") }.count == 1)
            #expect(Array(full.filter { lines.contains($0) }) == lines, "the order is kept")
        }
        let tight = Screen.render(state, width: 80, color: false, height: 8)
        #expect(!tight.contains("one") && !tight.contains { $0.contains("rms  peak") } && !tight.contains { $0.hasPrefix("speed ") } && tight.contains { $0.hasPrefix("trainer") })
    }

    @Test("volume parsing: decibels or a linear gain, silence to +12 dB, one-line errors")
    func volumeParsing() throws {
        #expect(abs(try Volume.parse("-6dB") - 0.501187) < 1e-6)
        #expect(abs(try Volume.parse("+3 dB") - 1.412538) < 1e-6)
        #expect(try Volume.parse("0.5") == 0.5)
        #expect(try Volume.parse("0") == 0)
        #expect(try Volume.parse("mute") == 0)
        #expect(abs(try Volume.parse("12dB") - Volume.maximum) < 1e-9)
        for bad in ["13dB", "5", "-6", "loud", "dB"] {
            #expect(throws: RepeaterError.self, "\(bad)") { try Volume.parse(bad) }
        }
        #expect(Volume.stepped(1, by: -1) == Volume.gain(decibels: -1))
        #expect(Volume.stepped(Volume.gain(decibels: -60), by: -1) == 0)
        #expect(Volume.stepped(0, by: 1) == Volume.gain(decibels: -60))
        #expect(Volume.stepped(Volume.maximum, by: 1) == Volume.maximum)
        #expect(Volume.describe(0.5) == "-6.0 dB" && Volume.describe(0) == "mute" && Volume.describe(1) == "0.0 dB")
        #expect(throws: RepeaterError.self) { try Volume.parsePan("1.5") }
        #expect(try ControlCommand(line: "volume -6dB") == .volume(Volume.gain(decibels: -6)))
        #expect(try ControlCommand(line: "pan -1") == .pan(-1))
    }

    @Test("the waveform overview: peaks of equal stretches of a real file")
    func overview() throws {
        let path = NSTemporaryDirectory() + "repeater-overview-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 4 s: silence, a 0.5 tone, silence, a full-scale tone, one second each.
        let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 1)
        let samples = (0..<192_000).map { frame -> Float in
            let amplitude: Float = frame < 48_000 ? 0 : frame < 96_000 ? 0.5 : frame < 144_000 ? 0 : 1
            return amplitude * Float(sin(Double(frame) * 0.1))
        }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: samples.count)
        defer { scratch.deallocate() }
        try samples.withUnsafeBufferPointer { pointer in
            try writer.write(planar: [UnsafeMutablePointer(mutating: pointer.baseAddress!)], frameCount: samples.count, scratch: scratch)
        }
        writer.close()
        let overview = WaveformOverview(bucketCount: 8)
        overview.compute(path: path)
        let (peaks, done) = overview.snapshot()
        #expect(done == 8)
        #expect(peaks[0] == 0 && peaks[1] == 0 && peaks[4] == 0 && peaks[5] == 0)
        #expect(abs(peaks[2] - 0.5) < 0.01 && abs(peaks[3] - 0.5) < 0.01 && abs(peaks[6] - 1) < 0.01 && abs(peaks[7] - 1) < 0.01, "\(peaks)")
    }

    @Test("the line heard: its number and text wrapped to the width (wide characters count two columns), the next dimmed, a drill's pass", arguments: [40, 80])
    func lineText(width: Int) throws {
        var state = exampleScreenState()
        state.lines.count = 12
        state.lines.source = "lesson.srt"
        state.lines.current = (3, "我想要一杯咖啡，谢谢。Ich möchte bitte einen Kaffee mit Milch und ohne Zucker, danke schön.", 7.5, 10.25)
        state.lines.next = "下一句"
        state.lines.drill = (3, 2, 4)
        let lines = Screen.render(state, width: width, color: false)
        for line in lines { #expect(displayWidth(of: line) <= width, "too wide at \(width): '\(line)'") }
        #expect(lines.contains("drill: line 3 of 12, pass 2 of 4"))
        let first = try #require(lines.firstIndex { $0.hasPrefix("3/12  我想要") }, "\(lines)")
        // The text goes on, indented under itself, on the next rows; nothing of it is lost at 80.
        #expect(lines[first + 1].hasPrefix("      "))
        if width == 80 {
            let shown = lines[first...].prefix(3).map { $0.dropFirst(6) }.joined(separator: " ")
            #expect(shown.contains("danke schön."), "\(shown)")
        }
        #expect(lines.contains { $0.hasPrefix("next: 下一句") })
        state.lines.current = nil
        state.lines.drill = nil
        #expect(Screen.render(state, width: width, color: false).contains { $0.hasPrefix("between lines (12 from lesson.srt)") })
    }
}

let goldenScreen80 = """
▶ playing  demo.flac                                         0:12.345 / 1:30.000
speed 80 %   pitch +2 st   volume -6.0 dB   pan L 20
trainer 80 % → 100 %, +5 % every 3 passes: 1 of 3
▃▅▆█████▇▅▃▃▅▆█████▇▅▃▂▅▆█████▇▅▃▂▄▆█████▇▅▃▂▄▆█████▇▅▃▂▄▆▇████▇▅▃▂▄▆▇████▇▅▃▂▄▆
        [─▲──────]
A 0:10.000   B 0:20.000   length 10.000 s   ⟲ ×3
session demo.json · 1 first bar  [2 second bar]  3 whole phrase
L ▕███████████████████████████████████████████████████░░░░░░░░│░░░▏ -12.3  -6.1
R ▕░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░▏  -inf  -inf
   -60   -54   -48   -42    -36   -30   -24    -18   -12   -6    0    rms  peak
underruns 1   xruns 2   load 1.2 % (worst 3.4 %)   meters post-fader
space play · a/b A/B · l loop · ←→ seek · ↑↓ volume · ( ) pan · ? keys · q quit
"""
