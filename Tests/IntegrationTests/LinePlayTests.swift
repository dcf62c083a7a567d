import Foundation
import RepeaterKit
import RepeaterLines
import RepeaterTestSupport
import Testing

/// A mono 48 kHz file of 8 s whose every sample is non-zero (a DC offset under a tone), so that
/// captured silence can only be a gap, and whose every frame is its own: value depends on the frame.
private func writeSteady(_ path: String, seconds: Int = 8) throws {
    let samples = (0..<(48_000 * seconds)).map { Float(0.3 + 0.2 * sin(2 * Double.pi * Double($0) / 97.3)) }
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 1)
    try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
    writer.close()
}

/// Three lines of 1 s at 0.5, 2.5 and 4.5 s (frames 24 000, 120 000, 216 000).
private let threeLines = """
    1
    00:00:00,500 --> 00:00:01,500
    First line

    2
    00:00:02,500 --> 00:00:03,500
    Second line,
    in two rows

    3
    00:00:04,500 --> 00:00:05,500
    Third line

    """


@Suite("Lines without JACK: repeater phrases, bad subtitle files")
struct PhrasesCommandTests {
    @Test("repeater phrases: one SRT line per spoken sentence, each around its sentence; -o writes the file in the format its name says")
    func phrasesOfSpeech() throws {
        let scratch = ScratchDirectory()
        let texts = ["The train leaves at nine.", "Where is the station?", "I would like a coffee, please.", "Thank you very much."]
        let sentences = try texts.map { try SpokenSentence.speak($0, voice: "en", wordsPerMinute: 150) }
        let track = SpeechTrack.join(sentences, pauses: [1.2])
        let writer = try AudioFileWriter(path: scratch.file("speech.wav"), format: .wav, sampleRate: track.sampleRate, channelCount: 1)
        try track.samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: track.samples.count) }
        writer.close()
        let srt = try run(repeaterPath, ["phrases", "speech.wav"], in: scratch.path)
        #expect(srt.status == 0, "\(srt.stderr)")
        let lines = try LineFileReader.parse(Array(srt.stdout.utf8), fileName: "stdout", format: .subRip).lines
        #expect(lines.count == texts.count, "\(srt.stdout)")
        for (line, placed) in zip(lines, track.placed) {
            let start = Double(placed.startFrame) / Double(track.sampleRate), end = Double(placed.endFrame) / Double(track.sampleRate)
            // Each phrase holds its sentence (with the pre/post roll of 0.2 s) and nothing of the next.
            #expect(line.startSeconds <= start + 0.05 && line.startSeconds >= start - 0.35, "phrase starts \(line.startSeconds), sentence \(start)")
            #expect(line.endSeconds >= end - 0.05 && line.endSeconds <= end + 0.45, "phrase ends \(line.endSeconds), sentence \(end)")
        }
        let written = try run(repeaterPath, ["phrases", "speech.wav", "-o", "speech.vtt"], in: scratch.path)
        #expect(written.status == 0 && written.stderr.contains("wrote 4 phrases to 'speech.vtt'"), "\(written.stderr)")
        let vtt = try String(contentsOfFile: scratch.file("speech.vtt"), encoding: .utf8)
        let vttLines = try LineFileReader.parse(Array(vtt.utf8), fileName: "vtt", format: .webVTT).lines
        #expect(vtt.hasPrefix("WEBVTT") && vttLines.count == 4)
        let labels = try run(repeaterPath, ["phrases", "speech.wav", "--format", "labels"], in: scratch.path)
        #expect(labels.stdout.split(separator: "\n").count == 4 && labels.stdout.contains("\t"), "\(labels.stdout)")
    }

    @Test("--subs with a file that is not subtitles, or missing: one line naming it, exit 2, nothing played")
    func badSubs() throws {
        let scratch = ScratchDirectory()
        try writeSteady(scratch.file("steady.wav"), seconds: 1)
        try Data([0x00, 0xff, 0x13, 0x37, 0x00]).write(to: URL(fileURLWithPath: scratch.file("broken.srt")))
        try "1\n00:00:01,000 --> 00:00:99,000\nNever\n".write(toFile: scratch.file("time.srt"), atomically: true, encoding: .utf8)
        let badTime = try run(repeaterPath, ["play", "steady.wav", "--subs", "time.srt", "--server", "nonexistent-server"], in: scratch.path)
        #expect(badTime.status == 2 && badTime.stderrLines.count == 1 && badTime.stderr.contains("time.srt") && badTime.stderr.contains("line 2"),
                "\(badTime.stderr)")
        for subs in ["broken.srt", "missing.srt"] {
            let outcome = try run(repeaterPath, ["play", "steady.wav", "--subs", subs, "--server", "nonexistent-server"], in: scratch.path)
            #expect(outcome.status == 2, "\(subs): \(outcome.stderr)")
            #expect(outcome.stderrLines.count == 1 && outcome.stderr.hasPrefix("repeater: error: ") && outcome.stderr.contains(subs), "\(outcome.stderr)")
        }
        let drillWithout = try run(repeaterPath, ["play", "steady.wav", "--drill", "3", "--server", "nonexistent-server"], in: scratch.path)
        #expect(drillWithout.status == 2 && drillWithout.stderr.contains("a drill needs lines"), "\(drillWithout.stderr)")
    }
}

