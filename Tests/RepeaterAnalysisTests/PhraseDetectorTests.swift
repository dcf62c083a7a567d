import Foundation
import RepeaterAnalysis
import RepeaterLines
import RepeaterTestSupport
import Testing

@Suite("Phrase detector")
struct PhraseDetectorTests {
    static func silence(_ seconds: Double, _ rate: Int) -> [Float] { [Float](repeating: 0, count: Int(seconds * Double(rate))) }

    @Test("the pause threshold is the recording's own: sentences 0.4 s apart are two phrases, a pause of 0.1–0.2 s joins them")
    func pauseThreshold() throws {
        let a = try Speech.sentence("The weather is lovely today."), b = try Speech.sentence("Let us go for a walk.")
        let c = try Speech.sentence("We could take the dog."), d = try Speech.sentence("It is not far.")
        // Four sentences, the same pause between each: 0.4 s (the fixed 0.7 s rule of earlier
        // versions joined all of them) and up are pauses; 0.1–0.2 s is a breath inside a phrase.
        for (pause, expectedCount) in [(0.1, 1), (0.2, 1), (0.4, 4), (0.5, 4), (0.8, 4), (1.2, 4)] {
            let track = SpeechTrack.join([a, b, c, d], pauses: [pause])
            let phrases = detect(track.samples, sampleRate: track.sampleRate)
            print("pause \(pause) s: \(phrases.count) phrase(s)")
            #expect(phrases.count == expectedCount, "pause \(pause) s")
        }
    }

    @Test("a phrase over 8 s is split at its longest internal pause")
    func maximumLength() throws {
        let texts = ["I walked to the market.", "Then I bought some bread.", "After that I went home.", "I made a sandwich.",
                     "It was very good.", "Then I read a book.", "The story was long.", "Then I slept."]
        let sentences = try texts.map { try Speech.sentence($0) }
        // Pauses under any pause threshold (0.25 s at least), so all of it is one run of speech;
        // the 0.22 s one is the longest.
        let track = SpeechTrack.join(sentences, pauses: [0.1, 0.15, 0.1, 0.22, 0.1, 0.15, 0.1])
        let rate = track.sampleRate
        let phrases = detect(track.samples, sampleRate: rate)
        let total = seconds(track.placed.last!.endFrame - track.placed[0].startFrame, rate)
        print("\(total) s of speech with short pauses → phrases of \(phrases.map { seconds($0.soundEndFrame - $0.soundStartFrame, rate) }) s")
        #expect(total > 9)  // well over the 8 s maximum
        #expect(phrases.count == 2)
        #expect(phrases.allSatisfy { seconds($0.soundEndFrame - $0.soundStartFrame, rate) <= 8 })
        // The cut lies in the 0.22 s pause between sentences 4 and 5.
        let pause = track.placed[3].endFrame..<track.placed[4].startFrame
        #expect(pause.contains(phrases[0].soundEndFrame) && pause.contains(phrases[1].soundStartFrame - 1))
        #expect(phrases[0].endFrame <= phrases[1].startFrame)
    }

    @Test("a steady 20 s tone with no pause is halved until pieces are at most 8 s: four of 5 s")
    func noPauseAtAll() {
        let rate = 16_000
        let step = 2 * Double.pi * 220 / Double(rate)
        let tone: [Float] = (0..<(20 * rate)).map { (frame: Int) -> Float in Float(0.3 * sin(step * Double(frame))) }
        let phrases = detect(Self.silence(1, rate) + tone + Self.silence(1, rate), sampleRate: rate)
        print("20 s tone: \(phrases.map { seconds($0.soundEndFrame - $0.soundStartFrame, rate) }) s")
        #expect(phrases.count == 4)
        #expect(phrases.allSatisfy { abs(seconds($0.soundEndFrame - $0.soundStartFrame, rate) - 5) < 0.05 })
    }

