import Foundation
import RepeaterKit

/// Rate conversion for test material through Debian's `sox` (its `rate` effect: linear phase, the
/// filter's delay compensated, so a sample at time t stays at time t). Many short clips go through
/// one sox run: joined with silence between them (longer than the filter's ringing), converted,
/// and cut apart again at the converted offsets.
public enum SoxResampler {
    /// Silence between clips joined for one conversion: 0.1 s, far longer than the ringing of
    /// sox's high-quality filter (a few ms).
    static let spacerSeconds = 0.1

    /// The frame at `rate` of `frame` at `sourceRate`.
    public static func frame(_ frame: Int, from sourceRate: Int, to rate: Int) -> Int {
        Int((Double(frame) * Double(rate) / Double(sourceRate)).rounded())
    }

    /// `clips` (mono, at `sourceRate`) at `rate`; each comes back `frame(count, …)` frames long.
    public static func resample(_ clips: [[Float]], from sourceRate: Int, to rate: Int, scratchDirectory: String) throws -> [[Float]] {
        guard sourceRate != rate else { return clips }
        let spacer = Int(spacerSeconds * Double(sourceRate))
        var joined: [Float] = []
        var offsets: [Int] = []
        for clip in clips {
            joined.append(contentsOf: [Float](repeating: 0, count: spacer))
            offsets.append(joined.count)
            joined.append(contentsOf: clip)
        }
        joined.append(contentsOf: [Float](repeating: 0, count: spacer))
        let converted = try convert(joined, from: sourceRate, to: rate, scratchDirectory: scratchDirectory)
        return zip(clips, offsets).map { clip, offset in
            let start = frame(offset, from: sourceRate, to: rate)
            let count = frame(clip.count, from: sourceRate, to: rate)
            return Array(converted[start..<min(converted.count, start + count)]) + [Float](repeating: 0, count: max(0, start + count - converted.count))
        }
    }

    /// A whole mono signal at `rate`.
    public static func convert(_ samples: [Float], from sourceRate: Int, to rate: Int, scratchDirectory: String) throws -> [Float] {
        guard sourceRate != rate else { return samples }
        let input = scratchDirectory + "/sox-in-\(UUID().uuidString).wav", output = scratchDirectory + "/sox-out-\(UUID().uuidString).wav"
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        let writer = try AudioFileWriter(path: input, format: .wav, sampleRate: sourceRate, channelCount: 1)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: samples.count) }
        writer.close()
        try runSox([input, "-e", "floating-point", "-b", "32", output, "rate", "-h", String(rate)])
        return try SoundFileReader.readAll(path: output).samples
    }

    /// Any file sox reads (Ogg Vorbis, FLAC, WAV), as mono at `rate`, channels averaged.
    public static func decodeMono(_ path: String, rate: Int, scratchDirectory: String) throws -> [Float] {
        let output = scratchDirectory + "/sox-decoded-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try runSox([path, "-e", "floating-point", "-b", "32", "-c", "1", output, "rate", "-h", String(rate)])
        return try SoundFileReader.readAll(path: output).samples
    }

    static func runSox(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        process.arguments = ["-V1"] + arguments
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch { throw FixtureError(message: "cannot run /usr/bin/sox: install sox (scripts/setup does)") }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "sox \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}
