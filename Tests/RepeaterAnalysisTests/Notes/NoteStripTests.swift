import RepeaterAnalysis
import Testing

@Suite("The note view as text")
struct NoteStripTests {
    /// A report with A4, C#5 and E5 loud (0, −6, −12 dB), their octaves quieter, the rest silent.
    private var aMajor: NoteReport {
        var levels = [Float](repeating: NoteReport.floorDB, count: 88)
        for (key, level) in [(69, Float(0)), (73, -6), (76, -12), (81, -30), (85, -36), (88, -40), (24, -47.9), (108, -49)] {
            levels[key - NoteReport.lowestKey] = level
        }
        let notes = [NoteReport.Note(name: "A4", midi: 69, cents: -3.2, frequencyHz: 439.2, levelDB: 0),
                     NoteReport.Note(name: "C#5", midi: 73, cents: 2.4, frequencyHz: 554.9, levelDB: -6),
                     NoteReport.Note(name: "E5", midi: 76, cents: 0.6, frequencyHz: 659.5, levelDB: -12)]
        return NoteReport(keyLevels: levels, notes: notes, chord: "A")
    }

    @Test("the lines fit the width and mark the right keys", arguments: [40, 80, 132])
    func lines(width: Int) {
        let lines = NoteStrip.lines(for: aMajor, width: width)
        print("\n\(width) columns:\n" + lines.map { "|" + $0 + "|" }.joined(separator: "\n"))
        #expect(lines.count == 3)
        for line in lines { #expect(line.count <= width) }
        let strip = NoteStrip.stripWidth(for: width)
        #expect(lines[0].count == strip && lines[1].count == strip)
        #expect(strip == min(width, 85))
        let levels = Array(lines[0]), octaves = Array(lines[1])
        #expect(levels[NoteStrip.column(ofKey: 69, stripWidth: strip)] == "█")
        // −6 dB in a 48 dB range is 7 of 8 steps; C1 at −47.9 dB is the lowest visible step; C8 below the range is blank.
        #expect(levels[NoteStrip.column(ofKey: 73, stripWidth: strip)] == "▇")
        #expect(levels[NoteStrip.column(ofKey: 24, stripWidth: strip)] == "▁")
        #expect(levels[NoteStrip.column(ofKey: 108, stripWidth: strip)] == " ")
        #expect(levels.filter { $0 != " " }.count == Set([69, 73, 76, 81, 85, 88, 24].map { NoteStrip.column(ofKey: $0, stripWidth: strip) }).count)
        for octave in 1...7 { #expect(octaves[NoteStrip.column(ofKey: 12 * (octave + 1), stripWidth: strip)] == "C") }
        #expect(String(octaves[NoteStrip.column(ofKey: 60, stripWidth: strip)...].prefix(2)) == "C4")
        #expect(lines[2] == "A4 −3¢  C#5 +2¢  E5 +1¢   chord A")
    }

    @Test("at 85 columns and more, each key has its own column")
    func oneColumnPerKey() {
        for key in 24...108 {
            #expect(NoteStrip.column(ofKey: key, stripWidth: 85) == key - 24)
            #expect(NoteStrip.keys(ofColumn: key - 24, stripWidth: 85) == key...key)
        }
    }

    @Test("below 85 columns every key is shown by exactly one column, in order", arguments: [40, 41, 63, 80, 84])
    func compressed(width: Int) {
        var covered = Set<Int>()
        var previous = 23
        for column in 0..<width {
            let keys = NoteStrip.keys(ofColumn: column, stripWidth: width)
            #expect(keys.lowerBound == previous + 1 && keys.count <= 3)
            previous = keys.upperBound
            covered.formUnion(keys)
            for key in keys { #expect(NoteStrip.column(ofKey: key, stripWidth: width) == column) }
        }
        #expect(covered == Set(24...108))
        for key in 24...108 { #expect(NoteStrip.keys(ofColumn: NoteStrip.column(ofKey: key, stripWidth: width), stripWidth: width).contains(key)) }
    }

    @Test("notes that do not fit are left out, the chord stays; silence is a dash")
    func narrowNotesLine() {
        var report = aMajor
        report.notes += [NoteReport.Note(name: "A5", midi: 81, cents: -49.6, frequencyHz: 868, levelDB: -30),
                         NoteReport.Note(name: "C#6", midi: 85, cents: 0, frequencyHz: 1108.7, levelDB: -36)]
        #expect(NoteStrip.lines(for: report, width: 40)[2] == "A4 −3¢  C#5 +2¢  E5 +1¢   chord A")
        #expect(NoteStrip.lines(for: report, width: 80)[2] == "A4 −3¢  C#5 +2¢  E5 +1¢  A5 −50¢  C#6 ±0¢   chord A")
        let silent = NoteStrip.lines(for: .silent, width: 80)
        #expect(silent[0].allSatisfy { $0 == " " })
        #expect(silent[2] == "–")
        #expect(NoteStrip.lines(for: report, width: 10).allSatisfy { $0.count <= 40 })
    }
}
