import Foundation
@testable import RepeaterEngine
import Testing

@Suite("Isolator: modes, latency, layouts")
struct IsolatorTests {
    @Test("off leaves every sample bit-exact, undelayed, whatever the layout and block sizes", arguments: [1, 2, 3])
    func offIsBitExact(channels: Int) {
        let input = (0..<channels).map { noise(frameCount: 20_000, seed: UInt64(7 + $0)) }
        var isolator = Isolator(channelCount: channels, sampleRate: 48_000)
        let latency = isolator.latencyFrames(for: .off)
        #expect(latency == 0)
        let output = drive(input, blocks: [1, 37, 256, 4096, 513]) { isolator.process($0, frameCount: $1) }
        #expect(output == input)
    }

    @Test("through is the input bit-exact, delayed by exactly the latency; left and right copy one channel to both")
    func throughAndChannels() {
        let input = [noise(frameCount: 30_000, seed: 1), noise(frameCount: 30_000, seed: 2)]
        let latency = Isolator(channelCount: 2, sampleRate: 48_000).latencyFrames
        print("latency: \(latency) frames (\(String(format: "%.1f", Double(latency) / 48)) ms at 48 kHz)")
        #expect(latency == 2048)
        let through = isolate(input, mode: .through, blocks: [100, 256, 7])
        #expect(through == input)
        let left = isolate(input, mode: .left, blocks: [300])
        let right = isolate(input, mode: .right, blocks: [300])
        #expect(left[0] == input[0] && left[1] == input[0])
        #expect(right[0] == input[1] && right[1] == input[1])
    }

    @Test("centre passes a centred signal whole and sides removes it, on the same time base as through")
    func centredSignal() {
        let mono = noise(frameCount: 48_000, seed: 3)
        let input = [mono, mono]
        for blocks in [[256], [1, 511, 64, 2000]] {
            let centre = isolate(input, mode: .centre, blocks: blocks)
            let sides = isolate(input, mode: .sides, blocks: blocks)
            let range = 0..<mono.count
            var error = 0.0
            for channel in 0..<2 { for i in range { error = max(error, Double(abs(centre[channel][i] - mono[i]))) } }
            let sidesLevel = decibels(max(rms(sides[0], range), rms(sides[1], range)) / rms(mono, range))
            print("centred noise, blocks \(blocks): centre differs from the input by at most \(error); sides at \(String(format: "%.1f", sidesLevel)) dB")
            #expect(error < 1e-5)
            #expect(sidesLevel < -90)
        }
    }

    @Test("a part hard left: centre removes it, sides keeps it where it was")
    func hardLeftPart() {
        let part = noise(frameCount: 96_000, seed: 4)
        let input = [part, [Float](repeating: 0, count: part.count)]
        let centre = isolate(input, mode: .centre)
        let sides = isolate(input, mode: .sides)
        let settled = 24_000..<96_000  // after the statistics' quarter second
        let centreLevel = decibels(rms(centre[0], settled) / rms(part, settled))
        var sidesError = 0.0
        for i in settled { sidesError = max(sidesError, Double(abs(sides[0][i] - part[i])) + Double(abs(sides[1][i]))) }
        print("hard-left noise: centre at \(String(format: "%.1f", centreLevel)) dB; sides differ from (part, silence) by at most \(sidesError)")
        #expect(centreLevel < -25)
        #expect(sidesError < 1e-4)
    }