    @Test("clicks and breaths alone in a pause are dropped; a short word near a sentence is merged, far away kept")
    func bursts() throws {
        let sentence = try Speech.sentence("Good morning, how are you?")
        let word = try Speech.sentence("Yes.")
        let rate = sentence.sampleRate
        var random = SplitMix64(seed: 3)
        let click = [Float](repeating: 0, count: 100) + [0.9, -0.8, 0.5, -0.2] + [Float](repeating: 0, count: 100)
        let breath = (0..<Int(0.35 * Double(rate))).map { _ in 0.004 * (2 * random.nextUnit() - 1) }  // −50 dBFS noise
        print("'Yes.' lasts \(word.durationSeconds) s")
        var samples = Self.silence(1, rate) + sentence.samples + Self.silence(2, rate) + click + Self.silence(2, rate)
        samples += breath + Self.silence(2, rate) + sentence.samples
        let wordNearStart = samples.count + Int(1.0 * Double(rate))
        samples += Self.silence(1.0, rate) + word.samples + Self.silence(3, rate)
        let wordFarStart = samples.count
        samples += word.samples + Self.silence(3, rate)
        let phrases = detect(samples, sampleRate: rate)
        print("phrases at \(phrases.map { (seconds($0.soundStartFrame, rate), seconds($0.soundEndFrame, rate)) })")
        #expect(phrases.count == 3)  // sentence; sentence + near word; far word
        if phrases.count == 3 {
            #expect(phrases[1].soundEndFrame >= wordNearStart + word.samples.count - rate / 50)
            #expect(abs(phrases[2].soundStartFrame - wordFarStart) < rate / 20)
        }
    }

    @Test("the result does not depend on block sizes, channel layout or sample rate")
    func invariance() throws {
        let sentences = Array(try Speech.sentences().prefix(8))
        let track = SpeechTrack.join(sentences, pauses: [0.8, 1.5])
        let rate = track.sampleRate
        let reference = detect(track.samples, sampleRate: rate)
        for blockFrameCount in [1, 333, 65_536] {
            #expect(detect(track.samples, sampleRate: rate, blockFrameCount: blockFrameCount) == reference, "blocks of \(blockFrameCount)")
        }
        // Stereo: the same voice on both channels gives the same phrases; on the left only (3 dB
        // less power over the two channels) the same phrases within one analysis frame.
        let hop = rate / 100 + 1
        for (name, stereo) in [("both", track.samples.flatMap { (sample: Float) -> [Float] in [sample, sample] }),
                               ("left", track.samples.flatMap { (sample: Float) -> [Float] in [sample, 0] })] {
            let stereoPhrases = detect(stereo, sampleRate: rate, channelCount: 2, blockFrameCount: 1001)
            #expect(stereoPhrases.count == reference.count, "\(name)")
            #expect(zip(stereoPhrases, reference).allSatisfy { abs($0.startFrame - $1.startFrame) <= hop && abs($0.endFrame - $1.endFrame) <= hop },
                    "\(name)")
        }
        // Twice the rate (each sample twice): the same times within one 10 ms analysis frame.
        let doubled: [Float] = track.samples.flatMap { (sample: Float) -> [Float] in [sample, sample] }
        let doubledPhrases = detect(doubled, sampleRate: 2 * rate)
        #expect(doubledPhrases.count == reference.count)
        let worst = zip(doubledPhrases, reference).map { abs(seconds($0.startFrame, 2 * rate) - seconds($1.startFrame, rate)) }.max() ?? 0
        print("\(reference.count) phrases; at twice the rate the starts differ by at most \(worst) s")
        #expect(worst <= 0.011)
    }

    @Test("silence, nothing at all, and a recording shorter than one analysis frame give no phrases")
    func nothing() {
        #expect(detect([], sampleRate: 48_000).isEmpty)
        #expect(detect(Self.silence(30, 8_000), sampleRate: 8_000).isEmpty)
        #expect(detect([0.5, -0.5, 0.5], sampleRate: 48_000).isEmpty)
    }

    @Test("phrases become lines 'phrase N' that the writers write and the readers read back")
    func asLines() throws {
        let sentences = Array(try Speech.sentences().prefix(4))
        let track = SpeechTrack.join(sentences, pauses: [1.0])
        let phrases = detect(track.samples, sampleRate: track.sampleRate)
        let lines = phrases.textLines(sampleRate: track.sampleRate)
        #expect(lines.map(\.text) == ["phrase 1", "phrase 2", "phrase 3", "phrase 4"])
        let srt = LineFileWriter.text(of: lines, format: .subRip)
        let back = try LineFileReader.parse(Array(srt.utf8), fileName: "phrases.srt", format: .subRip).lines
        #expect(back.map(\.text) == lines.map(\.text))
        #expect(zip(back, lines).allSatisfy { abs($0.startSeconds - $1.startSeconds) <= 0.0005 && abs($0.endSeconds - $1.endSeconds) <= 0.0005 })
    }
}
