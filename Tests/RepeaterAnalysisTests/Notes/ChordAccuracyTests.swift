import Foundation
import RepeaterAnalysis
import RepeaterTestSupport
import Testing

private let verbose = ProcessInfo.processInfo.environment["NOTES_VERBOSE"] != nil

private let instruments = [("piano", GM.piano), ("nylon guitar", GM.nylonGuitar), ("steel guitar", GM.steelGuitar)]

/// Open-position and barre shapes as a guitarist plays them (doubled tones, omitted fifths, bass
/// notes), lowest string first.
private let shapes = [
    PlayedChord("E", [40, 47, 52, 56, 59, 64]), PlayedChord("A", [45, 52, 57, 61, 64]), PlayedChord("D", [50, 57, 62, 66]),
    PlayedChord("G", [43, 47, 50, 55, 59, 67]), PlayedChord("C", [48, 52, 55, 60, 64]), PlayedChord("F", [41, 48, 53, 57, 60, 65]),
    PlayedChord("Am", [45, 52, 57, 60, 64]), PlayedChord("Em", [40, 47, 52, 55, 59, 64]), PlayedChord("Dm", [50, 57, 62, 65]),
    PlayedChord("Bm", [47, 54, 59, 62, 66]), PlayedChord("F#m", [42, 49, 54, 57, 61, 66]),
    PlayedChord("E7", [40, 47, 50, 56, 59, 64]), PlayedChord("A7", [45, 52, 55, 61, 64]), PlayedChord("D7", [50, 57, 60, 66]),
    PlayedChord("G7", [43, 47, 50, 55, 59, 65]), PlayedChord("C7", [48, 52, 58, 60, 64]), PlayedChord("B7", [47, 51, 57, 59, 66]),
    PlayedChord("Cmaj7", [48, 52, 55, 59, 64]), PlayedChord("Fmaj7", [53, 57, 60, 64]), PlayedChord("Amaj7", [45, 52, 56, 61, 64]),
    PlayedChord("Am7", [45, 52, 55, 60, 64]), PlayedChord("Em7", [40, 47, 50, 55, 59, 64]), PlayedChord("Dm7", [50, 57, 60, 65]),
    PlayedChord("Bm7b5", [47, 53, 57, 62]), PlayedChord("Bdim7", [47, 53, 56, 62]), PlayedChord("Caug", [48, 52, 56, 60]),
    PlayedChord("Asus4", [45, 52, 57, 62, 64]), PlayedChord("Dsus4", [50, 57, 62, 67]), PlayedChord("Dsus2", [50, 57, 62, 64]),
    PlayedChord("Asus2", [45, 52, 57, 59, 64]), PlayedChord("Edim", [40, 46, 52, 55]),
    PlayedChord("C/G", [43, 48, 52, 55, 60, 64]), PlayedChord("D/F#", [42, 50, 57, 62, 66]), PlayedChord("G/B", [47, 50, 55, 59, 67]),
    PlayedChord("Am/E", [40, 45, 52, 57, 60, 64]), PlayedChord("Em/G", [43, 47, 52, 55, 59, 64]),
]

/// Piano voicings: the root and its octave in the left hand (octave 2), the chord in close
/// position in the right (around C4–C5).
private let voicings: [PlayedChord] = (0..<12).flatMap { root in
    [ChordQuality.major, .minor, .dominant7, .major7, .minor7].map { quality in
        let rightHand = quality.intervals.map { 60 + (root + $0) % 12 }
        return PlayedChord(keys: [36 + root, 48 + root] + rightHand, expected: ChordName(root: root, quality: quality))
    }
}

@Suite("Chords: tones among the strongest notes, and the name")
struct ChordAccuracyTests {
    @Test("triads and sevenths in close position, every inversion, on four roots", .enabled(if: FluidSynth.isAvailable),
          arguments: instruments)
    func closeVoicings(instrument: String, program: Int) throws {
        var chords: [PlayedChord] = []
        for quality in ChordQuality.allCases {
            for rootKey in [48, 51, 54, 57] {  // C3, Eb3, F#3, A3
                for inversion in 0..<quality.intervals.count { chords.append(PlayedChord(rootKey: rootKey, quality: quality, inversion: inversion)) }
            }
        }
        let run = try ChordRun(chords: chords, program: program)
        var rows = ChordQuality.allCases.map { quality in ("whole, " + quality.rawValue, run.wholeTally { $0.expected.quality == quality }) }
        rows += (0...3).map { inversion in ("whole, inversion \(inversion)", run.wholeTally { $0.inversion == inversion }) }
        run.printSummary(title: "\(instrument): \(chords.count) close-position chords (C3, Eb3, F#3, A3 roots), 48 kHz", wholeRows: rows)
        if verbose { print(run.misses(instrument).joined(separator: "\n")) }
        let whole = run.wholeTally(), playhead = run.playheadTally()
        #expect(whole.pitchClassesAmongShare >= 0.9)
        #expect(whole.namedShare >= 0.8)
        #expect(playhead.pitchClassesAmongShare >= 0.8)
        #expect(playhead.namedShare >= 0.7)
    }

    @Test("guitar chord shapes, strummed", .enabled(if: FluidSynth.isAvailable), arguments: instruments)
    func guitarShapes(instrument: String, program: Int) throws {
        let run = try ChordRun(chords: shapes, program: program, strumSeconds: 0.012)
        run.printSummary(title: "\(instrument): \(shapes.count) guitar shapes strummed 12 ms a string, 48 kHz", wholeRows: [])
        print(run.misses(instrument).joined(separator: "\n"))
        #expect(run.wholeTally().pitchClassesAmongShare >= 0.9)
        #expect(run.wholeTally().namedShare >= 0.8)
    }

    @Test("piano voicings with the root doubled in the bass", .enabled(if: FluidSynth.isAvailable))
    func pianoVoicings() throws {
        let run = try ChordRun(chords: voicings, program: GM.piano, sampleRate: 44_100)
        let rows = [ChordQuality.major, .minor, .dominant7, .major7, .minor7].map { quality in
            ("whole, " + quality.rawValue, run.wholeTally { $0.expected.quality == quality })
        }
        run.printSummary(title: "piano: \(voicings.count) voicings (root octave in the left hand, chord around C4), 44.1 kHz", wholeRows: rows)
        print(run.misses("piano").joined(separator: "\n"))
        // A known limit, not the brief's target: with the root an octave or two below, the right
        // hand's tones lie on the bass's own partials (F2: F3 C4 F4 A4 are its partials 2 3 4 5),
        // and one spectrum cannot tell them from the bass alone. These floors guard what was
        // measured (whole chord: tones 63 %, names 83 %).
        #expect(run.wholeTally().pitchClassesAmongShare >= 0.55)
        #expect(run.wholeTally().namedShare >= 0.75)
    }
}
