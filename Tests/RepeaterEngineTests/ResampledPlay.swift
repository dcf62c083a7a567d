import Foundation
import RepeaterEngine

/// A file at one rate played by an engine at another (a 44.1 kHz file on a 48 kHz graph unless told
/// otherwise): the engine, the supply of resamplers and stretchers, the feeder and the driver, with
/// the stretcher primed before the first frame is heard (the player holds the engine until its
/// ports are connected).
final class ResampledPlay {
    let engine: Engine
    let supply: TestSupply
    let feeder: RampFeeder
    let driver: CycleDriver
    let sourceRate: Int, outputRate: Int
    /// Input frames per output frame.
    var step: Double { Double(sourceRate) / Double(outputRate) }

    init(sourceRate: Int = 44_100, outputRate: Int = 48_000, sourceFrames: Int, channels: Int = 1, startFrame: Int = 0,
         loop: (a: Int, b: Int)? = nil, gap: Int = 0, clickPort: Bool = false, kind: Stretcher.Kind = .finer, measured: Bool = false,
         gongs: consuming GongBank = GongBank.silent(), clicks: consuming ClickBank = ClickBank.silent(), before: ((Engine) -> Void)? = nil,
         signal: @escaping (Int, Int) -> Float) {
        self.sourceRate = sourceRate
        self.outputRate = outputRate
        var configuration = Engine.Configuration(channelCount: channels, sourceFrameCount: sourceFrames, startFrame: startFrame,
                                                 blockFrames: 2048, blockCount: 32, headFrames: 96_000, loop: loop, gapFrames: gap,
                                                 sampleRate: outputRate, sourceSampleRate: sourceRate)
        configuration.startsHeld = true
        configuration.clickPort = clickPort
        engine = Engine(configuration, gongs: gongs, clicks: clicks)
        supply = TestSupply(engine: engine, kind: kind, measured: measured)
        feeder = RampFeeder(engine: engine, totalFrames: sourceFrames, value: signal)
        driver = CycleDriver(engine: engine)
        before?(engine)
        for _ in 0..<8 {
            supply.service()
            driver.cycle(256, feeder: feeder)
        }
        engine.send(.start)
        heardFrom = driver.output[0].count
    }

    /// The output frame the start was heard at (what came before it is the held silence).
    private(set) var heardFrom = 0

    /// Renders `frames` more output frames in 256-frame cycles, servicing the supply after each.
    func run(_ frames: Int, each: ((Int) -> Void)? = nil) {
        var done = 0
        while done < frames {
            each?(driver.output[0].count)
            supply.service()
            driver.cycle(min(256, frames - done), feeder: feeder)
            done += 256
        }
    }

    func finish() { supply.drain() }
}

/// A least-squares fit of one sine at exactly `frequency` to `samples`: its amplitude, and what is
/// left (noise, distortion, images, aliases) in dB relative to the fitted sine (THD+N).
func fitSine(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> (amplitude: Double, residualDB: Double) {
    var ss = 0.0, cc = 0.0, sc = 0.0, ys = 0.0, yc = 0.0
    for (n, y) in samples.enumerated() {
        let t = 2 * Double.pi * frequency * Double(n) / sampleRate
        let (s, c) = (sin(t), cos(t))
        ss += s * s; cc += c * c; sc += s * c; ys += Double(y) * s; yc += Double(y) * c
    }
    let det = ss * cc - sc * sc, a = (ys * cc - yc * sc) / det, b = (yc * ss - ys * sc) / det
    var residual = 0.0, signal = 0.0
    for (n, y) in samples.enumerated() {
        let t = 2 * Double.pi * frequency * Double(n) / sampleRate
        let model = a * sin(t) + b * cos(t)
        residual += (Double(y) - model) * (Double(y) - model)
        signal += model * model
    }
    return ((a * a + b * b).squareRoot(), 10 * log10(max(residual, 1e-30) / signal))
}

/// A marker in the source: a 96-frame Hann-windowed burst at a quarter of the source rate's
/// Nyquist, starting at a frame; through a resampler its energy centroid falls where its centre
/// falls, to a small fraction of a frame.
enum Marker {
    static let length = 96
    /// The burst's centre, in frames after its first.
    static let centre = Double(length - 1) / 2

    static func value(at frame: Int, starts: [Int]) -> Float {
        for start in starts where frame >= start && frame < start + length {
            let t = Double(frame - start)
            let window = 0.5 - 0.5 * cos(2 * Double.pi * (t + 0.5) / Double(length))
            return Float(0.8 * window * sin(2 * Double.pi * t / 8))
        }
        return 0
    }

    /// The energy centroid (output frames, fractional) of the burst nearest `expected` in `output`,
    /// within ±`reach` frames; nil when nothing sounds there.
    static func centroid(in output: [Float], near expected: Double, reach: Int = 160) -> Double? {
        let from = max(0, Int(expected) - reach), to = min(output.count, Int(expected) + reach)
        guard from < to else { return nil }
        var energy = 0.0, moment = 0.0
        for n in from..<to {
            let e = Double(output[n]) * Double(output[n])
            energy += e
            moment += e * Double(n)
        }
        return energy > 1e-6 ? moment / energy : nil
    }
}

/// Event helpers.
func passStarts(_ events: [EngineEvent]) -> [(frame: Int, outputFrame: Int)] {
    events.compactMap { if case .passStarted(let frame, let outputFrame) = $0 { return (frame, outputFrame) } else { return nil } }
}

func pointsSet(_ events: [EngineEvent]) -> [(isB: Bool, frame: Int)] {
    events.compactMap { if case .pointSet(let isB, let frame) = $0 { return (isB, frame) } else { return nil } }
}
