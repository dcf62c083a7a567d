import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// A FluidSynth song with known bars: drums, a bass on the roots and piano chords, 4/4 at 120 BPM,
/// 20 bars (40 s).
private func writeSong(_ path: String) throws {
    var song = SynthSong()
    song.tempo = [(0, 120)]
    song.programs = [0: GM.fingerBass, 1: GM.piano]
    let roots = [45, 50, 40, 45]  // A D E A
    for bar in 0..<20 {
        for beat in 0..<4 {
            let at = Double(bar * 4 + beat)
            song.notes.append(SynthNote(channel: 9, key: beat % 2 == 0 ? GM.kick : GM.snare, velocity: beat == 0 ? 120 : 90, startBeat: at, lengthBeats: 0.25))
            song.notes.append(SynthNote(channel: 9, key: GM.closedHat, velocity: 60, startBeat: at + 0.5, lengthBeats: 0.25))
        }
        let root = roots[bar % 4]
        song.notes.append(SynthNote(channel: 0, key: root, startBeat: Double(bar * 4), lengthBeats: 3.8))
        for key in [root + 24, root + 27 + (bar % 4 == 2 ? 1 : 0), root + 31] {
            song.notes.append(SynthNote(channel: 1, key: key, velocity: 70, startBeat: Double(bar * 4), lengthBeats: 3.9))
        }
    }
    try FluidSynth.render(song, to: path)
}

/// A mono file of 30 s (48 kHz unless said) with a short burst on every beat of 120 BPM from 0.25 s
/// (frame 12 000 at 48 kHz): its beats are exact to the frame, and so is where a stretched copy of
/// them is heard.
private func writeBursts(_ path: String, sampleRate: Int = 48_000) throws {
    var samples = [Float](repeating: 0, count: sampleRate * 30)
    for beat in stride(from: sampleRate / 4, to: samples.count - 96, by: sampleRate / 2) {
        for t in 0..<96 { samples[beat + t] = Float(0.8 * cos(2 * Double.pi * Double(t) / 24)) }  // from its crest: frame 0 is the onset
    }
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: sampleRate, channelCount: 1)
    try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
    writer.close()
}

/// A steady 440 Hz sine, mono 48 kHz, 30 s: nothing to find a beat in (issue 26 saw "23 beats,
/// 67.8 BPM, B major" for one).
private func writeSine(_ path: String) throws {
    let samples = (0..<(48_000 * 30)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 1)
    try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
    writer.close()
}

/// Onsets: the first frame above `threshold` after at least `quiet` frames below it.
private func onsets(_ signal: [Float], threshold: Float = 0.02, quiet: Int = 4000) -> [Int] {
    var found: [Int] = []
    var below = quiet
    for (frame, value) in signal.enumerated() {
        if abs(value) > threshold {
            if below >= quiet { found.append(frame) }
            below = 0
        } else {
            below += 1
        }
    }
    return found
}

private func jsonObject(_ text: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
}

