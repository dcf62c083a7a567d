/// `text` cut into lines of at most `width` terminal columns (see `displayWidth`).
///
/// - Each "\n" (or CRLF, CR) ends a line; an empty paragraph stays an empty line; "" gives [].
/// - Lines break at spaces (the spaces at a break are dropped, as are a paragraph's leading and
///   trailing spaces; spaces inside a line are kept) and beside wide characters, so Chinese and
///   Japanese with no spaces break between characters (Korean, which has spaces, breaks at them). East Asian line-breaking rules keep closing
///   punctuation (`。、」）!?,.`, small kana, `ー`) off the start of a line and opening brackets
///   (`「（“(`) off its end.
/// - A word wider than `width` is cut between grapheme clusters, never inside one.
/// - No line is wider than `width`, except when `width` is 1 and a character takes 2 columns: it
///   then has a line of its own. A `width` below 1 is taken as 1.
public func wrap(_ text: String, width: Int) -> [String] {
    let width = max(1, width)
    var lines: [String] = []
    for paragraph in SourceText.lines(of: text) {
        lines.append(contentsOf: TextWrap.wrapParagraph(paragraph.text, width: width))
    }
    return lines
}

enum TextWrap {
    /// A piece of a paragraph no line break may enter, and the spaces before it.
    private struct Unit {
        var text = ""
        var columns = 0
        var spacesBefore = ""
    }

    private static let closing: Set<Character> = Set("、。，．・：；？！）〕］｝〉》」』】〙〗〟’”｠»ヽヾーァィゥェォッャュョヮヵヶぁぃぅぇぉっゃゅょゎゕゖㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ々〻‐゠–〜～…‥.,!?;:)]}%")
    private static let opening: Set<Character> = Set("（〔［｛〈《「『【〘〖〝‘“｟«([{")

    /// Korean separates words with spaces: its syllables break like letters of a word.
    private static func isHangul(_ character: Character) -> Bool {
        guard let value = character.unicodeScalars.first?.value else { return false }
        return (0xAC00...0xD7A3).contains(value) || (0x1100...0x11FF).contains(value) || (0x3130...0x318F).contains(value)
    }

    private static func isSpace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\u{3000}"
    }

    static func wrapParagraph(_ paragraph: String, width: Int) -> [String] {
        var units: [Unit] = []
        var pendingSpaces = ""
        var previous: Character?
        for character in paragraph {
            if isSpace(character) {
                pendingSpaces.append(character)
                previous = nil
                continue
            }
            let columns = displayWidth(of: character)
            var breakBefore = units.isEmpty || !pendingSpaces.isEmpty
            if !breakBefore, let previous {
                let besideWide = (columns == 2 && !isHangul(character)) || (displayWidth(of: previous) == 2 && !isHangul(previous))
                breakBefore = besideWide && !closing.contains(character) && !opening.contains(previous)
            }
            if breakBefore {
                units.append(Unit(spacesBefore: pendingSpaces))
                pendingSpaces = ""
            }
            units[units.count - 1].text.append(character)
            units[units.count - 1].columns += columns
            previous = character
        }
        guard !units.isEmpty else { return [""] }

        var lines: [String] = []
        var line = "", lineColumns = 0
        func endLine() {
            if !line.isEmpty { lines.append(line) }
            line = ""
            lineColumns = 0
        }
        for unit in units {
            let spaceColumns = line.isEmpty ? 0 : displayWidth(of: unit.spacesBefore)
            if lineColumns + spaceColumns + unit.columns <= width {
                line += (line.isEmpty ? "" : unit.spacesBefore) + unit.text
                lineColumns += spaceColumns + unit.columns
                continue
            }
            endLine()
            if unit.columns <= width {
                line = unit.text
                lineColumns = unit.columns
                continue
            }
            for character in unit.text {  // a word wider than a line: cut between clusters
                let columns = displayWidth(of: character)
                if lineColumns + columns > width { endLine() }
                line.append(character)
                lineColumns += columns
            }
        }
        endLine()
        return lines
    }
}
