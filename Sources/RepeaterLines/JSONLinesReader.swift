/// The JSON the writer makes, read back after a learner corrected it:
/// `[{"index":1,"start_s":1.250,"end_s":3.000,"text":"…"}, …]`.
///
/// `start_s` and `end_s` are required (numbers of seconds, ≥ 0, end ≥ start); `text` defaults to "";
/// `index` and unknown keys are ignored (the order comes from the times). A small parser of its
/// own, so that an error names the line it is on (nesting deeper than 32 levels is refused, so
/// hostile input cannot exhaust the stack).
struct JSONLinesReader {
    private let scalars: [Unicode.Scalar]
    private let fileName: String
    private var position = 0
    private var lineNumber = 1

    private init(text: String, fileName: String) {
        scalars = Array(text.unicodeScalars)
        self.fileName = fileName
    }

    static func parse(_ text: String, fileName: String) throws(LinesError) -> [TextLine] {
        var reader = JSONLinesReader(text: text, fileName: fileName)
        return try reader.document()
    }

    private func fail(_ problem: String) -> LinesError {
        LinesError(fileName: fileName, lineNumber: lineNumber, problem: problem)
    }

    private var found: String {
        guard position < scalars.count else { return "the end of the file" }
        let lineEnd = scalars[position...].firstIndex { $0 == "\n" || $0 == "\r" } ?? scalars.count
        return quoted(String(String.UnicodeScalarView(scalars[position..<min(lineEnd, position + 41)])))
    }

    private mutating func skipWhitespace() {
        while position < scalars.count {
            switch scalars[position] {
            case "\n": lineNumber += 1
            case "\r": if position + 1 >= scalars.count || scalars[position + 1] != "\n" { lineNumber += 1 }
            case " ", "\t", "\u{FEFF}": break
            default: return
            }
            position += 1
        }
    }

    private mutating func expect(_ scalar: Unicode.Scalar, _ what: String) throws(LinesError) {
        skipWhitespace()
        guard position < scalars.count, scalars[position] == scalar else { throw fail("expected \(what), found \(found)") }
        position += 1
    }

    private mutating func peek() -> Unicode.Scalar? {
        skipWhitespace()
        return position < scalars.count ? scalars[position] : nil
    }

    private mutating func document() throws(LinesError) -> [TextLine] {
        try expect("[", "'[' (a JSON list of lines such as [{\"start_s\":1.0,\"end_s\":2.5,\"text\":\"…\"}])")
        var lines: [TextLine] = []
        if peek() == "]" {
            position += 1
        } else {
            while true {
                lines.append(try line())
                guard let next = peek(), next == "," || next == "]" else { throw fail("expected ',' or ']' after a line, found \(found)") }
                position += 1
                if next == "]" { break }
            }
        }
        guard peek() == nil else { throw fail("expected the end of the file after ']', found \(found)") }
        return lines.sortedByStart()
    }

    private mutating func line() throws(LinesError) -> TextLine {
        try expect("{", "'{' (a line such as {\"start_s\":1.0,\"end_s\":2.5,\"text\":\"…\"})")
        let firstLine = lineNumber
        var start: Double?, end: Double?, text = ""
        if peek() == "}" {
            position += 1
        } else {
            while true {
                guard peek() == "\"" else { throw fail("expected a key in double quotes, found \(found)") }
                let key = try string()
                try expect(":", "':' after \(quoted(key))")
                switch key {
                case "start_s", "end_s":
                    guard let seconds = try number(), seconds >= 0 else {
                        throw fail("'\(key)' must be a number of seconds, 0 or more, found \(found)")
                    }
                    if key == "start_s" { start = seconds } else { end = seconds }
                case "text":
                    guard peek() == "\"" else { throw fail("'text' must be a string in double quotes, found \(found)") }
                    text = try string()
                default:
                    try skipValue(depth: 0)
                }
                guard let next = peek(), next == "," || next == "}" else { throw fail("expected ',' or '}' in a line, found \(found)") }
                position += 1
                if next == "}" { break }
            }
        }
        guard let start, let end else {
            throw LinesError(fileName: fileName, lineNumber: firstLine, problem: "a line needs both 'start_s' and 'end_s'")
        }
        guard end >= start else {
            throw LinesError(fileName: fileName, lineNumber: firstLine,
                             problem: "the line ends (\(ClockTime.decimal(end, decimals: 3))) before it starts (\(ClockTime.decimal(start, decimals: 3))): swap or correct the times")
        }
        return TextLine(startSeconds: start, endSeconds: end, text: text)
    }

