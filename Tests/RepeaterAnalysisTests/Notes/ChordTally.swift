import Foundation
import RepeaterAnalysis

/// Counts for one table row. The reported notes' pitch classes are ranked by their strongest
/// note (a doubled tone counts once); n = the pitch classes played. "pcs in top n+1": all n are
/// among the first n+1 (one wrong pitch class allowed); "pcs = top n": the first n are exactly
/// the ones played.
struct ChordTally {
    var count = 0, pitchClassesAmong = 0, pitchClassesExact = 0, named = 0, namedIgnoringBass = 0

    mutating func add(_ chord: PlayedChord, _ report: NoteReport) {
        count += 1
        let wanted = chord.pitchClasses
        var ranked: [Int] = []
        for note in report.notes where !ranked.contains(note.midi % 12) { ranked.append(note.midi % 12) }
        if wanted.isSubset(of: Set(ranked.prefix(wanted.count + 1))) { pitchClassesAmong += 1 }
        if Set(ranked.prefix(wanted.count)) == wanted { pitchClassesExact += 1 }
        if chord.isRight(report.chord) { named += 1 }
        if chord.isRightIgnoringBass(report.chord) { namedIgnoringBass += 1 }
    }

    static func += (lhs: inout ChordTally, rhs: ChordTally) {
        lhs.count += rhs.count
        lhs.pitchClassesAmong += rhs.pitchClassesAmong
        lhs.pitchClassesExact += rhs.pitchClassesExact
        lhs.named += rhs.named
        lhs.namedIgnoringBass += rhs.namedIgnoringBass
    }

    var pitchClassesAmongShare: Double { Double(pitchClassesAmong) / Double(max(1, count)) }
    var namedShare: Double { Double(named) / Double(max(1, count)) }

    func row(_ label: String) -> String {
        label.padding(toLength: 22, withPad: " ", startingAt: 0) + " | " + String(format: "%6d", count)
            + " | " + percent(pitchClassesAmong, count).leftPadded(14) + " | " + percent(pitchClassesExact, count).leftPadded(11)
            + " | " + percent(named, count).leftPadded(7) + " | " + percent(namedIgnoringBass, count).leftPadded(13)
    }

    static let header = "                       | chords | pcs in top n+1 | pcs = top n |  name | name w/o bass"
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
