/// A file's decoded text cut into numbered lines: the numbers error messages cite.
struct SourceLine: Equatable {
    /// 1-based.
    var number: Int
    var text: String
}

enum SourceText {
    /// Splits at LF, CRLF and lone CR (old Mac files), each ending one line. A missing final line
    /// end is fine; a final line end does not make an extra empty line.
    static func lines(of text: String) -> [SourceLine] {
        var result: [SourceLine] = []
        let scalars = text.unicodeScalars
        var lineStart = scalars.startIndex
        var index = lineStart
        while index < scalars.endIndex {
            let scalar = scalars[index]
            guard scalar == "\n" || scalar == "\r" else {
                index = scalars.index(after: index)
                continue
            }
            result.append(SourceLine(number: result.count + 1, text: String(scalars[lineStart..<index])))
            index = scalars.index(after: index)
            if scalar == "\r", index < scalars.endIndex, scalars[index] == "\n" { index = scalars.index(after: index) }
            lineStart = index
        }
        if lineStart < scalars.endIndex {
            result.append(SourceLine(number: result.count + 1, text: String(scalars[lineStart...])))
        }
        return result
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and other Unicode white space (including U+FEFF,
    /// a byte order mark pasted into the middle of a file).
    var trimmed: String {
        let scalars = unicodeScalars
        func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace || scalar == "\u{FEFF}" }
        guard let first = scalars.firstIndex(where: { !isBlank($0) }),
              let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }

    var isBlank: Bool { trimmed.isEmpty }

    var isAllASCIIDigits: Bool { !isEmpty && utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
}
