import RepeaterLines
import Testing

@Suite("Audacity labels")
struct AudacityLabelsReaderTests {
    @Test("region labels, point labels to the next label, spectral lines skipped, missing text")
    func labels() throws {
        let text = "1.500000\t3.250000\tBonjour\n\\\t200.000000\t4000.000000\n"
            + "5.000000\t5.000000\tpoint\n7.000000\t8.000000\n8.000000\t8.000000\tlast point\n\n"
        expectSame(try read(text, "labels.txt", durationSeconds: 10), [
            line(1.5, 3.25, "Bonjour"), line(5, 7, "point"), line(7, 8, ""), line(8, 10, "last point"),
        ])
        // Without the recording's duration the last point label stays a point.
        #expect(try read(text, "labels.txt").last == line(8, 8, "last point"))
    }

    @Test("hand edits read: spaces for tabs, commas for points, CRLF, tabs in the text")
    func handEdited() throws {
        let text = "1,5  2,75   Hola, ¿qué tal?\r\n3\t4\tuno\tdos\r\n.5\t1.\tx"
        expectSame(try read(text, "edited.txt"), [line(0.5, 1, "x"), line(1.5, 2.75, "Hola, ¿qué tal?"), line(3, 4, "uno\tdos")])
    }

    @Test("errors name the file and the line", arguments: [
        ("1.0\t2.0\tok\nabc\t3.0\tbad\n", "'labels.txt' line 2: 'abc' is not a time in seconds"),
        ("1.0\t2.0\tok\n3.0\t-4.0\tbad\n", "'labels.txt' line 2: '-4.0' is not a time in seconds"),
        ("5.0\t4.0\tbackwards\n", "'labels.txt' line 1: the label ends (4.0) before it starts (5.0): swap or correct the times"),
        ("1e3\t2e3\tx\n", "'labels.txt' line 1: '1e3' is not a time in seconds"),
        ("just words\n", "'labels.txt' line 1: 'just' is not a time in seconds"),
        ("12.5\n", "'labels.txt' line 1: expected 'start<TAB>end<TAB>text' with times in seconds, found '12.5'"),
    ])
    func errors(text: String, message: String) {
        #expect(errorMessage(text, "labels.txt") == message)
    }
}
