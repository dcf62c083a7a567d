import Foundation
import RepeaterAnalysis
import RepeaterTestSupport

/// Where the playhead window ends, in seconds after a chord's onset (chords last 1.5 s).
let playheadEndSeconds = [0.25, 0.5, 0.75, 1.0, 1.25]

/// The results of one rendering of chords: per chord, the whole-chord report and one report per
/// playhead position.
struct ChordRun {
    let chords: [PlayedChord]
    let whole: [NoteReport]
    let playhead: [[NoteReport]]

    /// Renders `chords` on `program`, one every 2 s, held 1.5 s, strummed `strumSeconds` apart
    /// from the lowest key up, with velocities between 70 and 105 (a fixed pattern), and analyses
    /// each: over its 1.5 s ("whole") and at each of `playheadEndSeconds`.
    init(chords: [PlayedChord], program: Int, sampleRate: Int = 48_000, strumSeconds: Double = 0) throws {
        var song = SynthSong()
        song.programs = [0: program]
        var pattern = 0
        for (index, chord) in chords.enumerated() {
            for (string, key) in chord.keys.enumerated() {
                pattern = (pattern * 7 + 3) % 8
                song.notes.append(SynthNote(channel: 0, key: key, velocity: 70 + 5 * pattern, startBeat: Double(index * 4) + Double(string) * strumSeconds * 2,
                                            lengthBeats: 3 - Double(string) * strumSeconds * 2))
            }
        }
        let frames = try renderMono(song, sampleRate: sampleRate)
        let analyzer = NoteAnalyzer(sampleRate: Double(sampleRate))
        var whole: [NoteReport] = [], playhead: [[NoteReport]] = []
        for index in chords.indices {
            let onset = Int(song.seconds(atBeat: Double(index * 4)) * Double(sampleRate))
            whole.append(wholeRangeReport(analyzer, frames, onset..<(onset + sampleRate * 3 / 2)))
            playhead.append(playheadEndSeconds.map { playheadReport(analyzer, frames, endingAt: onset + Int($0 * Double(sampleRate))) })
        }
        self.chords = chords
        self.whole = whole
        self.playhead = playhead
    }

    func wholeTally(where include: (PlayedChord) -> Bool = { _ in true }) -> ChordTally {
        var tally = ChordTally()
        for (chord, report) in zip(chords, whole) where include(chord) { tally.add(chord, report) }
        return tally
    }

    func playheadTally(position: Int? = nil) -> ChordTally {
        var tally = ChordTally()
        for (chord, reports) in zip(chords, playhead) {
            for (index, report) in reports.enumerated() where position == nil || position == index { tally.add(chord, report) }
        }
        return tally
    }

    /// The chords named wrong over the whole chord (or at playhead position `position`), for the log.
    func misses(_ instrument: String, position: Int? = nil) -> [String] {
        zip(chords, position.map { index in playhead.map { $0[index] } } ?? whole).compactMap { chord, report in
            if chord.isRight(report.chord) { return nil }
            let keys = chord.keys.map { NoteSpelling.common.name(midi: $0) }.joined(separator: " ")
            return "  \(instrument) \(chord.expected) [\(keys)] → \(report.chord ?? "nil") [\(describe(report.notes))]"
        }
    }

    /// Whole-chord rows, then one row per playhead position and the pooled playhead row.
    func printSummary(title: String, wholeRows: [(String, ChordTally)]) {
        var lines = ["", title, ChordTally.header]
        for (label, tally) in wholeRows { lines.append(tally.row(label)) }
        lines.append(wholeTally().row("whole chord (1.5 s)"))
        for (index, seconds) in playheadEndSeconds.enumerated() {
            lines.append(playheadTally(position: index).row(String(format: "playhead to %.2f s", seconds)))
        }
        lines.append(playheadTally().row("playhead, all"))
        print(lines.joined(separator: "\n"))
    }
}
