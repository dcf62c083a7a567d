import Foundation
import RepeaterEngine
import Testing

@Suite("Equalizer: three bands, flat bypass, ramps")
struct EqualizerTests {
    /// The level change (dB) the equalizer at `gains` gives a steady tone of `frequency`.
    func levelChange(_ gains: (Double, Double, Double), at frequency: Double) -> Double {
        var equalizer = Equalizer(channelCount: 1, sampleRate: 48_000)
        equalizer.setGains(lowDB: gains.0, midDB: gains.1, highDB: gains.2, immediately: true)
        let input = [tone(frequency, frameCount: 48_000)]
        let output = drive(input) { equalizer.process($0, frameCount: $1) }
        return decibels(rms(output[0], 24_000..<48_000) / rms(input[0], 24_000..<48_000))
    }

    @Test("flat is bit-exact, whatever the layout and block sizes, and so is a return to flat", arguments: [1, 2, 5])
    func flatIsBitExact(channels: Int) {
        let input = (0..<channels).map { noise(frameCount: 30_000, seed: UInt64(20 + $0)) }
        var equalizer = Equalizer(channelCount: channels, sampleRate: 48_000)
        let flat = equalizer.isFlat
        #expect(flat)
        let output = drive(input, blocks: [1, 100, 4096]) { equalizer.process($0, frameCount: $1) }
        #expect(output == input)
        // Up and back down to flat: after the ramp the samples are untouched again.
        var frame = 0
        let again = drive(input, blocks: [64], before: { start in
            frame = start
            if start == 1024 { equalizer.setGains(lowDB: 6, midDB: -3, highDB: 2) }
            if start == 8192 { equalizer.setGains(lowDB: 0, midDB: 0, highDB: 0) }
        }) { equalizer.process($0, frameCount: $1) }
        _ = frame
        for channel in 0..<channels { #expect(Array(again[channel][12_000...]) == Array(input[channel][12_000...])) }
        #expect(Array(again[0][..<1024]) == Array(input[0][..<1024]))
    }

    @Test("low shelf at −24 dB takes 60 Hz down by at least 15 dB and leaves 2 kHz within 1 dB")
    func lowShelf() {
        let at60 = levelChange((-24, 0, 0), at: 60), at2k = levelChange((-24, 0, 0), at: 2000)
        let at500 = levelChange((-24, 0, 0), at: 500), boost60 = levelChange((12, 0, 0), at: 60)
        print(String(format: "low shelf (%.0f Hz) −24 dB: 60 Hz %.1f dB, 500 Hz %.1f dB, 2 kHz %.2f dB; +12 dB: 60 Hz %.1f dB",
                     Equalizer.lowShelfHz, at60, at500, at2k, boost60))
        #expect(at60 <= -15)
        #expect(abs(at2k) <= 1)
        #expect(boost60 >= 10)
    }

    @Test("mid at ±12 dB moves 1 kHz by 12 dB and leaves 60 Hz and 10 kHz within 1 dB")
    func mid() {
        for gain in [12.0, -12.0] {
            let at1k = levelChange((0, gain, 0), at: 1000), at60 = levelChange((0, gain, 0), at: 60)
            let at10k = levelChange((0, gain, 0), at: 10_000), at2k = levelChange((0, gain, 0), at: 2000)
            print(String(format: "mid (%.0f Hz, Q %.1f) %+.0f dB: 1 kHz %+.2f dB, 2 kHz %+.1f dB, 60 Hz %+.2f dB, 10 kHz %+.2f dB",
                         Equalizer.midHz, Equalizer.midQ, gain, at1k, at2k, at60, at10k))
            #expect(abs(at1k - gain) <= 0.5)
            #expect(abs(at60) <= 1 && abs(at10k) <= 1)
        }
    }

    @Test("high shelf at ±12 dB moves 16 kHz by at least 10 dB and leaves 1 kHz within 1 dB")
    func highShelf() {
        for gain in [12.0, -12.0] {
            let at16k = levelChange((0, 0, gain), at: 16_000), at1k = levelChange((0, 0, gain), at: 1000)
            let at6k = levelChange((0, 0, gain), at: 6000)
            print(String(format: "high shelf (%.0f Hz) %+.0f dB: 16 kHz %+.1f dB, 6 kHz %+.1f dB, 1 kHz %+.2f dB",
                         Equalizer.highShelfHz, gain, at16k, at6k, at1k))
            #expect(abs(at16k) >= 10 && at16k * gain > 0)
            #expect(abs(at1k) <= 1)
        }
    }

    /// The peak of `samples[range]` after a 4th-order Butterworth high-pass at 6 kHz: zipper noise
    /// and clicks are broadband, a 1 kHz tone and its slow ramps are not (the tone itself leaks
    /// through at −64 dB).
    func highBandPeak(_ samples: [Float], _ range: Range<Int>) -> Double {
        let (q1, q2) = BiquadCoefficients.butterworth4Q
        let s1 = BiquadCoefficients.highPass(frequency: 6000, q: q1, sampleRate: 48_000)
        let s2 = BiquadCoefficients.highPass(frequency: 6000, q: q2, sampleRate: 48_000)
        var a = BiquadState(), b = BiquadState()
        var peak = 0.0
        for i in 0..<range.upperBound {
            let y = b.process(a.process(Double(samples[i]), s1), s2)
            if i >= range.lowerBound { peak = max(peak, abs(y)) }
        }
        return peak
    }

    @Test("a live change ramps without zipper noise: no step beyond the tone's own, no broadband energy beyond the steady tone's")
    func rampWithoutZipper() {
        let frequency = 1000.0, total = 48_000
        let input = [tone(frequency, amplitude: 0.25, frameCount: total)]
        var equalizer = Equalizer(channelCount: 1, sampleRate: 48_000)
        let rampFrames = equalizer.rampFrames
        let changes = [12_032, 24_064, 36_096]
        let output = drive(input, blocks: [256], before: { start in
            if start == changes[0] { equalizer.setGains(lowDB: 0, midDB: 12, highDB: 0) }   // from flat
            if start == changes[1] { equalizer.setGains(lowDB: -24, midDB: -12, highDB: 6) }
            if start == changes[2] { equalizer.setGains(lowDB: 0, midDB: 0, highDB: 0) }    // back to flat
        }) { equalizer.process($0, frameCount: $1) }
        // The tone's own largest step at the loudest (+12 dB, amplitude ≈ 1).
        let loudest = Float(0.25 * pow(10, 12.0 / 20)), toneStep = Float(2 * Double.pi * frequency / 48_000) * loudest
        let step = largestStep(output[0], 0..<total)
        // Broadband energy: during the ramps against the steady +12 dB tone's.
        let steady = highBandPeak(output[0], (changes[0] + 4000)..<changes[1])
        let ramps = changes.map { highBandPeak(output[0], $0..<($0 + rampFrames + 256)) }.max()!
        print("per ramp:", changes.map { decibels(highBandPeak(output[0], $0..<($0 + rampFrames + 256)) / Double(loudest)) },
              "steady before each:", changes.map { decibels(highBandPeak(output[0], ($0 - 6000)..<$0) / Double(loudest)) })
        print("EQ ramps (\(rampFrames) frames): largest step \(step) (the tone's own at +12 dB: \(toneStep)); above 6 kHz: "
              + String(format: "ramps %.1f dB, steady tone %.1f dB (re its amplitude)", decibels(ramps / Double(loudest)), decibels(steady / Double(loudest))))
        #expect(step <= toneStep * 1.05)
        #expect(ramps <= steady * 1.12)  // within 1 dB of the tone's own leakage
    }

    @Test("the zipper detector sees coefficients that jump once per 256-frame block")
    func steppedCoefficientsWouldShow() {
        let frequency = 1000.0, total = 9600
        let x = tone(frequency, amplitude: 0.25, frameCount: total)
        var state = BiquadState()
        var y = [Float](repeating: 0, count: total)
        for i in 0..<total {
            let gain = min(12, 12 * Double(max(0, i - 2400) / 256 * 256) / 960)  // the same ramp, in block steps
            y[i] = Float(state.process(Double(x[i]), .peaking(frequency: 1000, gainDB: gain, q: 0.7, sampleRate: 48_000)))
        }
        let steady = highBandPeak(y, 6000..<total), ramp = highBandPeak(y, 2400..<3600)
        print(String(format: "coefficients stepped per block: above 6 kHz the ramp is %.1f dB over the steady tone", decibels(ramp / steady)))
        #expect(ramp > steady * 1.41)  // at least 3 dB
    }
}
