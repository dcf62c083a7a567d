/// Writes lines so a learner can correct them in an editor and read them back: UTF-8 without a
/// byte order mark, LF line ends, times rounded to the millisecond (Audacity labels: to the
/// microsecond, as Audacity writes them; LRC: to the centisecond, see `lyrics`). Reading what it wrote gives the same lines to the
/// millisecond, their text as `CueText.normalized` makes it (each text line trimmed, empty ones
/// dropped; in Audacity labels, which hold one line, line breaks and tabs become spaces).
/// A negative or non-finite time is written as 0, and an end before its start as the start.
public enum LineFileWriter {
    public static func text(of lines: [TextLine], format: LineFormat) -> String {
        switch format {
        case .subRip: return subRip(lines)
        case .lyrics: return lyrics(lines)
        case .webVTT: return webVTT(lines)
        case .audacityLabels: return audacityLabels(lines)
        case .json: return json(lines)
        }
    }

    private static func endSeconds(_ line: TextLine) -> Double {
        ClockTime.milliseconds(line.endSeconds) < ClockTime.milliseconds(line.startSeconds) ? line.startSeconds : line.endSeconds
    }

    private static func subRip(_ lines: [TextLine]) -> String {
        var text = ""
        for (index, line) in lines.enumerated() {
            text += "\(index + 1)\n"
            text += ClockTime.clock(line.startSeconds, decimalMark: ",") + " --> " + ClockTime.clock(endSeconds(line), decimalMark: ",") + "\n"
            for textLine in SourceText.lines(of: CueText.normalized(line.text)) { text += CueText.escapedForSubRip(textLine.text) + "\n" }
            text += "\n"
        }
        return text
    }

    /// LRC as players expect it: `[mm:ss.xx]` (centiseconds), one tag line per text line (the
    /// reader joins lines of one time again), and an empty tag where a line ends before the next
    /// starts. What LRC cannot hold is lost: times finer than 10 ms, overlaps (a line ends at the
    /// next start at the latest), an empty text, and text that starts with `[` or holds `<mm:ss.xx>`.
    private static func lyrics(_ lines: [TextLine]) -> String {
        func centiseconds(_ seconds: Double) -> Int { (ClockTime.milliseconds(seconds) + 5) / 10 }
        func tag(_ seconds: Double) -> String {
            let centiseconds = centiseconds(seconds)
            return "[" + ClockTime.padded(centiseconds / 6000, 2) + ":" + ClockTime.padded(centiseconds / 100 % 60, 2) + "."
                + ClockTime.padded(centiseconds % 100, 2) + "]"
        }
        let sorted = lines.sortedByStart()
        var text = ""
        for (index, line) in sorted.enumerated() {
            for textLine in SourceText.lines(of: CueText.normalized(line.text)) { text += tag(line.startSeconds) + textLine.text + "\n" }
            if index + 1 == sorted.count || centiseconds(sorted[index + 1].startSeconds) > centiseconds(endSeconds(line)) {
                text += tag(endSeconds(line)) + "\n"
            }
        }
        return text
    }

    private static func webVTT(_ lines: [TextLine]) -> String {
        var text = "WEBVTT\n\n"
        for (index, line) in lines.enumerated() {
            text += "\(index + 1)\n"
            text += ClockTime.clock(line.startSeconds, decimalMark: ".") + " --> " + ClockTime.clock(endSeconds(line), decimalMark: ".") + "\n"
            for textLine in SourceText.lines(of: CueText.normalized(line.text)) { text += CueText.escapedForWebVTT(textLine.text) + "\n" }
            text += "\n"
        }
        return text
    }

    private static func audacityLabels(_ lines: [TextLine]) -> String {
        var text = ""
        for line in lines {
            let oneLine = CueText.normalized(line.text).map { $0 == "\n" || $0 == "\t" ? " " : $0 }
            text += ClockTime.decimal(line.startSeconds, decimals: 6) + "\t" + ClockTime.decimal(endSeconds(line), decimals: 6)
                + "\t" + String(oneLine) + "\n"
        }
        return text
    }

    private static func json(_ lines: [TextLine]) -> String {
        guard !lines.isEmpty else { return "[]\n" }
        let objects = lines.enumerated().map { index, line in
            "{\"index\":\(index + 1),\"start_s\":\(ClockTime.decimal(line.startSeconds, decimals: 3)),"
                + "\"end_s\":\(ClockTime.decimal(endSeconds(line), decimals: 3)),\"text\":\(jsonString(CueText.normalized(line.text)))}"
        }
        return "[\n  " + objects.joined(separator: ",\n  ") + "\n]\n"
    }

    private static func jsonString(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case _ where scalar.value < 0x20:
                quoted += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
