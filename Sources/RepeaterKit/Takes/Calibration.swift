import Foundation

/// Measuring the round trip out → … → in (`calibrate`), as `jack_iodelay` does for a DAW: a probe
/// leaves every output, and where it comes back in `in_1` says how many frames the path takes,
/// whatever JACK's reported latencies say (a converter's own delay; a loop inside the graph that
/// JACK runs a period late).
public enum Calibration {
    /// The probe: an impulse, then 2047 frames of deterministic white noise at −12 dBFS (43 ms at
    /// 48 kHz). The impulse finds the arrival to the frame on a digital path; the noise confirms it
    /// by correlation, and still finds it through a converter that smears the impulse.
    public static let probe: [Float] = {
        var state: UInt32 = 0x1234_5678
        var signal = [Float](repeating: 0, count: 2048)
        signal[0] = 0.9
        for index in 1..<signal.count {
            state = state &* 1_664_525 &+ 1_013_904_223
            signal[index] = (Float(state >> 8) / Float(1 << 24) * 2 - 1) * 0.25
        }
        return signal
    }()

    /// The longest round trip looked for: 2 s.
    public static func searchFrames(sampleRate: Int) -> Int { 2 * sampleRate }

    /// Where the probe starts in `input` (the input from the instant the probe started leaving),
    /// or nil when it is not there: the largest normalized correlation with the probe, among the
    /// lags within 64 frames of a place where the input reaches half its peak (the first 32 such
    /// places, each at least 129 frames after the last); nil when that correlation is below 0.5
    /// (nothing came back, or only noise). Not only the first such place: what played before the
    /// probe comes back before it, and loud music there (a click, a drum) reaches half the peak too.
    public static func locate(_ input: [Float], probe: [Float] = Calibration.probe) -> Int? {
        guard input.count >= probe.count else { return nil }
        var peak: Float = 0
        for value in input { peak = max(peak, abs(value)) }
        guard peak > 1e-4 else { return nil }
        let probeEnergy = probe.reduce(0) { $0 + Double($1) * Double($1) }
        var best: (lag: Int, score: Double)?
        var index = 0, places = 0
        while index < input.count, places < 32 {
            guard abs(input[index]) >= peak * 0.5 else {
                index += 1
                continue
            }
            places += 1
            let lowest = max(0, index - 64), highest = min(input.count - probe.count, index + 64)
            if lowest <= highest {
                for lag in lowest...highest {
                    var dot = 0.0, energy = 0.0
                    for k in 0..<probe.count {
                        let x = Double(input[lag + k])
                        dot += x * Double(probe[k])
                        energy += x * x
                    }
                    let score = energy > 0 ? abs(dot) / (energy * probeEnergy).squareRoot() : 0
                    if best == nil || score > best!.score { best = (lag, score) }
                }
            }
            index += 129
        }
        guard let best, best.score >= 0.5 else { return nil }
        return best.lag
    }
}

/// Round trips measured, per set of connections, in `$XDG_CONFIG_HOME/repeater/latency.json`:
/// `{"connections": {"out_1>system:playback_1|in_1<system:capture_1": {"frames": 1536, "sample_rate": 48000, "measured": "…"}}}`.
/// A calibration holds for the connections it was made with, at the rate it was made at.
public struct LatencyStore {
    public let path: String

    public init(path: String = Folders.config() + "/latency.json") { self.path = path }

    /// The round trip measured for these connections at this rate, if any.
    public func roundTrip(connections: String, sampleRate: Int) -> Int? {
        guard let entry = entries()[connections] as? [String: Any],
              entry["sample_rate"] as? Int == sampleRate, let frames = entry["frames"] as? Int else { return nil }
        return frames
    }

    /// Remembers a measurement (atomically: a partial file is never seen). Errors are returned as a
    /// line for a warning: losing a calibration must not stop the music.
    @discardableResult
    public func save(connections: String, sampleRate: Int, frames: Int) -> String? {
        var all = entries()
        all[connections] = ["frames": frames, "sample_rate": sampleRate, "measured": ISO8601DateFormatter().string(from: Date())]
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let data = try JSONSerialization.data(withJSONObject: ["connections": all], options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return "could not save the calibration to '\(path)': \(error.localizedDescription)"
        }
    }

    private func entries() -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let connections = object["connections"] as? [String: Any] else { return [:] }
        return connections
    }
}
