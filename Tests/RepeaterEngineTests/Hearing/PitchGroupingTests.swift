import Foundation
@testable import RepeaterEngine
import Testing

/// `centre` and the pitch grouping (`PitchGrouping`): below 500 Hz, a voiced lead's bins are found
/// by the harmonics of its pitch above 300 Hz, where its level and phase cues hold.
@Suite("Pitch grouping: a voice's low harmonics found by its pitch")
struct PitchGroupingTests {
    static let rate = 48_000.0

    /// A centred harmonic tone (15 harmonics, 1/h) of `pitch` Hz from 0.5 s to the end, and a part
    /// panned +0.4 (5.9 dB aside) at 175 Hz from the start, twice the tone's fundamental: it shares
    /// the fundamental's bins (23.4 Hz apart) and pulls their level cue aside.
    static func mix(pitch: Double, frameCount: Int, rate: Double = rate) -> [[Float]] {
        var left = [Float](repeating: 0, count: frameCount), right = left
        let (partLeft, partRight) = (cos(1.4 * Double.pi / 4), sin(1.4 * Double.pi / 4))
        for i in 0..<frameCount {
            let t = Double(i) / rate
            let part = 0.2 * sin(2 * Double.pi * 175 * t)
            var tone = 0.0
            if t >= 0.5 { for h in 1...15 where pitch * Double(h) < rate / 2 { tone += 0.1 / Double(h) * sin(2 * Double.pi * pitch * Double(h) * t) } }
            left[i] = Float(tone + part * partLeft)
            right[i] = Float(tone + part * partRight)
        }
        return [left, right]
    }

    /// The mix through `centre` (with or without the grouping; aligned with the input) and the
    /// pitch the grouping found in the last frame analysed before input frame `probe` (a multiple
    /// of 256).
    static func run(_ input: [[Float]], grouping: Bool, probe: Int, rate: Double = rate) -> (centre: [[Float]], pitchHertz: Double, confidence: Float) {
        var isolator = Isolator(channelCount: 2, sampleRate: Int(rate))
        isolator.splitter?.groupsByPitch = grouping
        isolator.setMode(.centre)
        let latency = isolator.latencyFrames
        let padded = input.map { $0 + [Float](repeating: 0, count: latency) }
        var found: (bins: Float, confidence: Float) = (0, 0)
        let output = drive(padded, blocks: [256]) { frame in
            if frame == probe { found = isolator.splitter?.pitchGrouping.lastPitch ?? (0, 0) }
        } process: { isolator.process($0, frameCount: $1) }
        let frameFrames = StereoSplitter.frameFrames(sampleRate: Int(rate))
        return (output.map { Array($0.dropFirst(latency)) }, Double(found.bins) * rate / Double(frameFrames), found.confidence)
    }

    /// Measured: the fundamental −1.2 dB of its (L+R)/2 with the grouping, −8.6 dB without; the
    /// pitch found 160.0 Hz, confidence 1.
    @Test("a centred tone's fundamental, its level cue pulled aside by a part in its bins, is kept by its harmonics above 300 Hz")
    func fundamentalKeptByItsHarmonics() {
        let count = 4 * 48_000
        let input = Self.mix(pitch: 160, frameCount: count)
        let grouped = Self.run(input, grouping: true, probe: 560 * 256), plain = Self.run(input, grouping: false, probe: 0)
        let span = 72_000..<(count - 4_800)  // from 1 s after the tone's start
        let mid = decibels(0.1)  // the fundamental's (L+R)/2
        func fundamental(_ centre: [[Float]]) -> Double {
            (toneLevel(centre[0], span, 160) + toneLevel(centre[1], span, 160)) / 2 - mid
        }
        let kept = fundamental(grouped.centre), without = fundamental(plain.centre)
        let third = (toneLevel(grouped.centre[0], span, 480) + toneLevel(grouped.centre[1], span, 480)) / 2 - decibels(0.1 / 3)
        print("the tone's fundamental through centre, against (L+R)/2: \(String(format: "%.1f", kept)) dB with the grouping, \(String(format: "%.1f", without)) dB without; its third harmonic \(String(format: "%.1f", third)) dB; the pitch found \(String(format: "%.1f", grouped.pitchHertz)) Hz, confidence \(String(format: "%.2f", grouped.confidence))")
        #expect(abs(grouped.pitchHertz - 160) < 3.2, "the pitch is the tone's, within 2 % (a harmonic's bins are 1.5 wide)")
        #expect(grouped.confidence > 0.5)
        #expect(kept > -3, "the fundamental comes through")
        #expect(kept > without + 4, "by its pitch, not by the level cue")
        #expect(third > -1, "the harmonics the pitch is found by pass")
    }

    /// Measured: a 400 Hz tone: pitch none (its half, 200 Hz, has the octave above it as strong);
    /// the fundamental unchanged (the grouping does not reach it).
    @Test("a lead pitched above the range (400 Hz) is not grouped: its half is guarded by the octave")
    func pitchAboveTheRangeIsNotGrouped() {
        let count = 3 * 48_000
        let input = Self.mix(pitch: 400, frameCount: count)
        let grouped = Self.run(input, grouping: true, probe: 2 * 48_000), plain = Self.run(input, grouping: false, probe: 0)
        let span = 48_000..<(count - 4_800)
        var largest: Float = 0
        for channel in 0..<2 { for i in span { largest = max(largest, abs(grouped.centre[channel][i] - plain.centre[channel][i])) } }
        print("400 Hz tone: the pitch found \(String(format: "%.1f", grouped.pitchHertz)) Hz (0: none), the output with and without the grouping differs by at most \(largest)")
        #expect(grouped.pitchHertz == 0)
        #expect(largest < 1e-6, "nothing is grouped")
    }

    @Test("the pitch is found at other sample rates (the bands in bins follow the transform)", arguments: [8_000, 22_050, 96_000])
    func otherRates(sampleRate: Int) {
        let rate = Double(sampleRate), count = 3 * sampleRate
        let input = Self.mix(pitch: 160, frameCount: count, rate: rate)
        let probe = (2 * sampleRate / 256) * 256
        let grouped = Self.run(input, grouping: true, probe: probe, rate: rate)
        print("\(sampleRate) Hz: the pitch found \(String(format: "%.1f", grouped.pitchHertz)) Hz, confidence \(String(format: "%.2f", grouped.confidence))")
        #expect(abs(grouped.pitchHertz - 160) < 3.2)
        #expect(grouped.confidence > 0.5)
    }
}
