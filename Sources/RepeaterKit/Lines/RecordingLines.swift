import Foundation
import RepeaterAnalysis
import RepeaterLines

/// One line of a recording's map: a subtitle, a lyric or an automatic phrase, in the recording's
/// frames (end exclusive).
public struct MapLine: Sendable, Equatable {
    public var startFrame: Int
    public var endFrame: Int
    public var text: String

    public init(startFrame: Int, endFrame: Int, text: String) {
        self.startFrame = startFrame
        self.endFrame = endFrame
        self.text = text
    }
}

/// The lines of a recording and where they came from: the text part of its map, as beats and bars
/// are the musical part. Read from a subtitle, lyrics or label file (`--subs`, or one beside the
/// recording with its name), or found at the pauses of the speech (`--phrases auto`).
public struct RecordingLines: Sendable, Equatable {
    public var lines: [MapLine]
    /// The file read, or "automatic phrases".
    public var source: String
    /// One-line notes about the reading (an encoding guessed, a WebVTT file named .srt).
    public var notes: [String] = []

    public init(lines: [MapLine], source: String, notes: [String] = []) {
        self.lines = lines
        self.source = source
        self.notes = notes
    }

    /// The extensions a line file beside a recording may have, in the order they are looked for.
    public static let sidecarExtensions = ["srt", "vtt", "lrc", "txt"]

    /// A line file beside the recording with its name (`talk.mp3` → `talk.srt`, `talk.vtt`, …), if any.
    public static func sidecar(forAudio path: String) -> String? {
        let stem = (path as NSString).deletingPathExtension
        return sidecarExtensions.map { stem + "." + $0 }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Reads a line file for a recording of `info`; a file that cannot be read, or a time that
    /// cannot be one, is one line naming the file, the line number and the problem.
    public static func read(path: String, info: AudioFileInfo) throws(RepeaterError) -> RecordingLines {
        let file: LineFile
        do {
            file = try LineFileReader.read(path: path, recordingDurationSeconds: Double(info.frameCount) / Double(info.sampleRate))
        } catch {
            throw .input(error.message)
        }
        let rate = Double(info.sampleRate)
        let lines = file.lines.compactMap { line -> MapLine? in
            let start = max(0, min(info.frameCount, Int((line.startSeconds * rate).rounded())))
            let end = max(0, min(info.frameCount, Int((line.endSeconds * rate).rounded())))
            return end > start ? MapLine(startFrame: start, endFrame: end, text: line.text) : nil
        }
        guard !lines.isEmpty else { throw .input("'\(path)' has no line inside '\(info.path)' (\(formatTime(frame: info.frameCount, sampleRate: info.sampleRate)))") }
        return RecordingLines(lines: lines, source: path, notes: file.notes)
    }

    /// The phrases of the speech in the file at `path`, found at its pauses (`PhraseDetector`), read
    /// in blocks; named "phrase 1", "phrase 2", …
    public static func phrases(path: String) throws(RepeaterError) -> RecordingLines {
        let file = try AudioFile(path: path)
        let info = file.info
        var detector = PhraseDetector(sampleRate: info.sampleRate, channelCount: info.channelCount)
        let blockFrames = 65_536
        var block = [Float](repeating: 0, count: blockFrames * info.channelCount)
        while true {
            let read = block.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frameCount: blockFrames) }
            if read == 0 { break }
            block.withUnsafeBufferPointer { detector.process(interleaved: UnsafeBufferPointer(rebasing: $0[0..<(read * info.channelCount)])) }
        }
        let lines = detector.phrases().enumerated().map { index, phrase in
            MapLine(startFrame: phrase.startFrame, endFrame: min(info.frameCount, phrase.endFrame), text: "phrase \(index + 1)")
        }
        return RecordingLines(lines: lines, source: "automatic phrases")
    }

    /// The index of the line at `frame`: the one whose span holds it, or nil.
    public func index(at frame: Int) -> Int? {
        lines.lastIndex { $0.startFrame <= frame && frame < $0.endFrame }
    }

    /// The index of the line the listener is in or last passed at `frame` (-1 before the first).
    public func indexAtOrBefore(_ frame: Int) -> Int {
        lines.lastIndex { $0.startFrame <= frame } ?? -1
    }

    /// The lines as `TextLine`s (seconds), for the writers.
    public func textLines(sampleRate: Int) -> [TextLine] {
        lines.map { TextLine(startSeconds: Double($0.startFrame) / Double(sampleRate), endSeconds: Double($0.endFrame) / Double(sampleRate), text: $0.text) }
    }
}
