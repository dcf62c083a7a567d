import RepeaterLines
import Testing

@Suite("WebVTT")
struct WebVTTReaderTests {
    @Test("header, NOTE, STYLE and REGION blocks, identifiers, settings, optional hours, markup")
    func full() throws {
        let text = """
        WEBVTT - French lesson 3
        Kind: captions
        Language: fr

        STYLE
        ::cue(.yellow) { color: yellow; }

        REGION
        id:fred width:40%

        NOTE This file was made by hand,
        with a note over two lines.

        intro
        00:01.000 --> 00:04.000 align:start position:10%
        <v Marie>Bonjour <c.yellow>tout le monde</c> !

        00:00:05.500 --> 00:00:07.250 line:0
        <v.loud Paul>Salut</v>, <i>Marie</i> &amp; <b>compagnie</b>
        — comment <00:00:06.500>ça va ?

        3
        01:00:00.000 --> 01:00:02.000
        <ruby>漢<rt>かん</rt></ruby>字 &lt;tag&gt; &nbsp;ok
        """
        expectSame(try read(text, "lesson.vtt"), [
            line(1, 4, "Bonjour tout le monde !"),
            line(5.5, 7.25, "Salut, Marie & compagnie\n— comment ça va ?"),
            line(3600, 3602, "漢字 <tag> \u{A0}ok"),
        ])
    }

    @Test("BOM, CRLF, comma decimal marks, a missing last line end")
    func messy() throws {
        let text = "\u{FEFF}WEBVTT\r\n\r\n\r\n00:01,000 --> 00:02,000\r\nOne\r\n\r\n\r\n\r\nNOTE\r\nskip me\r\n\r\n00:03.000 --> 00:04.000\r\nTwo"
        expectSame(try read(text, "messy.vtt"), [line(1, 2, "One"), line(3, 4, "Two")])
    }

    @Test("a block without a time line is skipped, as WebVTT parsers do")
    func strayBlock() throws {
        let text = "WEBVTT\n\nsome stray text\nmore\n\n00:01.000 --> 00:02.000\nkept\n"
        expectSame(try read(text, "stray.vtt"), [line(1, 2, "kept")])
    }

    @Test("errors name the file and the line", arguments: [
        ("00:01.000 --> 00:02.000\nHi\n", "'talk.vtt' line 1: a WebVTT file starts with the line 'WEBVTT': found '00:01.000 --> 00:02.000'"),
        ("", "'talk.vtt' line 1: a WebVTT file starts with the line 'WEBVTT': the file is empty"),
        ("WEBVTT\n\nid\n00:01.000 --> 00:02.000\nok\n\n00:75.000 --> 00:80.000\nbad\n",
         "'talk.vtt' line 7: '00:75.000' is not a time (seconds must be below 60)"),
        ("WEBVTT\n\n00:03.000 --> 00:02.000\nbackwards\n",
         "'talk.vtt' line 3: the cue ends (00:02.000) before it starts (00:03.000): swap or correct the times"),
        ("WEBVTT\n\n00:01.000 --> soon\nx\n", "'talk.vtt' line 3: 'soon' is not a time: expected HH:MM:SS.mmm or MM:SS.mmm"),
        ("WEBVTT\n\n60:00.000 --> 61:00.000\nx\n", "'talk.vtt' line 3: '60:00.000' is not a time (minutes must be below 60)"),
    ])
    func errors(text: String, message: String) {
        #expect(errorMessage(text, "talk.vtt") == message)
    }
}
