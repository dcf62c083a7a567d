import Foundation
import RepeaterEngine

/// The metronome's two sounds, synthesized once at start-up like the gongs: a short, woodblock-like
/// tick that starts at its crest (so its first frame is its onset, within a frame of the beat) and
/// dies away in 30 ms, an octave and a fifth apart so the bar's first beat stands out.
public enum Clicks {
    public static let beatHz = 1_320.0
    public static let accentHz = 1_980.0

    /// A decaying tone: two partials (the second at 2.76×, as a struck bar has), 4 ms to fall 1/e,
    /// 30 ms long with the last 3 ms faded to nothing; its peak is `peak`.
    public static func synthesize(frequency: Double, peak: Double, sampleRate: Int) -> [Float] {
        let count = Int(0.030 * Double(sampleRate))
        let fade = max(1, sampleRate * 3 / 1000)
        var samples = [Float](repeating: 0, count: count)
        for (ratio, weight) in [(1.0, 1.0), (2.76, 0.35)] {
            let omega = 2 * Double.pi * frequency * ratio / Double(sampleRate)
            let perFrame = exp(-1 / (0.004 * Double(sampleRate) / ratio.squareRoot()))
            var envelope = weight
            for frame in 0..<count {
                samples[frame] += Float(envelope * cos(omega * Double(frame)))
                envelope *= perFrame
            }
        }
        for i in 0..<fade { samples[count - 1 - i] *= Float(i) / Float(fade) }
        let loudest = samples.reduce(0) { max($0, abs($1)) }
        return samples.map { $0 * Float(peak) / loudest }
    }

    /// The bank the engine plays from: beats at -9 dBFS, accents at -4 dBFS.
    public static func bank(sampleRate: Int) -> ClickBank {
        ClickBank(beat: synthesize(frequency: beatHz, peak: 0.355, sampleRate: sampleRate),
                  accent: synthesize(frequency: accentHz, peak: 0.63, sampleRate: sampleRate))
    }
}
