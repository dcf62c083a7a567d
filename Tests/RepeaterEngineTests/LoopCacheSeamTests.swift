import Foundation
import RepeaterEngine
import RepeaterTestSupport
import Testing

/// The seam of a replayed pass against the live stream's seams, on real recordings (issue 31): the
/// energy above 4 kHz in the 10 ms around each seam (the wrap as heard), against the median of the
/// pass's 10 ms windows, in dB. A click or a thump at a seam shows as a peak there.
@Suite("Engine: the loop cache's seams on real music and speech (issue 31)")
struct LoopCacheSeamTests {
    /// Real material, mono at 48 kHz, and a 1 s loop in it: music (Hedgewars, `hedgewars-data`) and
    /// a recorded voice (Warzone 2100's tutorial narrator, `warzone2100-data`).
    static let material: [String: (samples: [Float], a: Int)] = {
        let scratch = NSTemporaryDirectory() + "repeater-seams-\(getpid())"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var found: [String: (samples: [Float], a: Int)] = [:]
        if let music = try? SoxResampler.decodeMono("/usr/share/games/hedgewars/Data/Music/sdmusic.ogg", rate: 48_000, scratchDirectory: scratch) {
            found["music"] = (music, 20 * 48_000)
        }
        let list = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Corpus/speech/voices.tsv"
        if let entry = (try? RecordedVoices.entries(listPath: list))?.first(where: { $0.path.hasSuffix("tutorial/tut1.ogg") }),
           let clip = try? RecordedVoices.load(entry, scratchDirectory: scratch),
           let speech = try? SoxResampler.convert(clip.samples, from: clip.sampleRate, to: 48_000, scratchDirectory: scratch) {
            found["speech"] = (speech, SoxResampler.frame(clip.voicedStartFrame, from: clip.sampleRate, to: 48_000) + 4800)
        }
        return found
    }()

    /// The seams of the loop at `speed` as heard: each wrap's high-band energy in dB over its pass's
    /// median, from the live stream (cache off) or the replayed passes (cache on, from the switch).
    static func seams(_ samples: [Float], a: Int, speed: Double, cache: Bool) -> [Double] {
        let play = CachedLoop(loop: (a: a, b: a + 48_000), speed: speed, kind: .finer, cache: cache, sourceFrames: samples.count) { frame, _ in
            frame < samples.count ? samples[frame] : 0
        }
        play.run(6 * play.passFrames)
        play.finish()
        let events = play.driver.events()
        let wraps = wrapEvents(events).map(\.outputFrame)
        let high = highBand(play.driver.output[0])
        func energy(_ from: Int) -> Double { high[max(0, from)..<min(high.count, from + 480)].reduce(0) { $0 + Double($1 * $1) } }
        var values: [Double] = []
        // From wrap 2 on: in the cached run the replay starts at wrap 2.
        for index in 2..<wraps.count where wraps[index] + 480 <= high.count {
            let start = wraps[index - 1], seam = wraps[index]
            let windows = stride(from: start, to: seam - 480, by: 480).map(energy).sorted()
            guard !windows.isEmpty else { continue }
            let median = windows[windows.count / 2]
            values.append(10 * log10(max(energy(seam - 240), 1e-20) / max(median, 1e-20)))
        }
        if cache {
            #expect(play.engine.status.replayedPasses.load(ordering: .relaxed) >= 3, "replayed: \(play.engine.status.replayedPasses.load(ordering: .relaxed))")
        }
        return values
    }

    /// Above 4 kHz: two biquad high-pass sections (4th-order Butterworth).
    static func highBand(_ x: [Float]) -> [Float] {
        var y = x
        for q in [0.541_196_1, 1.306_563] {
            let w = 2 * Double.pi * 4000 / 48_000, alpha = sin(w) / (2 * q), c = cos(w)
            let a0 = 1 + alpha
            let b0 = (1 + c) / 2 / a0, b1 = -(1 + c) / a0, b2 = (1 + c) / 2 / a0, a1 = -2 * c / a0, a2 = (1 - alpha) / a0
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            for n in 0..<y.count {
                let input = Double(y[n])
                let output = b0 * input + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                (x2, x1, y2, y1) = (x1, input, y1, output)
                y[n] = Float(output)
            }
        }
        return y
    }

    @Test("replayed seams measure within 1 dB of the live seams (energy above 4 kHz in 10 ms around the seam over the pass's median), music and speech at 0.5, 0.75 and 1.25",
          arguments: ["music", "speech"], [0.5, 0.75, 1.25])
    func seamsAsLive(material name: String, speed: Double) throws {
        let material = try #require(Self.material[name], "\(name): the recording is not installed (scripts/setup)")
        let live = Self.seams(material.samples, a: material.a, speed: speed, cache: false)
        let replayed = Self.seams(material.samples, a: material.a, speed: speed, cache: true)
        try #require(live.count >= 3 && replayed.count >= 3)
        let median = live.sorted()[live.count / 2]
        let text = { (values: [Double]) in values.map { String(format: "%+.2f", $0) }.joined(separator: " ") }
        print(String(format: "seams, %@ at %.2f: live %@ dB (median %+.2f), replayed %@ dB", name, speed, text(live), median, text(replayed)))
        for value in replayed {
            #expect(abs(value - median) <= 1, "\(name) at \(speed): a replayed seam at \(value) dB, the live seams' median \(median) dB")
        }
    }
}
