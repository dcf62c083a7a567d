import Foundation
import RepeaterKit

/// One recorded human voice clip from a Debian package, and where its speech really starts and
/// ends (its voiced span, measured).
public struct VoiceClip: Sendable {
    public var entry: RecordedVoices.Entry
    /// Mono, at `sampleRate` (the package's own: 8 kHz for the Asterisk prompts, 11 025 Hz for
    /// Warzone 2100's tutorial).
    public var samples: [Float]
    public var sampleRate: Int
    /// The voiced span: the first frame of the first 10 ms analysis frame with speech, and one past
    /// the last (see `RecordedVoices.voicedSpan`).
    public var voicedStartFrame: Int
    public var voicedEndFrame: Int
    /// The longest quiet stretch inside the voiced span (a pause at a comma, a stop closure).
    public var longestInnerQuietSeconds: Double

    public var voicedSeconds: Double { Double(voicedEndFrame - voicedStartFrame) / Double(sampleRate) }
}

/// Real recorded voices for the phrase tests: the clips listed in `Tests/Corpus/speech/voices.tsv`
/// (Warzone 2100's tutorial narrator, read out of the zip `base.wz`; Asterisk's telephone prompts
/// in English, French, Spanish, Italian and Russian), decoded through the player's own
/// `AudioFile` (libsndfile), each with its voiced span measured.
public enum RecordedVoices {
    /// One line of the list: `set`, `package`, `path` (`ARCHIVE!MEMBER` for a member of a zip),
    /// `language`, `speaker`, `text` (the package's transcript; empty where it has none).
    public struct Entry: Sendable, Hashable {
        public var set: String
        public var package: String
        public var path: String
        public var language: String
        public var speaker: String
        public var text: String
    }

    /// The list at `path` (tab-separated, a header line first; `#` lines are comments).
    public static func entries(listPath path: String) throws -> [Entry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw FixtureError(message: "cannot read the voice list '\(path)'") }
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where number > 0 {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 5 else { throw FixtureError(message: "'\(path)' line \(number + 1): expected 6 tab-separated fields") }
            entries.append(Entry(set: fields[0], package: fields[1], path: fields[2], language: fields[3], speaker: fields[4],
                                 text: fields.count > 5 ? fields[5] : ""))
        }
        return entries
    }

    /// The clips of `entries`, decoded (a zip member through a temporary file in
    /// `scratchDirectory`; each archive's directory read once) and measured. A missing package is
    /// one line naming it.
    public static func load(_ entries: [Entry], scratchDirectory: String) throws -> [VoiceClip] {
        var archives: [String: StoredZipArchive] = [:]
        return try entries.map { entry in
            let archivePath = String(entry.path.split(separator: "!", maxSplits: 1)[0])
            if entry.path.contains("!"), archives[archivePath] == nil, FileManager.default.fileExists(atPath: archivePath) {
                archives[archivePath] = try StoredZipArchive(path: archivePath)
            }
            return try load(entry, scratchDirectory: scratchDirectory, archive: archives[archivePath])
        }
    }

    /// The clip of `entry` (see above); `archive`, if given, is the one its path names.
    public static func load(_ entry: Entry, scratchDirectory: String, archive: StoredZipArchive? = nil) throws -> VoiceClip {
        let parts = entry.path.split(separator: "!", maxSplits: 1).map(String.init)
        guard FileManager.default.fileExists(atPath: parts[0]) else {
            throw FixtureError(message: "'\(parts[0])' is missing: install \(entry.package) (scripts/setup does)")
        }
        let decoded: (samples: [Float], rate: Int)
        if parts.count == 2 {
            let bytes = try (archive ?? StoredZipArchive(path: parts[0])).contents(of: parts[1])
            let temporary = scratchDirectory + "/voice-\(UUID().uuidString)." + ((parts[1] as NSString).pathExtension)
            try bytes.write(to: URL(fileURLWithPath: temporary))
            defer { try? FileManager.default.removeItem(atPath: temporary) }
            decoded = try decodeMono(temporary)
        } else {
            decoded = try decodeMono(parts[0])
        }
        guard let span = voicedSpan(samples: decoded.samples, sampleRate: decoded.rate) else {
            throw FixtureError(message: "'\(entry.path)' holds no speech")
        }
        return VoiceClip(entry: entry, samples: decoded.samples, sampleRate: decoded.rate, voicedStartFrame: span.startFrame,
                         voicedEndFrame: span.endFrame, longestInnerQuietSeconds: span.longestInnerQuietSeconds)
    }

    /// The file at `path` as mono samples (channels averaged) and its rate.
    static func decodeMono(_ path: String) throws -> (samples: [Float], rate: Int) {
        let (reader, interleaved) = try SoundFileReader.readAll(path: path)
        let channels = reader.channelCount
        guard channels > 1 else { return (interleaved, reader.sampleRate) }
        let mono = stride(from: 0, to: interleaved.count, by: channels).map { start in
            interleaved[start..<(start + channels)].reduce(0, +) / Float(channels)
        }
        return (mono, reader.sampleRate)
    }

    /// Where the speech of a clip starts and ends. Over 10 ms frames: the speech threshold is
    /// 40 dB under the loudest frame, and at least 6 dB over the clip's own floor (its 5th
    /// percentile frame); the span runs from the first frame above it to just past the last. 40 dB
    /// keeps a final /s/ or a fading vowel (20–30 dB under the vowels) inside and leaves a
    /// breath or hiss at the edges out. Also the longest run inside the span of frames 30 dB under
    /// the loudest (or within 6 dB of the floor): the clip's own longest pause.
    public static func voicedSpan(samples: [Float], sampleRate: Int) -> (startFrame: Int, endFrame: Int, longestInnerQuietSeconds: Double)? {
        let hop = max(1, sampleRate / 100)
        let frameCount = samples.count / hop
        guard frameCount >= 10 else { return nil }
        var levels = [Double](repeating: 0, count: frameCount)
        samples.withUnsafeBufferPointer { all in
            for frame in 0..<frameCount {
                var sum: Float = 0
                for sample in all[(frame * hop)..<((frame + 1) * hop)] { sum += sample * sample }
                levels[frame] = 10 * log10(Double(sum) / Double(hop) + 1e-12)
            }
        }
        let peak = levels.max()!
        let floor = levels.sorted()[Int(0.05 * Double(frameCount - 1))]
        let speech = max(peak - 40, floor + 6)
        guard let first = levels.firstIndex(where: { $0 > speech }), let last = levels.lastIndex(where: { $0 > speech }) else { return nil }
        let quiet = max(peak - 30, floor + 6)
        var longest = 0, run = 0
        for level in levels[first...last] {
            run = level < quiet ? run + 1 : 0
            longest = max(longest, run)
        }
        return (first * hop, min(samples.count, (last + 1) * hop), Double(longest) / 100)
    }
}
