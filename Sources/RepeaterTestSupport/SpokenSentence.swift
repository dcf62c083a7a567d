import Foundation

/// One sentence spoken by espeak-ng, its own leading and trailing silence cut off, so that the
/// sound runs exactly from its first to its last sample.
public struct SpokenSentence: Sendable {
    public var voice: String
    public var text: String
    /// Mono, at `sampleRate` (espeak-ng's 22 050 Hz).
    public var samples: [Float]
    public var sampleRate: Int

    /// Whether the text has a comma (espeak-ng pauses there, briefly).
    public var hasComma: Bool { text.contains(",") || text.contains("，") || text.contains("、") }
    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }

    /// The longest stretch inside the sentence whose 10 ms frames are all below −50 dBFS: the
    /// comma pauses, measured.
    public var longestInternalPauseSeconds: Double {
        let hop = sampleRate / 100
        var longest = 0, run = 0
        for start in stride(from: 0, to: samples.count - hop, by: hop) {
            var sum: Float = 0
            for sample in samples[start..<(start + hop)] { sum += sample * sample }
            let quiet = 10 * log10(Double(sum) / Double(hop) + 1e-12) < -50
            run = quiet ? run + 1 : 0
            longest = max(longest, run)
        }
        return Double(longest) / 100
    }

    /// Speaks `text` with `voice` (an espeak-ng voice such as `fr`, `de`, `cmn`) at `wordsPerMinute`.
    /// Samples under 1/4096 (−72 dBFS) at either end count as silence.
    public static func speak(_ text: String, voice: String, wordsPerMinute: Int = 160) throws -> SpokenSentence {
        let path = NSTemporaryDirectory() + "repeater-lines-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", voice, "-s", String(wordsPerMinute), "-w", path, text]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "espeak-ng -v \(voice) failed (status \(process.terminationStatus)): install espeak-ng")
        }
        let (reader, samples) = try SoundFileReader.readAll(path: path)
        let rate = reader.sampleRate
        let threshold: Float = 1.0 / 4096
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
              let last = samples.lastIndex(where: { abs($0) > threshold }) else {
            throw FixtureError(message: "espeak-ng -v \(voice) made silence for \(text)")
        }
        return SpokenSentence(voice: voice, text: text, samples: Array(samples[first...last]), sampleRate: rate)
    }
}
