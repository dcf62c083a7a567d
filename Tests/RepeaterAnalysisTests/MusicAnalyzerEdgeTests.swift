import Foundation
import RepeaterAnalysis
import RepeaterTestSupport
import Testing

@Suite("Music analyzer edges")
struct MusicAnalyzerEdgeTests {
    func analyse(_ samples: [Float], sampleRate: Int, channelCount: Int) throws -> MusicAnalysis {
        let analyzer = try MusicAnalyzer(sampleRate: sampleRate, channelCount: channelCount)
        try samples.withUnsafeBufferPointer { try analyzer.process($0) }
        return try analyzer.finish()
    }

    @Test("silence, nothing at all, or a moment of noise: no beats, no bars, no key", arguments: [
        ("60 s of digital silence", 60.0, Float(0)),
        ("no frames", 0.0, Float(0)),
        ("0.2 s of noise", 0.2, Float(0.5)),
    ])
    func nothingToFind(label: String, seconds: Double, amplitude: Float) throws {
        var seed: UInt64 = 7
        let samples = (0..<(Int(seconds * 44_100) * 2)).map { _ -> Float in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return amplitude * (Float(seed >> 40) / Float(1 << 24) - 0.5)
        }
        let analysis = try analyse(samples, sampleRate: 44_100, channelCount: 2)
        print("\(label): \(analysis.beatFrames.count) beats, tempo \(analysis.tempoBPM), key \(analysis.key?.name ?? "none")")
        #expect(analysis.frameCount == samples.count / 2)
        #expect(analysis.beatFrames.isEmpty)
        #expect(analysis.downbeatFrames.isEmpty)
        #expect(analysis.tempoChanges.isEmpty)
        #expect(analysis.tempoBPM == 0)
        #expect(analysis.beatsPerBar == 0)
        #expect(analysis.key == nil)
    }

