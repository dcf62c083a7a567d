import Foundation
import RepeaterAnalysis
import RepeaterKit

/// A recording read in blocks of interleaved Float frames (through the player's own `AudioFile`),
/// for the analysis tests and benches.
public final class SoundFileReader {
    public let file: AudioFile
    public var sampleRate: Int { file.info.sampleRate }
    public var channelCount: Int { file.info.channelCount }
    public var frameCount: Int { file.info.frameCount }

    public init(path: String) throws(RepeaterError) { file = try AudioFile(path: path) }

    /// Fills `buffer` (interleaved, a whole number of frames); returns the frames read, 0 at the end.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        file.read(into: buffer.baseAddress!, frameCount: buffer.count / channelCount)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        file.read(into: buffer, frameCount: frameCount)
    }

    /// A music analyzer that has been fed the whole file at `path` in 64 Ki-frame blocks, as a
    /// player streams it (call `finish()` on it for the map).
    public static func musicAnalyzer(fedWith path: String) throws -> MusicAnalyzer {
        let reader = try SoundFileReader(path: path)
        let analyzer = try MusicAnalyzer(sampleRate: reader.sampleRate, channelCount: reader.channelCount)
        var block = [Float](repeating: 0, count: 65_536 * reader.channelCount)
        while true {
            let frames = block.withUnsafeMutableBufferPointer { reader.read(into: $0) }
            if frames == 0 { break }
            try block.withUnsafeBufferPointer { try analyzer.process(UnsafeBufferPointer(rebasing: $0[0..<(frames * reader.channelCount)])) }
        }
        return analyzer
    }

    /// The whole file, interleaved.
    public static func readAll(path: String) throws(RepeaterError) -> (reader: SoundFileReader, samples: [Float]) {
        let reader = try SoundFileReader(path: path)
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        let read = samples.withUnsafeMutableBufferPointer { reader.read(into: $0) }
        samples.removeLast((reader.frameCount - read) * reader.channelCount)
        return (reader, samples)
    }
}

/// A fixture that could not be made (a tool missing or failing), in one line.
public struct FixtureError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
