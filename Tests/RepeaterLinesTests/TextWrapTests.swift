import RepeaterLines
import Testing

@Suite("Wrap")
struct TextWrapTests {
    /// Every line fits and, with the breaks' spaces put back, the lines give the text again.
    func check(_ text: String, width: Int, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = wrap(text, width: width)
        #expect(lines == expected, sourceLocation: sourceLocation)
        for line in lines {
            #expect(displayWidth(of: line) <= width, "\(line.debugDescription) is wider than \(width)", sourceLocation: sourceLocation)
        }
    }

    @Test("Latin text breaks at spaces, inner spaces kept, break spaces dropped")
    func latin() {
        check("The quick brown fox jumps over the lazy dog", width: 10, ["The quick", "brown fox", "jumps over", "the lazy", "dog"])
        check("  leading and  double  spaces ", width: 14, ["leading and", "double  spaces"])
        check("short", width: 80, ["short"])
        check("", width: 10, [])
        check("one\n\ntwo", width: 10, ["one", "", "two"])
    }

    @Test("accented Latin with combining marks is measured by what shows")
    func combining() {
        let word = "e\u{301}le\u{300}ve"  // élève, decomposed: 7 scalars, 5 columns
        check("\(word) \(word) \(word)", width: 11, ["\(word) \(word)", word])
    }

    @Test("Japanese and Chinese break between characters, never before closing punctuation")
    func cjk() {
        // 。 stays with す: it may not start a line.
        check("日本語の字幕を読みます。", width: 10, ["日本語の字", "幕を読みま", "す。"])
        check("我每天早上七点起床，然后去公园。", width: 8, ["我每天早", "上七点起", "床，然后", "去公园。"])
        check("「こんにちは」と言った。", width: 6, ["「こん", "にち", "は」と", "言っ", "た。"])
    }

    @Test("Korean breaks at its spaces, not between syllables")
    func korean() {
        check("안녕하세요 만나서 반갑습니다", width: 12, ["안녕하세요", "만나서", "반갑습니다"])
    }

    @Test("emoji are 2 columns and never split")
    func emoji() {
        check("I ❤️ 👨‍👩‍👧 very much", width: 6, ["I ❤️", "👨‍👩‍👧", "very", "much"])
    }

    @Test("a word longer than the line is cut between grapheme clusters")
    func longWord() {
        check("Donaudampfschiffahrtsgesellschaftskapitän ok", width: 12,
              ["Donaudampfsc", "hiffahrtsges", "ellschaftska", "pitän ok"])
        let decomposed = String(repeating: "e\u{301}", count: 7)  // 7 clusters of 2 scalars
        let lines = wrap(decomposed, width: 3)
        #expect(lines == [String(repeating: "e\u{301}", count: 3), String(repeating: "e\u{301}", count: 3), "e\u{301}"])
    }

    @Test("a width too narrow for a wide character gives it a line of its own")
    func tooNarrow() {
        #expect(wrap("日本", width: 1) == ["日", "本"])
        #expect(wrap("ab", width: 0) == ["a", "b"])
    }
}
