import RepeaterLines
import Testing

/// Reads `text` (UTF-8) as the format `fileName`'s extension names.
func read(_ text: String, _ fileName: String, durationSeconds: Double? = nil) throws(LinesError) -> [TextLine] {
    try read(Array(text.utf8), fileName, durationSeconds: durationSeconds).lines
}

func read(_ bytes: [UInt8], _ fileName: String, durationSeconds: Double? = nil) throws(LinesError) -> LineFile {
    try LineFileReader.parse(bytes, fileName: fileName, format: LineFormat(path: fileName)!, recordingDurationSeconds: durationSeconds)
}

/// The message reading `text` fails with, or nil when it reads.
func errorMessage(_ text: String, _ fileName: String, durationSeconds: Double? = nil) -> String? {
    do {
        _ = try read(text, fileName, durationSeconds: durationSeconds)
        return nil
    } catch {
        return error.message
    }
}

func line(_ start: Double, _ end: Double, _ text: String) -> TextLine {
    TextLine(startSeconds: start, endSeconds: end, text: text)
}

/// Times equal to the microsecond (parsing decimal fractions goes through Double).
func expectSame(_ actual: [TextLine], _ expected: [TextLine], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.count == expected.count, "\(actual.count) lines, expected \(expected.count): \(actual)", sourceLocation: sourceLocation)
    for (got, want) in zip(actual, expected) {
        #expect(abs(got.startSeconds - want.startSeconds) < 1e-6 && abs(got.endSeconds - want.endSeconds) < 1e-6 && got.text == want.text,
                "got \(got), expected \(want)", sourceLocation: sourceLocation)
    }
}
