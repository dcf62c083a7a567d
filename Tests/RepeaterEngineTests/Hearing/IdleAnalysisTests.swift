import Foundation
@testable import RepeaterEngine
import Testing

/// While neither `centre` nor `sides` runs, the splitter analyses one hop in `idleStride` (four, of
/// 1024 frames at 48 kHz: a frame every 85 ms) and folds those frames into its statistics with the
/// smoothing raised to that power (a quarter of the transforms, the same time constants). A switch into `centre` then has to sound as if the
/// statistics had seen every hop.
@Suite("Isolator: the statistics kept at a fraction of the rate while idle")
struct IdleAnalysisTests {
    /// A mix whose statistics matter: a centred melody (a tone changing every 0.3 s) over two
    /// noise parts panned to either side, louder and softer in turn over seconds.
    static func mix(frameCount: Int) -> [[Float]] {
        let left = noise(frameCount: frameCount, amplitude: 0.3, seed: 11), right = noise(frameCount: frameCount, amplitude: 0.3, seed: 12)
        var output = [[Float](repeating: 0, count: frameCount), [Float](repeating: 0, count: frameCount)]
        var phase = 0.0
        for i in 0..<frameCount {
            let note = (i / 14_400) % 5, frequency = 220 * pow(2, Double([0, 4, 7, 9, 12][note]) / 12)
            phase += 2 * Double.pi * frequency / 48_000
            let centre = Float(0.4 * sin(phase))
            let swell = Float(0.5 + 0.5 * sin(2 * Double.pi * Double(i) / (48_000 * 3)))
            let a = left[i] * swell, b = right[i] * (1 - swell)
            output[0][i] = centre + 0.9 * a + 0.3 * b  // constant-power pans of about ∓0.6
            output[1][i] = centre + 0.3 * a + 0.9 * b
        }
        return output
    }

    /// The mix through an isolator that is `before` (`off` or `sides`) until `switchFrame` and then
    /// `centre`; the splitter's hops since its last folds at the switch.
    static func run(_ input: [[Float]], before: IsolationMode = .off, switchFrame: Int, everyHop: Bool)
        -> (output: [[Float]], hopsSinceFold: Int, hopsSinceCentreFold: Int) {
        var isolator = Isolator(channelCount: 2, sampleRate: 48_000)
        isolator.splitter?.analysesEveryHopWhileIdle = everyHop
        if before != .off { isolator.setMode(before) }
        var hopsSinceFold = -1, hopsSinceCentreFold = -1
        let output = drive(input, blocks: [256]) { frame in
            if frame == switchFrame {
                hopsSinceFold = isolator.splitter?.hopsSinceFold ?? -1
                hopsSinceCentreFold = isolator.splitter?.hopsSinceCentreFold ?? -1
                isolator.setMode(.centre)
            }
        } process: { isolator.process($0, frameCount: $1) }
        return (output, hopsSinceFold, hopsSinceCentreFold)
    }

    /// Switches into `centre` 0 to `idleStride` − 1 hops after a strided analysis, about 8 s in (the
    /// first a hop whose number is a multiple of the stride: the first hop ends at frame `hop`), and compares the output from the
    /// switch on with the same switch when every hop was analysed: within −40 dB over 2 s and
    /// over the first 0.25 s. Returns the hops since the folds at each switch.
    static func compareAtEveryPhase(before: IsolationMode) -> [(covariance: Int, centre: Int)] {
        let total = 48_000 * 10
        let input = Self.mix(frameCount: total)
        var phases: [(covariance: Int, centre: Int)] = []
        let hop = StereoSplitter.frameFrames(sampleRate: 48_000) / StereoSplitter.overlap, stride = StereoSplitter.idleStride
        let firstHop = (8 * 48_000 / hop / stride + 1) * stride
        for extraHops in 0..<stride {
            let switchFrame = hop * (firstHop + extraHops)
            let strided = Self.run(input, before: before, switchFrame: switchFrame, everyHop: false)
            let reference = Self.run(input, before: before, switchFrame: switchFrame, everyHop: true).output
            var difference = 0.0, energy = 0.0, firstDifference = 0.0, firstEnergy = 0.0
            for channel in 0..<2 {
                for i in switchFrame..<total {
                    let d = Double(strided.output[channel][i] - reference[channel][i]), r = Double(reference[channel][i])
                    difference += d * d
                    energy += r * r
                    if i < switchFrame + 12_000 {
                        firstDifference += d * d
                        firstEnergy += r * r
                    }
                }
            }
            let level = 10 * log10(difference / energy), firstLevel = 10 * log10(firstDifference / firstEnergy)
            print("\(before) → centre \(extraHops) hops after a strided analysis (\(strided.hopsSinceFold) since the last fold of the covariance, "
                  + "\(strided.hopsSinceCentreFold) of the centre's statistics): strided − every hop at "
                  + String(format: "%.1f dB over the 2 s after the switch, %.1f dB over the first 0.25 s", level, firstLevel))
            #expect(level < -40 && firstLevel < -40, "\(before), \(extraHops) hops after a strided analysis")
            phases.append((strided.hopsSinceFold, strided.hopsSinceCentreFold))
        }
        return phases
    }

    @Test("centre after 8 s of off sounds as if the statistics had followed every hop (within −40 dB), at every phase of the stride")
    func switchAfterIdle() {
        let phases = Self.compareAtEveryPhase(before: .off)
        #expect(phases.map(\.covariance) == Array(0..<StereoSplitter.idleStride))
        #expect(phases.map(\.centre) == Array(0..<StereoSplitter.idleStride))
    }

    /// `sides` needs the covariance only: while it runs alone, what only `centre` uses (the side
    /// regions, the masks, the centre model) is kept as while idle, one hop in `idleStride`.
    @Test("centre after 8 s of sides alone sounds as if the centre's statistics had followed every hop (within −40 dB), at every phase of their stride")
    func switchAfterSides() {
        let phases = Self.compareAtEveryPhase(before: .sides)
        #expect(phases.map(\.covariance) == Array(repeating: 0, count: StereoSplitter.idleStride))
        #expect(phases.map(\.centre) == Array(0..<StereoSplitter.idleStride))
    }
}
