import Foundation

/// A stereo reverb for test mixes, as a mixing engineer's send: one mono signal in, a left and a
/// right tail out, the two decorrelated (each channel's impulse response is its own seeded noise).
///
/// Each impulse response: `preDelaySeconds` (20 ms) of silence, then white noise smoothed by a one-pole
/// low-pass (a darker tail, as a room's air and walls absorb the highs) whose envelope rises over
/// `buildUpSeconds` (60 ms; the reflections thickening) and decays by 60 dB in `rt60Seconds`; scaled to
/// unit energy, so a send of gain g gives a wet signal about g² times the send's energy per channel.
/// Convolution is done whole-signal in the frequency domain (`Spectrum`, double precision).
public struct StereoReverb: Sendable {
    public let rt60Seconds: Double
    public static let preDelaySeconds = 0.02
    public static let buildUpSeconds = 0.06
    /// The noise's low-pass corner.
    public static let dampingHz = 6000.0
    public let left: [Float]
    public let right: [Float]

    /// The two impulse responses from `seed` (the same seed, the same reverb).
    public init(rt60Seconds: Double, sampleRate: Int, seed: UInt64) {
        self.rt60Seconds = rt60Seconds
        var generator = SplitMix64(seed: seed)
        let length = Int((rt60Seconds + 0.1) * Double(sampleRate))
        func response() -> [Float] {
            let preDelay = Int(Self.preDelaySeconds * Double(sampleRate)), buildUp = Self.buildUpSeconds * Double(sampleRate)
            let decay = -log(1000.0) / (rt60Seconds * Double(sampleRate))  // −60 dB over rt60Seconds
            let pole = exp(-2 * Double.pi * Self.dampingHz / Double(sampleRate))
            var smoothed = 0.0, energy = 0.0
            var samples = [Double](repeating: 0, count: length)
            for n in preDelay..<length {
                smoothed = pole * smoothed + (1 - pole) * Self.gaussian(&generator)
                let t = Double(n - preDelay)
                samples[n] = smoothed * min(1, t / buildUp) * exp(decay * t)
                energy += samples[n] * samples[n]
            }
            let scale = 1 / energy.squareRoot()
            return samples.map { Float($0 * scale) }
        }
        left = response()
        right = response()
    }

    /// `mono` through both responses: two channels as long as `mono` plus the tail.
    public func apply(_ mono: [Float]) -> [[Float]] {
        let length = mono.count + left.count - 1, size = Spectrum.size(for: length)
        let signal = Spectrum.forward(mono, size: size)
        return [left, right].map { response in
            var product = Spectrum.forward(response, size: size)
            for k in 0...(size / 2) {
                let (a, b) = (signal[2 * k], signal[2 * k + 1]), (c, d) = (product[2 * k], product[2 * k + 1])
                product[2 * k] = a * c - b * d
                product[2 * k + 1] = a * d + b * c
            }
            return Spectrum.inverse(product, size: size, length: length)
        }
    }
}

extension StereoReverb {
    /// Standard normal (Box–Muller) from `generator`'s uniform 53-bit draws.
    static func gaussian(_ generator: inout SplitMix64) -> Double {
        let u = max(Double(generator.next() >> 11) / Double(1 << 53), 1e-300), v = Double(generator.next() >> 11) / Double(1 << 53)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