    /// What the tracker finds "beats" in though there are none: before, a steady sine got 23
    /// beats, 67.8 BPM and B major. Each must have an empty map: no beats, bars, tempo or key.
    @Test("a signal without a beat (a steady sine, white noise, synthetic and recorded speech) gets a map that found none", arguments: [
        "sine", "noise", "espeak-ng", "recorded voices",
    ])
    func noBeat(signal: String) throws {
        var samples: [Float], rate: Int
        switch signal {
        case "sine":
            rate = 48_000
            samples = (0..<(30 * rate)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        case "noise":
            rate = 44_100
            var random = SplitMix64(seed: 5)
            samples = (0..<(30 * rate)).map { _ in 0.3 * (2 * random.nextUnit() - 1) }
        case "espeak-ng":
            let voice = SentenceCorpus.byVoice[0]
            let sentences = try voice.sentences.prefix(8).map { try SpokenSentence.speak($0, voice: voice.voice) }
            let track = SpeechTrack.join(Array(sentences), pauses: [0.6, 1.1, 0.8])
            (samples, rate) = (track.samples, track.sampleRate)
        default:
            // Warzone 2100's tutorial narrator, 16 lines joined with half a second between them.
            let entries = try RealSpeechSet.voiceEntries().filter { $0.package == "warzone2100-data" }.prefix(16)
            let scratch = NSTemporaryDirectory() + "repeater-no-beat-\(getpid())"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let clips = try RecordedVoices.load(Array(entries), scratchDirectory: scratch)
            rate = clips[0].sampleRate
            samples = clips.filter { $0.sampleRate == rate }.flatMap { $0.samples + [Float](repeating: 0, count: rate / 2) }
        }
        let analysis = try analyse(samples, sampleRate: rate, channelCount: 1)
        print("\(signal), \(samples.count / rate) s at \(rate) Hz: \(analysis.beatFrames.count) beats, \(analysis.tempoBPM) BPM, key \(analysis.key?.name ?? "none")")
        #expect(samples.count >= 20 * rate)
        #expect(analysis.beatFrames.isEmpty && analysis.downbeatFrames.isEmpty && analysis.tempoChanges.isEmpty)
        #expect(analysis.tempoBPM == 0 && analysis.beatsPerBar == 0)
        #expect(analysis.key == nil)
        #expect(analysis.tempoConfidence == 0 && analysis.tempoAlternativeBPM == nil)
    }

    @Test("music shorter than the tempo tracker's 7.5 s window gives no beats, and so no key (no beat, no claim that it is music)")
    func shortMusic() throws {
        try #require(FluidSynth.isAvailable, "install fluidsynth and timgm6mb-soundfont")
        let piece = AccuracySet.pieces.first { $0.name.hasPrefix("pop C") }!
        let path = NSTemporaryDirectory() + "repeater-music-short-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FluidSynth.render(piece.song, to: path, sampleRate: 44_100)
        let samples = Array(try SoundFileReader.readAll(path: path).samples.prefix(5 * 44_100 * 2))
        let analysis = try analyse(samples, sampleRate: 44_100, channelCount: 2)
        print("5 s of '\(piece.name)': \(analysis.beatFrames.count) beats, key \(analysis.key?.name ?? "none")")
        #expect(analysis.beatFrames.isEmpty)
        #expect(analysis.key == nil)
        #expect(analysis.tempoBPM == 0 && analysis.tempoConfidence == 0 && analysis.tempoAlternativeBPM == nil)
    }

    /// Noise clicks (4 ms decay) every 0.5 s from 0.25 s, mono: the beats must land on them at
    /// every rate, within the detection function's resolution (one step, 11.5–11.7 ms), and on
    /// average within 2 ms (the latency compensation).
    @Test("beats land on clicks within one 11.6 ms step at any rate", arguments: [8_000, 22_050, 44_100, 48_000, 96_000])
    func clicks(rate: Int) throws {
        let seconds = 30.0
        var samples = [Float](repeating: 0, count: Int(seconds * Double(rate)))
        var seed: UInt64 = 12_345
        var truth: [Double] = []
        for beat in 0..<Int(seconds / 0.5) {
            let start = Int((Double(beat) * 0.5 + 0.25) * Double(rate))
            truth.append(Double(start) / Double(rate))
            for i in 0..<Int(0.02 * Double(rate)) where start + i < samples.count {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let noise = Float(seed >> 40) / Float(1 << 24) - 0.5
                samples[start + i] = noise * Float(exp(-Double(i) / (0.004 * Double(rate))))
            }
        }
        let analysis = try analyse(samples, sampleRate: rate, channelCount: 1)
        let beats = analysis.beatFrames.map { Double($0) / Double(rate) }
        let offsets = BeatMetrics.matches(estimated: beats, truth: truth, window: 0.07)
        let mean = offsets.reduce(0, +) / Double(max(1, offsets.count))
        print(String(format: "%d Hz: %d beats, %d on clicks, offset mean %+.1f ms, range %+.1f…%+.1f ms, %.2f BPM", rate, beats.count,
                     offsets.count, mean * 1000, (offsets.min() ?? 0) * 1000, (offsets.max() ?? 0) * 1000, analysis.tempoBPM))
        #expect(offsets.count == truth.count)
        #expect(beats.count == truth.count)
        #expect(offsets.allSatisfy { abs($0) <= 0.0117 })
        #expect(abs(mean) <= 0.002)
        #expect(abs(analysis.tempoBPM - 120) < 120 * 0.005)
    }

    @Test("a rate or channel count out of range is an error value, not a crash")
    func invalidInput() {
        #expect(throws: MusicAnalysisError.self) { _ = try MusicAnalyzer(sampleRate: 0, channelCount: 2) }
        #expect(throws: MusicAnalysisError.self) { _ = try MusicAnalyzer(sampleRate: 44_100, channelCount: 0) }
        let message = MusicAnalysisError.invalidInput("sample rate 0 Hz is outside 1000–768000 Hz").description
        #expect(message == "cannot analyse this input: sample rate 0 Hz is outside 1000–768000 Hz")
    }

    @Test("keys are named as their signatures spell them")
    func keyNames() {
        let names = [(9, true, "A minor"), (6, false, "F# major"), (3, false, "Eb major"), (3, true, "Eb minor"),
                     (10, false, "Bb major"), (1, true, "C# minor"), (8, true, "G# minor"), (1, false, "Db major"), (5, true, "F minor")]
        for (tonic, isMinor, name) in names {
            #expect(MusicalKey(tonic: tonic, isMinor: isMinor).name == name)
        }
    }
}