extension JackSuites {
    @Suite("Lines and drills on a real jackd")
    struct LinePlayTests {
        @Test("--drill 2x1.2 captured: each line exactly twice, each pass followed by 1.2 × its length of silence, the next line right after, then the end")
        func drillCaptured() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            // Noise, not the steady tone: a tone's values repeat every few periods, so a cycle the
            // graph loses could be matched at more than one place.
            try writeNoise(scratch.file("noise.wav"), seconds: 8)
            try threeLines.write(toFile: scratch.file("noise.srt"), atomically: true, encoding: .utf8)
            let (_, samples) = try readAll(scratch.file("noise.wav"))
            var expected: [Float] = []
            for start in [24_000, 120_000, 216_000] {
                for _ in 0..<2 {
                    expected += samples[start..<(start + 48_000)]
                    expected += [Float](repeating: 0, count: 57_600)
                }
            }
            expected.removeLast(57_600)  // after the last pass: the end (silence anyway)
            let (outcome, captured, losses) = try captureRun(server: server, ports: 1, playArguments: ["noise.wav", "--drill", "2x1.2", "--session", scratch.file("s.json")],
                                                     scratch: scratch)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            expectExactlyOnce(captured, [expected], losses: losses)
            // Done: the session remembers the drill and starts the next from the top.
            let saved = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.json"))), shown: "s.json")
            #expect(saved.drill == DrillSpec(passes: 2, gapFactor: 1.2) && saved.drillLine == 1)
            #expect(saved.linesSource == "noise.srt")
        }

        @Test("play --phrases auto drills the very phrases `repeater phrases` writes: recorded voices in room tone, every line at the same frames")
        func automaticPhrasesAreTheDrillLines() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            // Eight recorded sentences (English and French voices) 0.35–1.5 s apart in room tone at
            // −50 dBFS: the real-speech set's material, small.
            let plan = RealSpeechPlan(name: "drill-speech", kind: .speech, voiceSets: ["wz-en", "ast-fr"], sentenceCount: 8, seed: 5,
                                      pauseSeconds: 0.35...1.5, noise: .room, noiseDBFS: -50, line: "integration drill-speech")
            let recording = try RealSpeechSet.recording(plan, sampleRate: 44_100, directory: scratch.path)
            let written = try run(repeaterPath, ["phrases", recording.path, "--format", "json"], in: scratch.path)
            #expect(written.status == 0, "\(written.stderr)")
            let phrases = try #require(try JSONSerialization.jsonObject(with: Data(written.stdout.utf8)) as? [[String: Any]])
            let spans = phrases.map { Int((($0["start_s"] as? Double ?? 0) * 44_100).rounded())..<Int((($0["end_s"] as? Double ?? 0) * 44_100).rounded()) }
            let tally = SentenceTally(phrases: spans, voicedSpans: recording.sentences.map { $0.voicedStartFrame..<$0.voicedEndFrame })
            print("\(recording.sentences.count) sentences, \(phrases.count) phrases: \(tally.wholeAndAloneCount) whole and alone")
            #expect(tally.wholeAndAloneCount == recording.sentences.count)

