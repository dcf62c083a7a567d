import Foundation

/// Real recorded speech: the tutorial lines of warzone2100-data (`base.wz`, a zip), read in order
/// and joined with half a second of silence between them (mono, 11 025 Hz as recorded).
public enum RecordedVoices {
    public static let archive = "/usr/share/games/warzone2100/base.wz"

    /// Lines `first…last` of the tutorial (tut1.ogg …), joined.
    public static func tutorial(lines: ClosedRange<Int> = 1...16) throws -> (samples: [Float], sampleRate: Int) {
        guard FileManager.default.isReadableFile(atPath: archive) else { throw FixtureError(message: "\(archive) is missing: run scripts/setup (warzone2100-data)") }
        let scratch = NSTemporaryDirectory() + "repeater-voices-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-q", "-j", "-o", archive] + lines.map { "audio/tutorial/tut\($0).ogg" } + ["-d", scratch]
        unzip.standardError = FileHandle.nullDevice
        try unzip.run()
        unzip.waitUntilExit()
        guard unzip.terminationStatus == 0 else { throw FixtureError(message: "unzip could not read the tutorial lines from \(archive) (status \(unzip.terminationStatus))") }
        var samples: [Float] = [], rate = 0
        for line in lines {
            let (reader, mono) = try SoundFileReader.readAll(path: scratch + "/tut\(line).ogg")
            guard reader.channelCount == 1, rate == 0 || reader.sampleRate == rate else { throw FixtureError(message: "tut\(line).ogg is not mono at \(rate) Hz") }
            rate = reader.sampleRate
            samples += mono + [Float](repeating: 0, count: rate / 2)
        }
        return (samples, rate)
    }
}