@Suite("The map without JACK: repeater analyze and its cache")
struct AnalyzeCommandTests {
    @Test("analyze --json: the fields; cached the second time; a changed file is analysed again; a corrupt entry is a warning and a new analysis")
    func analyzeAndCache() throws {
        let scratch = ScratchDirectory()
        try writeSong(scratch.file("song.wav"))
        let cache = ["XDG_CACHE_HOME": scratch.file("cache")]
        let first = try run(repeaterPath, ["analyze", "song.wav", "--json"], environment: cache, in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let map = try #require(jsonObject(first.stdout), "\(first.stdout)")
        #expect(map["sample_rate"] as? Int == 48_000)
        #expect(map["cached"] as? Bool == false)
        let tempo = try #require(map["tempo_bpm"] as? Double)
        #expect(abs(tempo - 120) < 120 * 0.02, "tempo \(tempo)")
        let confidence = try #require(map["tempo_confidence"] as? Double)
        #expect((0...1).contains(confidence))
        let alternative = try #require(map["tempo_alternative_bpm"] as? Double)
        #expect(abs(alternative - 2 * tempo) < 1 || abs(alternative - tempo / 2) < 1, "alternative \(alternative)")
        #expect(map["beats_per_bar"] as? Int == 4)
        let beats = try #require(map["beats"] as? [Double]), frames = try #require(map["beat_frames"] as? [Int])
        let downbeats = try #require(map["downbeat_frames"] as? [Int])
        #expect(beats.count == frames.count && beats.count >= 70, "\(beats.count) beats")
        #expect(zip(beats, frames).allSatisfy { abs($0 * 48_000 - Double($1)) < 1 })
        #expect(Set(downbeats).isSubset(of: Set(frames)) && downbeats.count >= 18)
        #expect((map["key"] as? String) != nil)
        // The second run reads the cache: the same map.
        let second = try run(repeaterPath, ["analyze", "song.wav", "--json"], environment: cache, in: scratch.path)
        let again = try #require(jsonObject(second.stdout))
        #expect(again["cached"] as? Bool == true)
        #expect(again["beat_frames"] as? [Int] == frames)
        // A changed file (one sample) is analysed again.
        var (info, samples) = try readAll(scratch.file("song.wav"))
        samples[1000] += 0.001
        let writer = try AudioFileWriter(path: scratch.file("song.wav"), format: .wav, sampleRate: info.sampleRate, channelCount: info.channelCount)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count / info.channelCount) }
        writer.close()
        let changed = try run(repeaterPath, ["analyze", "song.wav", "--json"], environment: cache, in: scratch.path)
        #expect(jsonObject(changed.stdout)?["cached"] as? Bool == false)
        // A corrupt entry: one warning line, a new analysis, exit 0.
        let entries = try FileManager.default.contentsOfDirectory(atPath: scratch.file("cache/repeater/maps")).filter { $0.hasSuffix(".json") }
        #expect(entries.count == 2, "\(entries)")
        for entry in entries { try Data("{\"format\": \"repeater-map\", garbage".utf8).write(to: URL(fileURLWithPath: scratch.file("cache/repeater/maps/" + entry))) }
        let corrupt = try run(repeaterPath, ["analyze", "song.wav", "--json"], environment: cache, in: scratch.path)
        #expect(corrupt.status == 0)
        #expect(jsonObject(corrupt.stdout)?["beat_frames"] as? [Int] != nil)
        #expect(corrupt.stderrLines.count == 1 && corrupt.stderr.contains("cannot be used") && corrupt.stderr.contains("analysing again"), "\(corrupt.stderr)")
        // The text form names tempo, bars and key.
        let text = try run(repeaterPath, ["analyze", "song.wav"], environment: cache, in: scratch.path)
        #expect(text.stdout.contains("tempo:") && text.stdout.contains("bars:") && text.stdout.contains("key:"), "\(text.stdout)")
    }

    @Test("analyze of a steady sine: no beats, bars, tempo or key, and the text says none were found")
    func steadySine() throws {
        let scratch = ScratchDirectory()
        try writeSine(scratch.file("sine.wav"))
        let cache = ["XDG_CACHE_HOME": scratch.file("cache")]
        let outcome = try run(repeaterPath, ["analyze", "sine.wav", "--json"], environment: cache, in: scratch.path)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let map = try #require(jsonObject(outcome.stdout), "\(outcome.stdout)")
        #expect((map["beats"] as? [Double])?.isEmpty == true && (map["downbeats"] as? [Double])?.isEmpty == true)
        #expect(map["tempo_bpm"] as? Double == 0 && map["beats_per_bar"] as? Int == 0)
        #expect((map["tempo_changes"] as? [Any])?.isEmpty == true)
        #expect(map["key"] is NSNull && map["tempo_alternative_bpm"] is NSNull)
        #expect(map["tempo_confidence"] as? Double == 0)
        let text = try run(repeaterPath, ["analyze", "sine.wav"], environment: cache, in: scratch.path)
        #expect(text.stdout.contains("beats:         none found") && text.stdout.contains("key:           unknown"), "\(text.stdout)")
    }

    @Test("analyze of what is not audio is one line, exit 2")
    func notAudio() throws {
        let scratch = ScratchDirectory()
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: scratch.file("notes.txt")))
        let outcome = try run(repeaterPath, ["analyze", "notes.txt"], in: scratch.path)
        #expect(outcome.status == 2)
        #expect(outcome.stderrLines.count == 1 && outcome.stderr.hasPrefix("repeater: error: 'notes.txt' is not an audio file"), "\(outcome.stderr)")
    }
}