            let player = try Child(repeaterPath, ["play", recording.path, "--phrases", "auto", "--server", server.name, "--connect", "none",
                                                  "--status", "json"], in: scratch.path)
            // (It finds the phrases before it starts: on a busy machine that takes a while.)
            #expect(player.waitForOutput(timeout: 30) { $0.contains("\"event\":\"start\"") }, "\(player.stderr)")
            let start = try #require(jsonEvents(player.stdout, "start").first)
            #expect(start["line_count"] as? Int == phrases.count && start["lines"] as? String == "automatic phrases", "\(start)")
            for (index, phrase) in phrases.enumerated() {
                player.send("line \(index + 1)")
                #expect(player.waitForOutput { $0.contains("\"event\":\"line\",\"index\":\(index + 1),") }, "line \(index + 1): \(player.stdout)")
                let line = try #require(jsonEvents(player.stdout, "line").last { $0["index"] as? Int == index + 1 })
                #expect(abs((line["start_s"] as? Double ?? -1) - (phrase["start_s"] as? Double ?? -2)) < 0.0015
                        && abs((line["end_s"] as? Double ?? -1) - (phrase["end_s"] as? Double ?? -2)) < 0.0015, "line \(index + 1): \(line) \(phrase)")
            }
            player.send("quit")
            #expect(player.finish().status == 0)
        }

        @Test("the file beside the recording is found; line next/prev/N/again and the line loop from stdin; line events with the text; a stopped drill resumes at its line")
        func linesFromStdin() throws {
            let server = try TestServer()
            let scratch = ScratchDirectory()
            try writeSteady(scratch.file("steady.wav"))
            try threeLines.write(toFile: scratch.file("steady.srt"), atomically: true, encoding: .utf8)
            let session = scratch.file("steady.json")
            let player = try Child(repeaterPath, ["play", "steady.wav", "--session", session, "--server", server.name, "--connect", "none",
                                                  "--status", "json", "--from", "0.1"], in: scratch.path)
            #expect(player.waitForOutput { $0.contains("\"event\":\"start\"") }, "\(player.stderr)")
            let start = try #require(jsonEvents(player.stdout, "start").first)
            #expect(start["line_count"] as? Int == 3 && start["lines"] as? String == "steady.srt", "\(start)")
            // Playing from 0.1 s: the first line comes at 0.5 s.
            #expect(player.waitForOutput { $0.contains("\"event\":\"line\",\"index\":1") }, "\(player.stdout)")
            let first = try #require(jsonEvents(player.stdout, "line").last { $0["index"] as? Int == 1 })
            #expect(first["text"] as? String == "First line" && first["start_s"] as? Double == 0.5 && first["end_s"] as? Double == 1.5)
            player.send("line next")
            #expect(player.waitForOutput { $0.contains("\"event\":\"line\",\"index\":2") })
            let second = try #require(jsonEvents(player.stdout, "line").last { $0["index"] as? Int == 2 })
            #expect(second["text"] as? String == "Second line, in two rows" || second["text"] as? String == "Second line,\nin two rows", "\(second)")
            // The line loop: line 3 becomes the loop, exactly its frames.
            player.send("line loop on")
            player.send("line 3")
            #expect(player.waitForOutput { $0.contains("\"event\":\"loop\"") && $0.contains("\"a\":216000") && $0.contains("\"b\":264000") }, "\(player.stdout)")
            #expect(player.waitForOutput { $0.contains("\"event\":\"wrap\"") && $0.contains("\"to\":216000") })
            player.send("line prev")
            #expect(player.waitForOutput { $0.contains("\"event\":\"loop\"") && $0.contains("\"a\":120000") && $0.contains("\"b\":168000") })
            // Line 2 is heard once the player wraps to it (the loop moves at the end of line 3's
            // pass): the drill starts at the line heard, so it waits for that, however slow the machine.
            #expect(player.waitForOutput(timeout: 20) { jsonEvents($0, "wrap").contains { $0["to"] as? Int == 120_000 } }, "\(player.stdout.suffix(2000))")
            player.send("line 9")
            #expect(player.waitForOutput { $0.contains("line 9: there are 3 lines") })
            // A drill, stopped at line 2 by quitting: the session keeps its place.
            player.send("drill 3x0.5")
            #expect(player.waitForOutput { $0.contains("\"event\":\"drill\"") && $0.contains("\"line\":2") && $0.contains("\"passes\":3") })
            player.send("quit")
            let outcome = player.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let saved = try Session.parse(try Data(contentsOf: URL(fileURLWithPath: session)), shown: session)
            #expect(saved.drill == DrillSpec(passes: 3, gapFactor: 0.5) && saved.drillLine == 2)
            let again = try Child(repeaterPath, ["play", session, "--server", server.name, "--connect", "none", "--status", "json"], in: scratch.path)
            #expect(again.waitForOutput { $0.contains("\"event\":\"drill\"") && $0.contains("\"line\":2") }, "\(again.stdout) \(again.stderr)")
            #expect(again.waitForOutput { $0.contains("\"event\":\"line\",\"index\":2") })
            again.send("drill off")
            #expect(again.waitForOutput { $0.contains("\"state\":\"off\"") })
            again.send("quit")
            #expect(again.finish().status == 0)
        }
    }
}
