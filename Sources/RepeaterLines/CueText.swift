/// The text of a subtitle cue, from markup to plain text and back.
///
/// Reading, each line: tags go (`<i>`, `</b>`, `<font color="red">`, WebVTT `<c.yellow>`,
/// `<v Speaker>`, `<lang en>`, timestamps `<00:01.500>`; ruby annotations `<rt>…</rt>` go with
/// their content, so `<ruby>漢<rt>かん</rt></ruby>` reads `漢`), ASS overrides `{\an8}` go, then
/// entities are decoded (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&nbsp;` `&lrm;` `&rlm;`, a few
/// typographic ones, and numeric `&#233;` `&#xE9;`); an unknown `&name;` stays as written. A tag
/// is `<`, an optional `/`, a letter or digit, and everything up to the next `>` with no `<` in
/// between: `I <3 you` and `a < b` stay text. Then the line is trimmed; empty lines are dropped and
/// the rest joined with "\n" (the cue's own line breaks, which a terminal wraps anyway).
///
/// Writing escapes exactly what reading would otherwise change, so `plain(escaped(x)) == x` for
/// any normalized text (see `normalized`).
enum CueText {
    /// Lines trimmed, empty ones dropped, joined with "\n": the form readers return and writers keep.
    static func normalized(_ text: String) -> String {
        SourceText.lines(of: text).map(\.text.trimmed).filter { !$0.isEmpty }.joined(separator: "\n")
    }

    static func plain(_ lines: [String]) -> String {
        lines.map { decodeEntities(stripMarkup(Array($0.unicodeScalars))).trimmed }.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    // MARK: Reading

    private static func isTagStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "/")
    }

    /// The tag starting at `index` (a `<`), as its length and its name, or nil if it is text.
    private static func tag(in scalars: [Unicode.Scalar], at index: Int) -> (length: Int, name: String)? {
        guard scalars[index] == "<", index + 1 < scalars.count, isTagStart(scalars[index + 1]) else { return nil }
        var end = index + 1
        while end < scalars.count, scalars[end] != ">" {
            if scalars[end] == "<" { return nil }
            end += 1
        }
        guard end < scalars.count else { return nil }
        var name = String.UnicodeScalarView()
        for scalar in scalars[(index + 1)..<end] {
            if scalar == " " || scalar == "." || scalar == "\t" { break }
            name.append(scalar)
        }
        return (end - index + 1, String(name).lowercased())
    }

    /// `{\…}`: an ASS/SSA override block left in an SRT file by a converter.
    private static func overrideLength(in scalars: [Unicode.Scalar], at index: Int) -> Int? {
        guard scalars[index] == "{", index + 1 < scalars.count, scalars[index + 1] == "\\" else { return nil }
        var end = index + 2
        while end < scalars.count, scalars[end] != "}" {
            if scalars[end] == "{" { return nil }
            end += 1
        }
        return end < scalars.count ? end - index + 1 : nil
    }

    private static func stripMarkup(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var kept: [Unicode.Scalar] = []
        kept.reserveCapacity(scalars.count)
        var index = 0
        var inRubyText = false
        while index < scalars.count {
            if let (length, name) = tag(in: scalars, at: index) {
                if name == "rt" { inRubyText = true } else if name == "/rt" { inRubyText = false }
                index += length
            } else if let length = overrideLength(in: scalars, at: index) {
                index += length
            } else {
                if !inRubyText { kept.append(scalars[index]) }
                index += 1
            }
        }
        return kept
    }

    private static let namedEntities: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "lrm": "\u{200E}", "rlm": "\u{200F}",
        "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
        "laquo": "«", "raquo": "»", "copy": "©", "reg": "®", "trade": "™", "euro": "€", "shy": "\u{AD}",
    ]

    /// The character an entity at `index` (a `&`) stands for, and its length; nil if it is text.
    private static func entity(in scalars: [Unicode.Scalar], at index: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        guard scalars[index] == "&" else { return nil }
        var end = index + 1
        while end < scalars.count, end - index <= 10, scalars[end] != ";" {
            guard scalars[end].isASCII, scalars[end].properties.isAlphabetic || ("0"..."9").contains(scalars[end])
                    || (end == index + 1 && scalars[end] == "#") else { return nil }
            end += 1
        }
        guard end < scalars.count, scalars[end] == ";", end > index + 1 else { return nil }
        let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" { value = UInt32(digits.dropFirst(), radix: 16) } else { value = UInt32(digits) }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, end - index + 1)
        }
        guard let scalar = namedEntities[name] else { return nil }
        return (scalar, end - index + 1)
    }

    private static func decodeEntities(_ scalars: [Unicode.Scalar]) -> String {
        var text = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if let (scalar, length) = entity(in: scalars, at: index) {
                text.append(scalar)
                index += length
            } else {
                text.append(scalars[index])
                index += 1
            }
        }
        return String(text)
    }

    // MARK: Writing

    /// For SRT, whose players show most text as written: only what reading would take for markup
    /// is escaped (`&` before an entity, `<` before a tag, `{\`, and the `>` of `-->`).
    static func escapedForSubRip(_ line: String) -> String {
        let scalars = Array(line.unicodeScalars)
        var text = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case "&" where entity(in: scalars, at: index) != nil: text.append(contentsOf: "&amp;".unicodeScalars)
            case "<" where next.map(isTagStart) == true: text.append(contentsOf: "&lt;".unicodeScalars)
            case "{" where next == "\\": text.append(contentsOf: "&#123;".unicodeScalars)
            case ">" where index >= 2 && scalars[index - 1] == "-" && scalars[index - 2] == "-":
                text.append(contentsOf: "&gt;".unicodeScalars)
            default: text.append(scalar)
            }
        }
        return String(text)
    }

    /// For WebVTT, whose syntax reserves `&`, `<` and `>`: always escaped (and `{\`, which reading strips).
    static func escapedForWebVTT(_ line: String) -> String {
        let scalars = Array(line.unicodeScalars)
        var text = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "&": text.append(contentsOf: "&amp;".unicodeScalars)
            case "<": text.append(contentsOf: "&lt;".unicodeScalars)
            case ">": text.append(contentsOf: "&gt;".unicodeScalars)
            case "{" where index + 1 < scalars.count && scalars[index + 1] == "\\": text.append(contentsOf: "&#123;".unicodeScalars)
            default: text.append(scalar)
            }
        }
        return String(text)
    }
}
