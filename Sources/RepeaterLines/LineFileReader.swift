import Foundation

/// What a line file holds, and how it was read.
public struct LineFile: Sendable, Equatable {
    /// Sorted by start; lines that start together keep file order. Overlapping cues are kept as
    /// written (two speakers, or a cue shown over another): a reader never moves a time the
    /// author wrote, and each line can still be looped on its own.
    public var lines: [TextLine]
    public var encoding: TextEncoding
    /// What the user should know about how the file was read, one line each, e.g.
    /// `'old.srt' is not UTF-8: read as Windows-1252 (Western European)`.
    public var notes: [String]

    public init(lines: [TextLine], encoding: TextEncoding, notes: [String]) {
        self.lines = lines
        self.encoding = encoding
        self.notes = notes
    }
}

/// Reads subtitle, lyrics and label files into lines. Never traps on any input: every problem
/// is a `LinesError` naming the file and, where there is one, the line.
public enum LineFileReader {
    /// Reads the file at `path`, its format chosen by extension (see `LineFormat`).
    /// `recordingDurationSeconds` ends the last line of an LRC file and a last point label;
    /// without it they end where they start.
    public static func read(path: String, recordingDurationSeconds: Double? = nil) throws(LinesError) -> LineFile {
        guard let format = LineFormat(path: path) else {
            throw LinesError(fileName: path, lineNumber: nil,
                             problem: "is not a file of lines that repeater reads: use \(LineFormat.extensionList)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw LinesError(fileName: path, lineNumber: nil, problem: "does not exist: check the path")
        }
        guard !isDirectory.boolValue else {
            throw LinesError(fileName: path, lineNumber: nil, problem: "is a directory, not a file of lines")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LinesError(fileName: path, lineNumber: nil, problem: "cannot be read: check its permissions")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw LinesError(fileName: path, lineNumber: nil, problem: "cannot be read: \(error.localizedDescription)")
        }
        return try parse(Array(data), fileName: path, format: format, recordingDurationSeconds: recordingDurationSeconds)
    }

    /// Reads bytes already in memory; `fileName` is only for messages.
    public static func parse(_ bytes: [UInt8], fileName: String, format: LineFormat,
                             recordingDurationSeconds: Double? = nil) throws(LinesError) -> LineFile {
        let decoded = TextDecoding.decode(bytes)
        var notes: [String] = []
        switch (decoded.encoding, decoded.hadByteOrderMark) {
        case (.windows1252, _):
            notes.append("'\(fileName)' is not UTF-8: read as Windows-1252 (Western European); if letters look wrong, save it as UTF-8")
        case (.utf16LittleEndian, false), (.utf16BigEndian, false):
            notes.append("'\(fileName)' has no byte order mark: read as \(decoded.encoding.rawValue) from its zero bytes")
        default:
            break
        }
        let lines = SourceText.lines(of: decoded.text)
        var format = format
        if format == .subRip, let first = lines.first, WebVTTReader.isSignature(first.text) {
            notes.append("'\(fileName)' starts with 'WEBVTT': read as WebVTT")
            format = .webVTT
        }
        let duration = recordingDurationSeconds.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let parsed: [TextLine]
        switch format {
        case .subRip: parsed = try SubRipReader.parse(lines, fileName: fileName)
        case .webVTT: parsed = try WebVTTReader.parse(lines, fileName: fileName)
        case .lyrics: parsed = try LRCReader.parse(lines, fileName: fileName, recordingDurationSeconds: duration)
        case .audacityLabels: parsed = try AudacityLabelsReader.parse(lines, fileName: fileName, recordingDurationSeconds: duration)
        case .json: parsed = try JSONLinesReader.parse(decoded.text, fileName: fileName)
        }
        return LineFile(lines: parsed.sortedByStart(), encoding: decoded.encoding, notes: notes)
    }
}
