/// SRT: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, text, a blank line.
///
/// Cues are found by their time lines (any line containing `-->`), not by blank lines: a cue's
/// text is everything up to the next time line, less the next cue's number just before it and
/// the blank lines around. So missing or extra blank lines, a missing last line end and missing
/// cue numbers all read; a blank line inside a cue's text is dropped. `.` is accepted for `,`,
/// and hours may be left out (`01:02,500`). Anything after the end time (old SRT's
/// `X1:… Y1:…` position) is ignored. Text before the first cue other than a cue number is an error.
enum SubRipReader {
    static let expected = "HH:MM:SS,mmm"

    static func parse(_ lines: [SourceLine], fileName: String) throws(LinesError) -> [TextLine] {
        let timeLineIndices = lines.indices.filter { lines[$0].text.contains("-->") }
        if let firstText = lines.prefix(timeLineIndices.first ?? lines.count).first(where: { !$0.text.isBlank }),
           !(firstText.text.trimmed.isAllASCIIDigits && timeLineIndices.first == firstText.number) {
            // The only thing allowed before the first time line is its cue number, right before it
            // (the line numbered n is at index n - 1, just before the time line at index n).
            throw LinesError(fileName: fileName, lineNumber: firstText.number,
                             problem: "\(quoted(firstText.text.trimmed)) is not a cue: expected a cue number or a time line such as '00:00:01,000 --> 00:00:04,000'")
        }
        var cues: [TextLine] = []
        for (position, timeIndex) in timeLineIndices.enumerated() {
            let (start, end) = try times(lines[timeIndex], fileName: fileName)
            var textEnd = position + 1 < timeLineIndices.count ? timeLineIndices[position + 1] : lines.count
            if textEnd < lines.count, textEnd - 1 > timeIndex, lines[textEnd - 1].text.trimmed.isAllASCIIDigits {
                textEnd -= 1  // the next cue's number
            }
            let text = CueText.plain(lines[(timeIndex + 1)..<textEnd].map(\.text))
            cues.append(TextLine(startSeconds: start, endSeconds: end, text: text))
        }
        return cues
    }

    /// The start and end of a time line, or an error naming the line.
    static func times(_ line: SourceLine, fileName: String, style: ClockTime.Style = .subtitle(expected: expected),
                      cueKind: String = "cue") throws(LinesError) -> (Double, Double) {
        let text = Substring(line.text)
        let arrow = text.firstRange(of: "-->")!
        let startToken = Substring(text[..<arrow.lowerBound].trimmed)
        let endToken = text[arrow.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? ""
        func seconds(_ token: Substring) throws(LinesError) -> Double {
            switch ClockTime.seconds(token, style: style) {
            case .success(let value): return value
            case .failure(let problem): throw LinesError(fileName: fileName, lineNumber: line.number, problem: problem.text)
            }
        }
        let start = try seconds(startToken), end = try seconds(endToken)
        guard end >= start else {
            throw LinesError(fileName: fileName, lineNumber: line.number,
                             problem: "the \(cueKind) ends (\(endToken.trimmed)) before it starts (\(startToken)): swap or correct the times")
        }
        return (start, end)
    }
}
