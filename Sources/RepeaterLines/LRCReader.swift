/// LRC lyrics: `[mm:ss.xx]text`, several time tags on one line (`[00:12.00][01:40.50]chorus`),
/// metadata tags (`[ar:…]`, `[ti:…]`, `[length:…]`; ignored) and `[offset:±ms]`, which is applied:
/// a positive offset makes every line come sooner (time − offset), as the LRC convention says.
///
/// A line ends where the next line starts; the last one at the end of the recording (its
/// duration, given to the reader), or, without it, where it starts. A time tag with no text ends
/// the line before it and makes no line (how LRC marks an instrumental gap). Lines with the same
/// time are one line, their texts joined with "\n" (bilingual LRC puts a translation there).
/// Enhanced LRC word times `<mm:ss.xx>` are removed from the text. Lines without a leading tag are
/// ignored. A time is an error only when it is malformed (`[00:75.00]`); times shifted below 0 by
/// the offset become 0.
enum LRCReader {
    private struct Entry {
        var seconds: Double
        var text: String
    }

    static func parse(_ lines: [SourceLine], fileName: String, recordingDurationSeconds: Double?) throws(LinesError) -> [TextLine] {
        var entries: [Entry] = []
        var offsetSeconds = 0.0
        for line in lines {
            var rest = Substring(line.text.trimmed)
            var times: [Double] = []
            while rest.first == "[", let close = rest.firstIndex(of: "]") {
                let content = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
                if let first = content.unicodeScalars.first, ("0"..."9").contains(first) {
                    switch ClockTime.seconds(Substring(content.trimmed), style: .lyrics) {
                    case .success(let seconds): times.append(seconds)
                    case .failure(let problem): throw LinesError(fileName: fileName, lineNumber: line.number, problem: problem.text)
                    }
                } else if let colon = content.firstIndex(of: ":"), content[..<colon].trimmed.lowercased() == "offset" {
                    let value = content[content.index(after: colon)...].trimmed
                    let digits = value.hasPrefix("+") || value.hasPrefix("-") ? value.dropFirst() : Substring(value)
                    guard digits.isAllASCIIDigits, digits.count <= 9, let milliseconds = Int(digits) else {
                        throw LinesError(fileName: fileName, lineNumber: line.number,
                                         problem: "\(quoted("[" + content + "]")) is not an offset: expected milliseconds such as [offset:+250]")
                    }
                    offsetSeconds = Double(value.hasPrefix("-") ? -milliseconds : milliseconds) / 1000
                }
            }
            let text = stripWordTimes(String(rest)).trimmed
            entries.append(contentsOf: times.map { Entry(seconds: $0, text: text) })
        }
        let shifted = entries.enumerated()
            .map { (order: $0.offset, entry: Entry(seconds: max(0, $0.element.seconds - offsetSeconds), text: $0.element.text)) }
            .sorted { $0.entry.seconds != $1.entry.seconds ? $0.entry.seconds < $1.entry.seconds : $0.order < $1.order }
            .map(\.entry)
        var result: [TextLine] = []
        var index = 0
        while index < shifted.count {
            let start = shifted[index].seconds
            var texts: [String] = []
            while index < shifted.count, shifted[index].seconds == start {
                if !shifted[index].text.isEmpty { texts.append(shifted[index].text) }
                index += 1
            }
            guard !texts.isEmpty else { continue }
            let end = index < shifted.count ? shifted[index].seconds : max(start, recordingDurationSeconds ?? start)
            result.append(TextLine(startSeconds: start, endSeconds: end, text: texts.joined(separator: "\n")))
        }
        return result
    }

    /// Without `<mm:ss.xx>` word times (enhanced LRC).
    private static func stripWordTimes(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            var close = index + 1
            while close < scalars.count, ("0"..."9").contains(scalars[close]) || scalars[close] == ":" || scalars[close] == "." {
                close += 1
            }
            if scalars[index] == "<", close > index + 1, close < scalars.count, scalars[close] == ">" {
                index = close + 1
            } else {
                kept.append(scalars[index])
                index += 1
            }
        }
        return String(kept)
    }
}
