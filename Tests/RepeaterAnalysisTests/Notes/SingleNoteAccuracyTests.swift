import Foundation
import RepeaterAnalysis
import RepeaterTestSupport
import Testing

/// One rendered single-note test: an instrument and the keys it plays.
private struct NoteRange: Sendable, CustomStringConvertible {
    let name: String
    let program: Int
    let keys: ClosedRange<Int>
    var description: String { name }
}

private let ranges = [
    NoteRange(name: "piano", program: GM.piano, keys: 28...96),               // E1 … C7
    NoteRange(name: "nylon guitar", program: GM.nylonGuitar, keys: 40...84),  // E2 … C6
    NoteRange(name: "steel guitar", program: GM.steelGuitar, keys: 40...84),
    NoteRange(name: "finger bass", program: GM.fingerBass, keys: 28...60),    // E1 … C4
    NoteRange(name: "acoustic bass", program: 32, keys: 28...60),
]

private let verbose = ProcessInfo.processInfo.environment["NOTES_VERBOSE"] != nil

/// One table row: notes, right over the whole note, right at the playhead (sustain positions),
/// right in the attack, notes reported besides the played one, and single notes given a chord.
private struct NoteTally {
    var count = 0, whole = 0, wholeAmong = 0, playhead = 0, playheadCount = 0, attack = 0, extraNotes = 0, reports = 0, chords = 0

    static func += (lhs: inout NoteTally, rhs: NoteTally) {
        lhs.count += rhs.count; lhs.whole += rhs.whole; lhs.wholeAmong += rhs.wholeAmong; lhs.playhead += rhs.playhead
        lhs.playheadCount += rhs.playheadCount; lhs.attack += rhs.attack; lhs.extraNotes += rhs.extraNotes
        lhs.reports += rhs.reports; lhs.chords += rhs.chords
    }

    func row(_ label: String) -> String {
        label.padding(toLength: 6, withPad: " ", startingAt: 0) + " | " + String(format: "%5d", count) + " | "
            + percent(whole, count).leftPadded(10) + " | " + percent(playhead, playheadCount).leftPadded(15) + " | "
            + percent(attack, count).leftPadded(13) + " | " + String(format: "%11.2f", Double(extraNotes) / Double(max(1, reports)))
            + " | " + percent(chords, reports).leftPadded(10)
    }

    static let header = "octave | notes | whole note | playhead (sust.) | attack 0.15 s | extra notes | any chord"
}

@Suite("Single notes: named with the right octave")
struct SingleNoteAccuracyTests {
    @Test("every semitone of each instrument's range is named right", .enabled(if: FluidSynth.isAvailable),
          arguments: ranges)
    fileprivate func singleNotes(range: NoteRange) throws {
        let rate = 48_000
        var song = SynthSong()
        song.programs = [0: range.program]
        // One note every 2 s, held 1.5 s, velocities 60 … 110 in a fixed pattern.
        for (index, key) in range.keys.enumerated() {
            song.notes.append(SynthNote(channel: 0, key: key, velocity: 60 + (index * 37) % 51, startBeat: Double(index * 4), lengthBeats: 3))
        }
        let frames = try renderMono(song, sampleRate: rate)
        let analyzer = NoteAnalyzer(sampleRate: Double(rate))
        var perOctave: [Int: NoteTally] = [:]
        var log: [String] = []
        // Playhead windows ending 0.25, 0.75 and 1.25 s after the onset (the sustain), and 0.15 s (the attack).
        let sustainEnds = [0.25, 0.75, 1.25]
        for (index, key) in range.keys.enumerated() {
            let onset = Int(song.seconds(atBeat: Double(index * 4)) * Double(rate))
            var tally = NoteTally()
            tally.count = 1
            let whole = wholeRangeReport(analyzer, frames, onset..<(onset + rate * 3 / 2))
            let sustain = sustainEnds.map { playheadReport(analyzer, frames, endingAt: onset + Int($0 * Double(rate))) }
            let attack = playheadReport(analyzer, frames, endingAt: onset + rate * 15 / 100)
            tally.whole = whole.notes.first?.midi == key ? 1 : 0
            tally.wholeAmong = whole.notes.contains { $0.midi == key } ? 1 : 0
            tally.playhead = sustain.filter { $0.notes.first?.midi == key }.count
            tally.playheadCount = sustain.count
            tally.attack = attack.notes.first?.midi == key ? 1 : 0
            for report in [whole] + sustain {
                tally.reports += 1
                tally.extraNotes += report.notes.filter { $0.midi != key }.count
                tally.chords += report.chord == nil ? 0 : 1
            }
            perOctave[key / 12 - 1, default: NoteTally()] += tally
            if verbose || tally.whole == 0 || tally.playhead < sustain.count {
                log.append("  \(range.name) \(NoteSpelling.common.name(midi: key)): whole [\(describe(Array(whole.notes.prefix(4))))]"
                    + " playhead " + sustain.map { "[\(describe(Array($0.notes.prefix(3))))]" }.joined(separator: " "))
            }
        }
        log.append("\n\(range.name): single notes \(NoteSpelling.common.name(midi: range.keys.lowerBound))…\(NoteSpelling.common.name(midi: range.keys.upperBound)), 48 kHz;"
            + " whole = 1.5 s averaged, playhead = 171 ms ending 0.25/0.75/1.25 s after the onset; right = the strongest note is the one played")
        log.append(NoteTally.header)
        var all = NoteTally()
        for octave in perOctave.keys.sorted() {
            log.append(perOctave[octave]!.row("\(octave)"))
            all += perOctave[octave]!
        }
        log.append(all.row("all"))
        log.append("played note among the notes (whole note): \(percent(all.wholeAmong, all.count))")
        print(log.joined(separator: "\n"))
        #expect(Double(all.whole) >= 0.95 * Double(all.count), "whole-note mode names \(all.whole) of \(all.count) right")
        #expect(Double(all.playhead) >= 0.9 * Double(all.playheadCount), "playhead names \(all.playhead) of \(all.playheadCount) right")
        #expect(Double(all.chords) <= 0.02 * Double(all.reports), "\(all.chords) single notes named as chords")
    }
}
