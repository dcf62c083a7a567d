/// Audacity labels (File ▸ Export ▸ Labels): `start<TAB>end<TAB>text`, decimal seconds.
///
/// Spectral-selection lines (`\<TAB>low<TAB>high`, written under a label) and blank lines are
/// skipped; a line without tabs is split at its first two runs of spaces (hand-edited files);
/// `,` is accepted as the decimal mark. The text is plain (no markup), trimmed; a missing text is
/// "". A point label (end == start, how one marks sentence starts while listening) becomes a line
/// that runs to the next label's start, or the last one to the end of the recording (or, without
/// its duration, stays a point).
enum AudacityLabelsReader {
    static func parse(_ lines: [SourceLine], fileName: String, recordingDurationSeconds: Double?) throws(LinesError) -> [TextLine] {
        var labels: [TextLine] = []
        for line in lines where !line.text.isBlank && !line.text.hasPrefix("\\") {
            var fields = line.text.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            if fields.count < 2 {
                fields = Substring(line.text.trimmed).split(maxSplits: 2, whereSeparator: { $0 == " " })
            }
            func seconds(_ token: Substring?) throws(LinesError) -> Double {
                let token = Substring((token ?? "").trimmed)
                guard let value = ClockTime.decimalSeconds(token) else {
                    let problem = token.isEmpty ? "expected 'start<TAB>end<TAB>text' with times in seconds, found \(quoted(line.text))"
                                                : "\(quoted(token)) is not a time in seconds"
                    throw LinesError(fileName: fileName, lineNumber: line.number, problem: problem)
                }
                return value
            }
            let start = try seconds(fields.first), end = try seconds(fields.count > 1 ? fields[1] : nil)
            guard end >= start else {
                throw LinesError(fileName: fileName, lineNumber: line.number,
                                 problem: "the label ends (\(fields[1].trimmed)) before it starts (\(fields[0].trimmed)): swap or correct the times")
            }
            labels.append(TextLine(startSeconds: start, endSeconds: end, text: fields.count > 2 ? fields[2].trimmed : ""))
        }
        var sorted = labels.sortedByStart()
        var nextStart: Double? = nil  // the next greater start, walking backwards
        for position in sorted.indices.reversed() {
            let label = sorted[position]
            if position + 1 < sorted.count, sorted[position + 1].startSeconds > label.startSeconds {
                nextStart = sorted[position + 1].startSeconds
            }
            guard label.endSeconds == label.startSeconds else { continue }
            if let nextStart {
                sorted[position].endSeconds = nextStart
            } else if let recordingDurationSeconds, recordingDurationSeconds > label.startSeconds {
                sorted[position].endSeconds = recordingDurationSeconds
            }
        }
        return sorted
    }
}