extension JackSuites {
    @Suite("The map on a real jackd")
    struct MapPlayTests {
        @Test("--loop bars:3-4 loops exactly from the map's downbeat of bar 3 to that of bar 5; corrections are saved and win next time; snap bar")
        func barsCorrectionsAndSnap() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeSong(scratch.file("song.wav"))
            let cache = ["XDG_CACHE_HOME": scratch.file("cache")]
            let analysed = try run(repeaterPath, ["analyze", "song.wav", "--json"], environment: cache, in: scratch.path)
            let downbeats = try #require(jsonObject(analysed.stdout)?["downbeat_frames"] as? [Int])
            let session = scratch.file("song.json")
            let player = try Child(repeaterPath, ["play", "song.wav", "--session", session, "--loop", "bars:3-4", "--server", server.name,
                                                  "--connect", "none", "--status", "json"], environment: cache, in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"event\":\"loop\"") && $0.contains("\"bar\":") }, "\(player.stderr)")
            let loop = player.stdout.split(separator: "\n").first { $0.contains("\"event\":\"loop\"") }.flatMap { jsonObject(String($0)) }
            #expect(loop?["a"] as? Int == downbeats[2] && loop?["b"] as? Int == downbeats[4], "\(loop ?? [:]) vs \(downbeats.prefix(6))")
            #expect(player.stdout.contains("\"event\":\"map\",\"state\":\"ready\",\"cached\":true"))
            // Corrections: halve the tempo, three beats a bar; saved at once.
            player.send("tempo half")
            player.send("beats-per-bar 3")
            #expect(player.waitForOutput { $0.contains("\"beats_per_bar\":3") && $0.contains("\"state\":\"corrected\"") })
            // Snap to bars: "A here" lands on a bar's first beat of the corrected grid.
            player.send("snap bar")
            player.send("loop off")
            player.send("a")
            #expect(player.waitForOutput { $0.contains("\"event\":\"a\"") })
            player.send("map")
            player.send("quit")
            let outcome = player.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let saved = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: session)), shown: session)
            #expect(saved.mapCorrections.tempoOctaves == -1 && saved.mapCorrections.beatsPerBar == 3)
            #expect(saved.snap == .bar)
            let aEvent = outcome.stdout.split(separator: "\n").first { $0.contains("\"event\":\"a\"") }.flatMap { jsonObject(String($0)) }
            let aFrame = try #require(aEvent?["frame"] as? Int)
            let mapEvent = outcome.stdout.split(separator: "\n").last { $0.contains("\"event\":\"map\"") }.flatMap { jsonObject(String($0)) }
            #expect(mapEvent?["beats_per_bar"] as? Int == 3)
            // Next time the corrections win over the analysis: the status says 3 beats a bar from the start.
            let next = try Child(repeaterPath, ["play", session, "--server", server.name, "--connect", "none", "--status", "json"],
                                 environment: cache, in: scratch.path)
            #expect(next.waitForOutput { $0.contains("\"beats_per_bar\":3") }, "\(next.stderr)")
            next.send("map")
            #expect(next.waitForOutput { $0.contains("\"event\":\"map\"") && $0.contains("\"source\":\"stdin\"") })
            next.send("quit")
            #expect(next.finish().status == 0)
            // The snapped A is one of the corrected grid's bar starts (from the grid the player reports).
            // The corrected bars: every other detected beat, three to a bar.
            var corrections = MapCorrections()
            corrections.tempoOctaves = -1
            corrections.beatsPerBar = 3
            let beats = try #require(jsonObject(analysed.stdout)?["beat_frames"] as? [Int])
            let grid = corrections.apply(to: BeatGrid(sampleRate: 48_000, frameCount: Int.max / 4, beatFrames: beats,
                                                      downbeatFrames: downbeats, beatsPerBar: 4, key: nil))
            #expect(grid.downbeatFrames.contains(aFrame), "A \(aFrame) is not a bar start of the corrected grid")
        }

        @Test("a steady sine's map event says it found no beats: no tempo, no bars, no key")
        func sineMapEvent() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeSine(scratch.file("sine.wav"))
            let cache = ["XDG_CACHE_HOME": scratch.file("cache")]
            let player = try Child(repeaterPath, ["play", "sine.wav", "--session", scratch.file("sine.json"), "--server", server.name,
                                                  "--connect", "none", "--status", "json"], environment: cache, in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"event\":\"map\",\"state\":\"ready\"") }, "\(player.stderr)")
            player.send("quit")
            let outcome = player.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let line = outcome.stdout.split(separator: "\n").first { $0.contains("\"event\":\"map\",\"state\":\"ready\"") }
            let event = try #require(line.flatMap { jsonObject(String($0)) }, "\(outcome.stdout)")
            #expect(event["beats"] as? Int == 0 && event["bars"] as? Int == 0 && event["beats_per_bar"] as? Int == 0)
            #expect(event["tempo_bpm"] as? Double == 0 && event["tempo_confidence"] as? Double == 0)
            #expect(event["key"] is NSNull && event["tempo_alternative_bpm"] is NSNull)
            // No note claims a tempo or key for it.
            #expect(!outcome.stdout.contains("BPM") && !outcome.stderr.contains("BPM"), "\(outcome.stdout)")
        }

        /// Plays the burst file (made at `fileRate`) at `rate` on a 48 kHz server, looping bars 2-3 of
        /// a corrected grid (120 BPM from 0.25 s, four beats a bar: exactly the bursts), with a
        /// count-in of 4 and the click, into a capture of out_1 and the click port. Returns (music
        /// onsets, click onsets) in capture frames.
        private func clickCapture(rate: Double, fileRate: Int) throws -> (music: [Int], clicks: [Int], outcome: Outcome, losses: GraphLosses) {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeBursts(scratch.file("bursts.wav"), sampleRate: fileRate)
            var session = Session(audio: "bursts.wav", sampleRate: fileRate)
            session.mapCorrections.tempoBPM = 120
            session.mapCorrections.downbeatFrame = fileRate / 4
            session.mapCorrections.beatsPerBar = 4
            session.speed = rate
            try session.text.write(toFile: scratch.file("bursts.json"), atomically: true, encoding: .utf8)
            let capture = try startCapture(server: server, scratch: scratch, ports: 3, log: true)
            let outcome = try run(repeaterPath, ["play", "bursts.json", "--loop", "bars:2-3", "--loops", "2", "--count-in", "4", "--click",
                                                 "--server", server.name, "--connect", "\(server.captureName):in_",
                                                 "--click-connect", "\(server.captureName):in_3", "--status", "json"],
                                  environment: ["XDG_CACHE_HOME": scratch.file("cache")], in: scratch.path, timeout: 60)
            capture.signal(SIGTERM)
            #expect(capture.finish(timeout: 10).status == 0)
            let (info, samples) = try readAll(scratch.file("capture.wav"))
            let music = stride(from: 0, to: samples.count, by: info.channelCount).map { samples[$0] }
            let click = stride(from: 2, to: samples.count, by: info.channelCount).map { samples[$0] }
            // Where each burst is heard: its energy centroid, less the burst's own (from its first
            // frame): a stretched burst is smeared a little both ways, so its first audible frame
            // says less than its centre of energy.
            let burst = (0..<96).map { 0.8 * cos(2 * Double.pi * Double($0) / 24) }
            let own = zip(burst.indices, burst).reduce(0.0) { $0 + Double($1.0) * $1.1 * $1.1 } / burst.reduce(0.0) { $0 + $1 * $1 }
            let heard = onsets(music).map { onset -> Int in
                var energy = 0.0, moment = 0.0
                for frame in max(0, onset - 1000)..<min(music.count, onset + 2000) {
                    let e = Double(music[frame] * music[frame])
                    energy += e
                    moment += e * Double(frame)
                }
                return Int((moment / energy - own).rounded())
            }
            return (heard, onsets(click), outcome, GraphLosses(logPath: scratch.file("capture.log")))
        }

        @Test("count-in and click captured at speeds 1 and 0.75, from a 48 kHz and a 44.1 kHz file on a 48 kHz server: each click on the frame its beat is heard (±1 ms stretched or converted), four count-in clicks a beat apart before each pass",
              arguments: [(1.0, 48_000), (0.75, 48_000), (1.0, 44_100), (0.75, 44_100)])
        func clicksCaptured(rate: Double, fileRate: Int) throws {
            let (music, clicks, outcome, losses) = try clickCapture(rate: rate, fileRate: fileRate)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let beatFrames = Int((24_000 / rate).rounded())  // a beat in output frames
            let tolerance = rate == 1 && fileRate == 48_000 ? 0 : 48  // ±1 ms while stretching or converting the rate
            // Two passes of two bars (8 bursts each) with four count-in clicks before each.
            #expect(music.count == 16, "music onsets \(music)")
            #expect(clicks.count == 24, "click onsets \(clicks), music \(music)")
            guard music.count == 16, clicks.count == 24 else { return }
            var worst = 0, spansAtLosses = 0
            for pass in 0..<2 {
                let passClicks = Array(clicks[(pass * 12)..<(pass * 12 + 12)])
                let passMusic = Array(music[(pass * 8)..<(pass * 8 + 8)])
                for (click, burst) in zip(passClicks.suffix(8), passMusic) {
                    worst = max(worst, abs(click - burst))
                    #expect(abs(click - burst) <= tolerance, "pass \(pass): click \(click), burst heard at \(burst) (all: \(clicks) \(music))")
                }
                // The count-in: a beat apart, the last a beat before the pass's first beat (but across
                // a loss the graph reported: the capture then misses or repeats what went out; an
                // xrun's report is placed within a cycle or two, so up to 4 periods either side).
                let countIn = Array(passClicks.prefix(4)) + [passMusic[0]]
                for (earlier, later) in zip(countIn, countIn.dropFirst()) {
                    if losses.reported(in: (earlier - 1024)...(later + 1024)) { spansAtLosses += 1; continue }
                    #expect(abs(later - earlier - beatFrames) <= max(1, tolerance), "pass \(pass): count-in \(Array(countIn.prefix(4))) then \(passMusic[0])")
                }
            }
            print("clicks at speed \(rate), file at \(fileRate) Hz: worst distance from the heard beat \(worst) frames (\(String(format: "%.2f", Double(worst) / 48)) ms); \(spansAtLosses) count-in beats across a loss (\(losses.summary))")
        }
    }
}
