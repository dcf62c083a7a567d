#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The note view as text for a terminal: a keyboard strip from C1 to C8 (MIDI 24 … 108, 85 keys)
/// with one block character per column for the level, a line naming the C of each octave under
/// it, and a line with the notes and the chord. Pure functions of a report and a width.
///
/// - From 85 columns: one column per key (the strip is 85 columns, left-aligned).
/// - From 40 to 84 columns: the 85 keys are shared out evenly: column c of w shows the loudest of
///   keys ⌊c·85/w⌋ … ⌊(c+1)·85/w⌋−1 (from C1), one or two keys a column at 80 columns, two or
///   three at 40; each key is in exactly one column, and a loud key is never hidden by a quiet
///   neighbour.
///
/// Levels: blank more than `rangeDB` below the loudest key of the report (or below `floorDB`),
/// then `▁▂▃▄▅▆▇█` in steps of `rangeDB / 8` up to the loudest key (a relative scale: the
/// loudness of a recording does not change the picture; silence shows nothing).
public enum NoteStrip {
    /// The strip's first key: C1.
    public static let firstKey = 24
    /// The strip's last key: C8.
    public static let lastKey = 108
    public static let keyCount = lastKey - firstKey + 1
    public static let minimumWidth = 40
    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The three lines (levels, octaves, notes and chord), each at most `width` columns
    /// (`width` below 40 is treated as 40).
    public static func lines(for report: NoteReport, width: Int, rangeDB: Float = 48, floorDB: Float = -100) -> [String] {
        let width = max(width, minimumWidth)
        return [levelLine(report, width: width, rangeDB: rangeDB, floorDB: floorDB), octaveLine(width: width),
                notesLine(report, width: width)]
    }

    /// Columns the strip takes at `width`: 85 from 85 columns up, else the whole width.
    public static func stripWidth(for width: Int) -> Int { min(max(width, minimumWidth), keyCount) }

    /// The keys column `column` of a strip `stripWidth` wide shows.
    public static func keys(ofColumn column: Int, stripWidth: Int) -> ClosedRange<Int> {
        let first = column * keyCount / stripWidth
        let last = (column + 1) * keyCount / stripWidth - 1
        return (firstKey + first)...(firstKey + max(first, min(last, keyCount - 1)))
    }

    /// The column that shows key `midi` (C1 … C8).
    public static func column(ofKey midi: Int, stripWidth: Int) -> Int {
        ((midi - firstKey + 1) * stripWidth + keyCount - 1) / keyCount - 1
    }

    static func levelLine(_ report: NoteReport, width: Int, rangeDB: Float, floorDB: Float) -> String {
        let strip = stripWidth(for: width)
        let loudest = (firstKey...lastKey).map { report.level(ofKey: $0) }.max() ?? NoteReport.floorDB
        let bottom = max(floorDB, loudest - rangeDB)
        var line = ""
        for column in 0..<strip {
            let level = keys(ofColumn: column, stripWidth: strip).map { report.level(ofKey: $0) }.max() ?? NoteReport.floorDB
            let step = level <= bottom ? 0 : min(8, max(1, Int(((level - bottom) / rangeDB * 8).rounded(.up))))
            line.append(blocks[step])
        }
        return line
    }

    /// "C1" under the column of each C; just the octave's digit where octaves are narrower than 3
    /// columns, and for C8 when "C8" would run past the strip.
    static func octaveLine(width: Int) -> String {
        let strip = stripWidth(for: width)
        var characters = [Character](repeating: " ", count: strip)
        let octaveColumns = 12 * strip / keyCount
        for octave in 1...8 {
            let column = column(ofKey: 12 * (octave + 1), stripWidth: strip)
            let label = octaveColumns >= 3 && column + 1 < strip ? Array("C\(octave)") : Array("\(octave)")
            for (offset, character) in label.enumerated() where column + offset < strip { characters[column + offset] = character }
        }
        return String(characters)
    }

    /// "A4 −3¢  C#5 +2¢  E5 +1¢   chord A", cut at the last note that fits; "–" when nothing sounds.
    static func notesLine(_ report: NoteReport, width: Int) -> String {
        let chord = report.chord.map { "   chord " + $0 } ?? ""
        var line = ""
        for note in report.notes {
            let item = (line.isEmpty ? "" : "  ") + note.name + " " + centsText(note.cents)
            if line.count + item.count + chord.count > width { break }
            line += item
        }
        if line.isEmpty && report.notes.isEmpty { line = "–" }
        return line.count + chord.count <= width ? line + chord : line
    }

    /// "+2¢", "−3¢" (a minus sign, U+2212), "±0¢".
    public static func centsText(_ cents: Float) -> String {
        let rounded = Int(cents.rounded())
        return (rounded > 0 ? "+\(rounded)" : rounded < 0 ? "\u{2212}\(-rounded)" : "±0") + "¢"
    }
}
