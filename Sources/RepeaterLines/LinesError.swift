/// A problem with a subtitle, lyrics or label file, shown to the user as one line:
/// `'talk.srt' line 14: '00:00:99,000' is not a time (seconds must be below 60)`.
public struct LinesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file as the user named it (its path, or the name given to `LineFileReader.parse`).
    public var fileName: String
    /// 1-based line of the decoded text (lone CR, LF and CRLF each end one line); nil when the
    /// problem is the file as a whole (missing, unreadable, unknown extension).
    public var lineNumber: Int?
    /// What is wrong, and where it helps, what to do.
    public var problem: String

    public init(fileName: String, lineNumber: Int?, problem: String) {
        self.fileName = fileName
        self.lineNumber = lineNumber
        self.problem = problem
    }

    /// The one line the user sees.
    public var message: String {
        if let lineNumber { return "'\(fileName)' line \(lineNumber): \(problem)" }
        return "'\(fileName)' \(problem)"
    }

    public var description: String { message }
}

/// Quotes a piece of a file in an error message: one line, at most 40 characters, control
/// characters shown as `?`, so a binary file cannot flood or garble the terminal.
func quoted<S: StringProtocol>(_ text: S) -> String {
    var shown = String.UnicodeScalarView()
    var count = 0
    for scalar in text.unicodeScalars {
        if count == 40 { shown.append("…"); break }
        shown.append(scalar.properties.generalCategory == .control ? "?" : scalar)
        count += 1
    }
    return "'" + String(shown) + "'"
}