    @Test("band(200, 2000) falls at least 12 dB per octave outside the band and passes its middle")
    func bandSlopes() {
        let frequencies = [25.0, 50, 100, 200, 632, 2000, 4000, 8000, 16_000]
        var levels: [Double: Double] = [:]
        for frequency in frequencies {
            let input = [tone(frequency, frameCount: 48_000), tone(frequency, frameCount: 48_000)]
            let output = isolate(input, mode: .band(lowHz: 200, highHz: 2000))
            levels[frequency] = decibels(rms(output[0], 24_000..<48_000) / rms(input[0], 24_000..<48_000))
        }
        print("band(200, 2000):", frequencies.map { "\(Int($0)) Hz \(String(format: "%.1f", levels[$0]!)) dB" }.joined(separator: ", "))
        #expect(abs(levels[632]!) < 1)
        #expect(abs(levels[200]! + 3) < 0.5 && abs(levels[2000]! + 3) < 0.5)
        #expect(levels[100]! <= -12 && levels[4000]! <= -12)  // one octave out
        #expect(levels[50]! - levels[100]! <= -12 && levels[25]! - levels[50]! <= -12)  // and on
        #expect(levels[8000]! - levels[4000]! <= -12 && levels[16_000]! - levels[8000]! <= -12)
    }

    @Test("bass keeps E1 to G4 and drops what lies an octave outside")
    func bassBand() {
        var figures: [String] = []
        var levels: [Double: Double] = [:]
        for frequency in [15.0, 41.2, 98, 196, 392, 800, 1600] {
            let input = [tone(frequency, frameCount: 72_000)]
            let output = isolate(input, mode: .bass)
            levels[frequency] = decibels(rms(output[0], 36_000..<72_000) / rms(input[0], 36_000..<72_000))
            figures.append("\(frequency) Hz \(String(format: "%.1f", levels[frequency]!)) dB")
        }
        print("bass (\(IsolationMode.bassBand.lowHz)–\(IsolationMode.bassBand.highHz) Hz, mono):", figures.joined(separator: ", "))
        #expect(abs(levels[41.2]!) < 1 && abs(levels[98]!) < 1 && abs(levels[196]!) < 1)
        #expect(levels[392]! > -3.5)
        #expect(levels[15]! < -20 && levels[800]! < -20 && levels[1600]! < -40)
    }

    @Test("bass and band work per channel on 1 and 3 channels; the stereo modes are refused there", arguments: [1, 3])
    func otherLayouts(channels: Int) {
        var isolator = Isolator(channelCount: channels, sampleRate: 48_000)
        let latency = isolator.latencyFrames
        #expect(latency == 0)
        for mode in [IsolationMode.centre, .sides, .left, .right] {
            let supported = isolator.supports(mode), accepted = isolator.setMode(mode), now = isolator.mode
            #expect(!supported && !accepted && now == .off)
        }
        let inverted = isolator.supports(.band(lowHz: 500, highHz: 400))
        let others = isolator.supports(.bass) && isolator.supports(.through) && isolator.supports(.band(lowHz: 0, highHz: 300))
        #expect(!inverted && others)
        // Each channel its own tone: the band keeps channel 0's 300 Hz and drops the others' 3 kHz.
        let input = (0..<channels).map { tone($0 == 0 ? 300 : 3000, frameCount: 48_000) }
        let output = isolate(input, mode: .band(lowHz: 150, highHz: 600))
        let levels = (0..<channels).map { decibels(rms(output[$0], 24_000..<48_000) / rms(input[$0], 24_000..<48_000)) }
        print("band(150, 600) on \(channels) channels:", levels.map { String(format: "%.1f dB", $0) })
        #expect(abs(levels[0]) < 1)
        for channel in 1..<channels { #expect(levels[channel] < -40) }
    }

    @Test("a silence after loud music leaves no subnormal number in any filter or statistic")
    func noSubnormalsAfterSilence() {
        var isolator = Isolator(channelCount: 2, sampleRate: 48_000)
        let loud = [noise(frameCount: 48_000, seed: 5), noise(frameCount: 48_000, seed: 6)]
        let silent = [[Float](repeating: 0, count: 48_000 * 20), [Float](repeating: 0, count: 48_000 * 20)]
        for mode in [IsolationMode.centre, .sides, .bass] {
            isolator.setMode(mode)
            _ = drive(loud, blocks: [512]) { isolator.process($0, frameCount: $1) }
            _ = drive(silent, blocks: [4096]) { isolator.process($0, frameCount: $1) }
            let subnormals = isolator.subnormalStateCount()
            #expect(subnormals == 0, "after \(mode)")
        }
    }
}
