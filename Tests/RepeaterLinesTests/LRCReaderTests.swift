import RepeaterLines
import Testing

@Suite("LRC")
struct LRCReaderTests {
    static let song = """
    [ti:Au clair de la lune]
    [ar:Traditional]
    [length: 01:30]
    [by:someone]

    [00:01.00]Au clair de la lune,
    [00:04.50][00:40.25]Mon ami Pierrot,
    [00:08.00]Prête-moi ta <00:08.50>plume
    [00:12.00]
    [00:15.00]Pour écrire un mot.
    [00:15.00]To write a word.
    [01:20:50]Fin
    not a lyric line
    """

    @Test("lines end where the next starts, the last at the recording's end; tags, metadata, word times")
    func song() throws {
        expectSame(try read(Self.song, "lune.lrc", durationSeconds: 90), [
            line(1, 4.5, "Au clair de la lune,"),
            line(4.5, 8, "Mon ami Pierrot,"),
            line(8, 12, "Prête-moi ta plume"),                       // [00:12.00] with no text ends it
            line(15, 40.25, "Pour écrire un mot.\nTo write a word."),  // same time: one line
            line(40.25, 80.5, "Mon ami Pierrot,"),
            line(80.5, 90, "Fin"),                                    // [mm:ss:xx] form
        ])
    }

    @Test("a positive offset makes lines come sooner, a negative one later; times stay at 0 or more")
    func offset() throws {
        let sooner = "[offset:+500]\n[00:00.20]first\n[00:02.00]second\n"
        expectSame(try read(sooner, "a.lrc", durationSeconds: 3), [line(0, 1.5, "first"), line(1.5, 3, "second")])
        let later = "[00:01.00]first\n[00:02.00]second\n[offset:-250]\n"
        expectSame(try read(later, "b.lrc", durationSeconds: 3), [line(1.25, 2.25, "first"), line(2.25, 3, "second")])
    }

    @Test("without the recording's duration the last line is a point; past the recording's end too")
    func noDuration() throws {
        expectSame(try read("[00:01]a\n[00:02]b\n", "c.lrc"), [line(1, 2, "a"), line(2, 2, "b")])
        expectSame(try read("[00:01]a\n[00:09]b\n", "c.lrc", durationSeconds: 5), [line(1, 9, "a"), line(9, 9, "b")])
    }

    @Test("minutes past 59 are fine in LRC; CRLF and a BOM too")
    func longSongs() throws {
        expectSame(try read("\u{FEFF}[75:02.10]late\r\n[75:05.00]\r\n", "d.lrc"), [line(4502.1, 4505, "late")])
    }

    @Test("errors name the file and the line", arguments: [
        ("[00:01.00]ok\n[00:75.00]bad\n", "'song.lrc' line 2: '00:75.00' is not a time (seconds must be below 60)"),
        ("[ar:x]\n[offset:soon]\n", "'song.lrc' line 2: '[offset:soon]' is not an offset: expected milliseconds such as [offset:+250]"),
        ("[00:01.00]ok\n[0x:12.00]bad\n", "'song.lrc' line 2: '0x:12.00' is not a time: expected mm:ss.xx"),
    ])
    func errors(text: String, message: String) {
        #expect(errorMessage(text, "song.lrc") == message)
    }
}
