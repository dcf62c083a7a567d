import RepeaterLines
import Testing

@Suite("SRT")
struct SubRipReaderTests {
    @Test("a clean file reads cue by cue, multi-line text joined with a newline")
    func clean() throws {
        let text = """
        1
        00:00:01,000 --> 00:00:03,500
        Hello.

        2
        00:00:04,250 --> 00:01:02,003
        How are you?
        Fine, thanks.

        3
        01:00:00,000 --> 01:00:01,000
        An hour in.

        """
        expectSame(try read(text, "talk.srt"), [
            line(1, 3.5, "Hello."), line(4.25, 62.003, "How are you?\nFine, thanks."), line(3600, 3601, "An hour in."),
        ])
    }

    @Test("a messy file reads: BOM, CRLF, dots for commas, extra and missing blank lines, tags, ASS overrides, entities")
    func messy() throws {
        let text = "\u{FEFF}1\r\n00:00:01.000 --> 00:00:02.000\r\n<i>Hello</i> <b>there</b>,   <font color=\"#ffcc00\">friend</font>\r\n\r\n\r\n\r\n"
            + "2\r\n00:00:02,500 --> 00:00:03,000  X1:100 X2:200 Y1:10 Y2:20\r\n{\\an8}Top &amp; tail &lt;3 &#233;t&#xE9;\r\n"
            + "3\r\n00:00:04,000 --> 00:00:05,000\r\n  - Who?  \r\n\r\n  - <u>Me</u>.\r\n"
            + "00:00:06,000 --> 00:00:07,000\r\nNo cue number, no last line end"
        expectSame(try read(text, "messy.srt"), [
            line(1, 2, "Hello there,   friend"),
            line(2.5, 3, "Top & tail <3 été"),
            line(4, 5, "- Who?\n- Me."),
            line(6, 7, "No cue number, no last line end"),
        ])
    }

    @Test("lone CR line ends (old Mac files) read like LF")
    func loneCR() throws {
        let text = "1\r00:00:01,000 --> 00:00:02,000\rOne\r\r2\r00:00:03,000 --> 00:00:04,000\rTwo\r"
        expectSame(try read(text, "mac.srt"), [line(1, 2, "One"), line(3, 4, "Two")])
    }

    @Test("a number ending a cue's text stays; the next cue's number goes")
    func numberAsText() throws {
        let text = "1\n00:00:01,000 --> 00:00:02,000\nThe year was\n1984\n\n2\n00:00:03,000 --> 00:00:04,000\n42\n"
        expectSame(try read(text, "numbers.srt"), [line(1, 2, "The year was\n1984"), line(3, 4, "42")])
    }

    @Test("overlapping cues are kept as written, sorted by start, ties in file order")
    func overlapping() throws {
        let text = """
        1
        00:00:05,000 --> 00:00:08,000
        Later

        2
        00:00:01,000 --> 00:00:06,000
        Speaker A

        3
        00:00:01,000 --> 00:00:03,000
        Speaker B
        """
        expectSame(try read(text, "overlap.srt"), [line(1, 6, "Speaker A"), line(1, 3, "Speaker B"), line(5, 8, "Later")])
    }

    @Test("short forms: no hours, one-digit fields, a fraction of any length")
    func shortForms() throws {
        let text = "1\n01:02,5 --> 1:2:3,25\nx\n"
        expectSame(try read(text, "short.srt"), [line(62.5, 3723.25, "x")])
    }

    @Test("an empty file has no lines")
    func empty() throws {
        #expect(try read("", "empty.srt").isEmpty)
        #expect(try read("\u{FEFF}\r\n\r\n", "blank.srt").isEmpty)
    }

    @Test("impossible times and cues are one-line errors naming the file and the line", arguments: [
        ("1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:99,000 --> 00:01:40,000\nbad\n",
         "'talk.srt' line 6: '00:00:99,000' is not a time (seconds must be below 60)"),
        ("1\n00:61:00,000 --> 01:00:00,000\nbad\n", "'talk.srt' line 2: '00:61:00,000' is not a time (minutes must be below 60)"),
        ("1\n00:00:05,000 --> 00:00:03,000\nbackwards\n",
         "'talk.srt' line 2: the cue ends (00:00:03,000) before it starts (00:00:05,000): swap or correct the times"),
        ("1\n00:00:0l,000 --> 00:00:03,000\ntypo\n", "'talk.srt' line 2: '00:00:0l,000' is not a time: expected HH:MM:SS,mmm"),
        ("1\n00:00:01,000 --> \nno end\n", "'talk.srt' line 2: expected a time (HH:MM:SS,mmm), found nothing"),
        ("1\n --> 00:00:01,000\nno start\n", "'talk.srt' line 2: expected a time (HH:MM:SS,mmm), found nothing"),
        ("1\n00:00:01,000 --> 00:00:02,-10\nx\n", "'talk.srt' line 2: '00:00:02,-10' is not a time: expected HH:MM:SS,mmm"),
        ("Hello, this is not a subtitle file.\n", "'talk.srt' line 1: 'Hello, this is not a subtitle file.' is not a cue: expected a cue number or a time line such as '00:00:01,000 --> 00:00:04,000'"),
        ("\n\n1\n2\n00:00:01,000 --> 00:00:02,000\nx\n", "'talk.srt' line 3: '1' is not a cue: expected a cue number or a time line such as '00:00:01,000 --> 00:00:04,000'"),
    ])
    func errors(text: String, message: String) {
        #expect(errorMessage(text, "talk.srt") == message)
    }

    @Test("a .srt file that is really WebVTT reads as WebVTT, and says so")
    func webVTTNamedSRT() throws {
        let file = try read(Array("WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n".utf8), "wrong.srt")
        expectSame(file.lines, [line(1, 2, "Hi")])
        #expect(file.notes == ["'wrong.srt' starts with 'WEBVTT': read as WebVTT"])
    }
}
