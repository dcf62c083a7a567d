import Foundation
import RepeaterEngine

/// The minute repeater's two gong sounds: synthesized once at start-up, or loaded from files.
public enum Gongs {
    /// Partials of a struck bell relative to the fundamental (hum, prime, tierce, quint, nominal and
    /// upper partials: inharmonic, as bells are), their weights and decay times.
    private static let partials: [(ratio: Double, weight: Double, decaySeconds: Double)] = [
        (0.5, 0.30, 1.10), (1.0, 1.00, 0.70), (1.183, 0.45, 0.55), (1.506, 0.25, 0.45),
        (2.0, 0.40, 0.40), (2.514, 0.18, 0.30), (2.662, 0.12, 0.26), (3.011, 0.08, 0.22),
    ]

    /// Fundamentals of the synthesized gongs: clearly distinct (a fifth apart).
    public static let lowHz = 440.0
    public static let highHz = 660.0

    /// A bell-like strike: every partial starts at its crest (a hammer's sharp onset) and decays
    /// exponentially; the ring lasts about 2 s (the prime falls 60 dB in ~4.8 s, -20 dB by 1.6 s),
    /// the sound is 3 s long with a 50 ms fade at its end, and its peak is -6 dBFS.
    public static func synthesize(fundamental: Double, sampleRate: Int, seconds: Double = 3) -> [Float] {
        let count = Int(seconds * Double(sampleRate))
        let fadeFrames = sampleRate / 20
        var samples = [Float](repeating: 0, count: count)
        for (ratio, weight, decay) in partials {
            // A decaying phasor turned by one step a frame: weight·e^(−t/decay)·cos(ωt) without a
            // cos per sample (those were most of a speed-1 player's start-up after the warm-up).
            // In doubles the rotation's rounding stays below 1e-11 over the three seconds.
            let omega = 2 * Double.pi * fundamental * ratio / Double(sampleRate)
            let perFrame = exp(-1 / (decay * Double(sampleRate)))
            let stepReal = perFrame * cos(omega), stepImaginary = perFrame * sin(omega)
            var real = weight, imaginary = 0.0
            for frame in 0..<count {
                samples[frame] += Float(real)
                (real, imaginary) = (real * stepReal - imaginary * stepImaginary, real * stepImaginary + imaginary * stepReal)
            }
        }
        for i in 0..<fadeFrames { samples[count - 1 - i] *= Float(i) / Float(fadeFrames) }
        let peak = samples.reduce(0) { max($0, abs($1)) }
        let gain = 0.5 / peak  // -6.02 dBFS
        return samples.map { $0 * gain }
    }

    /// Loads a gong from any file libsndfile reads: mixed to mono and, when its rate differs,
    /// resampled linearly to `sampleRate` (plenty for a percussive sample played at its own pitch).
    public static func load(path: String, sampleRate: Int) throws(RepeaterError) -> [Float] {
        let file = try AudioFile(path: path)
        let info = file.info
        let frames = min(info.frameCount, 20 * info.sampleRate)
        var interleaved = [Float](repeating: 0, count: frames * info.channelCount)
        let read = interleaved.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frameCount: frames) }
        var mono = [Float](repeating: 0, count: read)
        for frame in 0..<read {
            var sum: Float = 0
            for channel in 0..<info.channelCount { sum += interleaved[frame * info.channelCount + channel] }
            mono[frame] = sum / Float(info.channelCount)
        }
        guard info.sampleRate != sampleRate, read > 1 else { return mono }
        let step = Double(info.sampleRate) / Double(sampleRate)
        let outCount = Int(Double(read - 1) / step)
        return (0..<outCount).map { index in
            let position = Double(index) * step
            let left = Int(position)
            let fraction = Float(position - Double(left))
            return mono[left] * (1 - fraction) + mono[min(left + 1, read - 1)] * fraction
        }
    }

    /// The bank the engine plays from: synthesized gongs unless files are given.
    public static func bank(sampleRate: Int, lowPath: String?, highPath: String?) throws(RepeaterError) -> GongBank {
        let low = try lowPath.map { (path: String) throws(RepeaterError) in try load(path: path, sampleRate: sampleRate) }
            ?? synthesize(fundamental: lowHz, sampleRate: sampleRate)
        let high = try highPath.map { (path: String) throws(RepeaterError) in try load(path: path, sampleRate: sampleRate) }
            ?? synthesize(fundamental: highHz, sampleRate: sampleRate)
        return GongBank(low: low, high: high)
    }
}

/// What the minute repeater is told: when, how fast, with which sounds.
public struct ChimeOptions: Sendable {
    public var tempo = 1.0
    public var lowPath: String?
    public var highPath: String?

    public init() {}

    /// Parses `HH:MM` (0:00 to 23:59).
    public static func parseTime(_ text: String) throws(RepeaterError) -> (hour: Int, minute: Int) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour),
              (0...59).contains(minute), parts[1].count == 2 else {
            throw .input("'\(text)' is not a time of day: use HH:MM, e.g. 3:47 or 15:47")
        }
        return (hour, minute)
    }

    /// The local time now.
    public static func now() -> (hour: Int, minute: Int) {
        let components = Calendar.current.dateComponents([.hour, .minute], from: Date())
        return (components.hour ?? 0, components.minute ?? 0)
    }
}
