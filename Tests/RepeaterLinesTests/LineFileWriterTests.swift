import RepeaterLines
import Testing

@Suite("Writers")
struct LineFileWriterTests {
    static let lines = [
        line(1.25, 3.5, "Bonjour & <bienvenue>\nà tous"),
        line(3661.0005, 3662.9994, "{\\an8} --> arrows & &amp; literally"),
    ]

    @Test("SRT: numbered cues, comma times, only markup-like text escaped")
    func subRip() {
        #expect(LineFileWriter.text(of: Self.lines, format: .subRip) == """
        1
        00:00:01,250 --> 00:00:03,500
        Bonjour & &lt;bienvenue>
        à tous

        2
        01:01:01,001 --> 01:01:02,999
        &#123;\\an8} --&gt; arrows & &amp;amp; literally


        """)
    }

    @Test("WebVTT: header, identifiers, dot times, &, < and > escaped")
    func webVTT() {
        #expect(LineFileWriter.text(of: Self.lines, format: .webVTT) == """
        WEBVTT

        1
        00:00:01.250 --> 00:00:03.500
        Bonjour &amp; &lt;bienvenue&gt;
        à tous

        2
        01:01:01.001 --> 01:01:02.999
        &#123;\\an8} --&gt; arrows &amp; &amp;amp; literally


        """)
    }

    @Test("Audacity labels: six decimals like Audacity, one line of text")
    func labels() {
        #expect(LineFileWriter.text(of: Self.lines, format: .audacityLabels) == """
        1.250000\t3.500000\tBonjour & <bienvenue> à tous
        3661.000500\t3662.999400\t{\\an8} --> arrows & &amp; literally

        """)
    }

    @Test("JSON: one line per object, three decimals, escapes")
    func json() {
        #expect(LineFileWriter.text(of: Self.lines, format: .json) == """
        [
          {"index":1,"start_s":1.250,"end_s":3.500,"text":"Bonjour & <bienvenue>\\nà tous"},
          {"index":2,"start_s":3661.001,"end_s":3662.999,"text":"{\\\\an8} --> arrows & &amp; literally"}
        ]

        """)
        #expect(LineFileWriter.text(of: [], format: .json) == "[]\n")
    }

    @Test("LRC: centisecond tags, a line per text line, an empty tag where a line ends early; reads back within 5 ms")
    func lyrics() throws {
        let lines = [line(1.254, 3.5, "Au clair de la lune,\nmon ami Pierrot"), line(3.5, 4.0, "Prête-moi"), line(65.001, 70, "ta plume")]
        let written = LineFileWriter.text(of: lines, format: .lyrics)
        #expect(written == "[00:01.25]Au clair de la lune,\n[00:01.25]mon ami Pierrot\n[00:03.50]Prête-moi\n[00:04.00]\n[01:05.00]ta plume\n[01:10.00]\n")
        let back = try read(written, "back.lrc", durationSeconds: 80)
        #expect(back.count == 3 && zip(back, lines).allSatisfy {
            $0.text == $1.text && abs($0.startSeconds - $1.startSeconds) <= 0.005 && abs($0.endSeconds - $1.endSeconds) <= 0.005
        })
    }

    @Test("bad times write as something readable: negative and NaN as 0, an end before its start as the start")
    func badTimes() throws {
        let written = LineFileWriter.text(of: [line(-3, .nan, "a"), line(5, 2, "b")], format: .subRip)
        expectSame(try read(written, "fixed.srt"), [line(0, 0, "a"), line(5, 5, "b")])
    }

    /// Texts that exercise every escape: markup look-alikes, entities, arrows, CJK, emoji, blank lines.
    static let trickyTexts = [
        "plain", "two\nlines", "  padded  \n\n\n  with blank lines  ", "<i>not italic</i>", "I <3 you > me", "a < b",
        "&amp; &lt; &#233; &bogus; & alone", "{\\an8}{\\b1}", "{not override}", "-->", "--> 00:00:01,000", "1", "42\n7",
        "日本語の字幕、です。", "한국어 자막", "emoji 👨‍👩‍👧 ❤️", "e\u{301}te\u{301}", "tab\there", "WEBVTT", "NOTE this",
        "[00:01.00] brackets", "\"quotes\" and \\backslash", "&#x1F600;", "<00:00:01.000>", "&", "<", ">", "&lt", "<v Voice>",
    ]

    static func randomLines(seed: UInt64) -> [TextLine] {
        var random = SeededRandom(seed: seed)
        var start = 0.0
        return (0..<60).map { index in
            start += Double(random.next() % 20_000) / 1000 + Double(random.next() % 1000) / 1e6  // sub-millisecond parts too
            let end = start + Double(random.next() % 8000) / 1000
            return line(start, end, trickyTexts[index % trickyTexts.count])
        }
    }

    @Test("write then read gives the same lines to the millisecond", arguments: [LineFormat.subRip, .webVTT, .audacityLabels, .json])
    func roundTrip(format: LineFormat) throws {
        let original = Self.randomLines(seed: 7)
        let written = LineFileWriter.text(of: original, format: format)
        let back = try read(written, "round." + format.rawValue)
        #expect(back.count == original.count)
        var worstMilliseconds = 0.0
        for (got, want) in zip(back, original) {
            worstMilliseconds = max(worstMilliseconds, abs(got.startSeconds - want.startSeconds) * 1000, abs(got.endSeconds - want.endSeconds) * 1000)
            let expectedText = format == .audacityLabels
                ? String(CueTextForTests.normalized(want.text).map { $0 == "\n" || $0 == "\t" ? " " : $0 })
                : CueTextForTests.normalized(want.text)
            #expect(got.text == expectedText, "\(format): \(want.text.debugDescription) came back as \(got.text.debugDescription)")
        }
        print("round trip \(format.rawValue): \(back.count) lines, worst time difference \(worstMilliseconds) ms")
        #expect(worstMilliseconds <= 0.5)
        // Writing what was read gives the same file: the text form is stable.
        #expect(LineFileWriter.text(of: back, format: format) == written)
    }
}

/// The writer's text normalization, restated for the tests: lines trimmed, empty lines dropped.
enum CueTextForTests {
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters() }.filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var scalars = Substring.UnicodeScalarView(unicodeScalars)
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
