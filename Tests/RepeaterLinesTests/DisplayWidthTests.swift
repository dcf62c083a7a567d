import RepeaterLines
import Testing

@Suite("Display width")
struct DisplayWidthTests {
    @Test("columns per script", arguments: [
        ("hello", 5),
        ("日本語", 6),                 // CJK ideographs: Wide
        ("にほんご", 8),               // hiragana
        ("ｶﾀｶﾅ", 4),                  // halfwidth katakana: Halfwidth, 1 each
        ("ＡＢＣ", 6),                 // fullwidth Latin: Fullwidth
        ("中文，标点。", 12),           // fullwidth punctuation
        ("한국어", 6),                 // precomposed Hangul syllables
        ("\u{1112}\u{1161}\u{11AB}", 2), // 한 spelt in conjoining jamo: one cluster
        ("e\u{301}te\u{301}", 3),      // été decomposed: the combining acute accents take 0
        ("Ǹ\u{323}\u{302}", 1),        // two combining marks on one letter
        ("a\u{200B}b", 2),             // zero-width space
        ("a\u{200D}b", 2),             // a lone zero-width joiner
        ("👍", 2), ("👨‍👩‍👧", 2),        // emoji, a ZWJ family sequence: one cluster of 2
        ("❤️", 2), ("❤", 1),           // text-default heart: 2 with VS16, 1 without
        ("🇫🇷", 2),                    // a flag: two regional indicators
        ("🫨", 2),                     // Unicode 15.0 emoji (shaking face)
        ("°±×", 3),                   // East Asian Ambiguous: 1
        ("\u{1B}[0m", 3),             // ESC counts 0; "[0m" is text
        ("", 0),
    ])
    func widths(text: String, columns: Int) {
        #expect(displayWidth(of: text) == columns, "\(text.debugDescription)")
    }
}