    /// A JSON string, the opening quote at `position`.
    private mutating func string() throws(LinesError) -> String {
        position += 1
        var text = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            switch scalar {
            case "\"": return String(text)
            case "\\":
                guard position < scalars.count else { break }
                let escape = scalars[position]
                position += 1
                switch escape {
                case "\"", "\\", "/": text.append(escape)
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "b": text.append("\u{8}")
                case "f": text.append("\u{C}")
                case "u":
                    guard let unit = hex4() else { throw fail("'\\u' must be followed by 4 hex digits") }
                    if (0xD800..<0xDC00).contains(unit), position + 1 < scalars.count, scalars[position] == "\\", scalars[position + 1] == "u" {
                        position += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { throw fail("a lone UTF-16 surrogate in '\\u' escapes") }
                        text.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else {
                        text.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                    }
                default: throw fail("\(quoted("\\" + String(escape))) is not a JSON escape")
                }
            case "\n", "\r": throw fail("a string runs past the end of its line: a '\"' is missing")
            default: text.append(scalar)
            }
        }
        throw fail("a string runs to the end of the file: a '\"' is missing")
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= scalars.count else { return nil }
        var value: UInt32 = 0
        for scalar in scalars[position..<(position + 4)] {
            guard let digit = UInt32(String(scalar), radix: 16) else { return nil }
            value = value << 4 | digit
        }
        position += 4
        return value
    }

    /// A JSON number, or nil (position unchanged) if none starts here.
    private mutating func number() throws(LinesError) -> Double? {
        skipWhitespace()
        let start = position
        func digits() -> Int {
            let from = position
            while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
            return position - from
        }
        if position < scalars.count, scalars[position] == "-" { position += 1 }
        guard digits() > 0 else { position = start; return nil }
        if position < scalars.count, scalars[position] == "." {
            position += 1
            guard digits() > 0 else { position = start; return nil }
        }
        if position < scalars.count, scalars[position] == "e" || scalars[position] == "E" {
            position += 1
            if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" { position += 1 }
            guard digits() > 0 else { position = start; return nil }
        }
        guard position - start <= 40, let value = Double(String(String.UnicodeScalarView(scalars[start..<position]))), value.isFinite else {
            position = start
            return nil
        }
        return value
    }

    private mutating func skipValue(depth: Int) throws(LinesError) {
        guard depth < 32 else { throw fail("JSON nested deeper than 32 levels") }
        guard let first = peek() else { throw fail("expected a value, found the end of the file") }
        switch first {
        case "\"": _ = try string()
        case "[", "{":
            let close: Unicode.Scalar = first == "[" ? "]" : "}"
            position += 1
            if peek() == close { position += 1; return }
            while true {
                if first == "{" {
                    guard peek() == "\"" else { throw fail("expected a key in double quotes, found \(found)") }
                    _ = try string()
                    try expect(":", "':'")
                }
                try skipValue(depth: depth + 1)
                guard let next = peek(), next == "," || next == close else { throw fail("expected ',' or '\(close)', found \(found)") }
                position += 1
                if next == close { return }
            }
        default:
            if try number() != nil { return }
            for word in ["true", "false", "null"] where scalars[position...].starts(with: word.unicodeScalars) {
                position += word.unicodeScalars.count
                return
            }
            throw fail("expected a JSON value, found \(found)")
        }
    }
}
