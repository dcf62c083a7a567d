/// WebVTT: a `WEBVTT` first line, then blocks separated by blank lines: cues (an optional
/// identifier line, `[HH:]MM:SS.mmm --> [HH:]MM:SS.mmm [settings]`, text lines) and `NOTE`,
/// `STYLE` and `REGION` blocks, which are skipped. Cue settings (`align:start position:10%`) are
/// ignored; `,` is accepted for `.`. A block with no time line in its first two lines is skipped,
/// as the WebVTT parsing rules do. A missing `WEBVTT` line is an error: without it the file is
/// probably not WebVTT at all.
enum WebVTTReader {
    static let expected = "HH:MM:SS.mmm or MM:SS.mmm"

    static func parse(_ lines: [SourceLine], fileName: String) throws(LinesError) -> [TextLine] {
        guard let first = lines.first, isSignature(first.text) else {
            let found = lines.first.map { "found \(quoted($0.text))" } ?? "the file is empty"
            throw LinesError(fileName: fileName, lineNumber: 1,
                             problem: "a WebVTT file starts with the line 'WEBVTT': \(found)")
        }
        var cues: [TextLine] = []
        var index = 1
        // The header (metadata such as `Kind: captions`) runs to the first blank line.
        while index < lines.count, !lines[index].text.isBlank { index += 1 }
        while index < lines.count {
            while index < lines.count, lines[index].text.isBlank { index += 1 }
            let blockStart = index
            while index < lines.count, !lines[index].text.isBlank { index += 1 }
            let block = lines[blockStart..<index]
            guard let firstLine = block.first, !isSkippedBlock(firstLine.text) else { continue }
            guard let timeLine = block.prefix(2).first(where: { $0.text.contains("-->") }) else { continue }
            let (start, end) = try SubRipReader.times(timeLine, fileName: fileName, style: .subtitle(expected: expected))
            let textLines = block.drop(while: { $0.number <= timeLine.number }).map(\.text)
            cues.append(TextLine(startSeconds: start, endSeconds: end, text: CueText.plain(textLines)))
        }
        return cues
    }

    /// `WEBVTT`, alone or followed by a space or tab and anything.
    static func isSignature(_ line: String) -> Bool {
        guard line.hasPrefix("WEBVTT") else { return false }
        let rest = line.dropFirst(6)
        return rest.isEmpty || rest.first == " " || rest.first == "\t"
    }

    private static func isSkippedBlock(_ line: String) -> Bool {
        for keyword in ["NOTE", "STYLE", "REGION"] where line.hasPrefix(keyword) {
            let rest = line.dropFirst(keyword.count)
            if rest.isEmpty || rest.first == " " || rest.first == "\t" { return !line.contains("-->") }
        }
        return false
    }
}
