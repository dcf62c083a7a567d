import RepeaterAnalysis
import Testing

@Suite("Chord names from pitch classes")
struct ChordNameTests {
    private func weights(_ pitchClasses: [Int], _ value: Float = 1) -> [Float] {
        var weights = [Float](repeating: 0, count: 12)
        for pitchClass in pitchClasses { weights[pitchClass % 12] = value }
        return weights
    }

    @Test("each quality of the vocabulary is named on every root, in root position")
    func vocabulary() {
        let symbols: [ChordQuality: String] = [.major: "", .minor: "m", .diminished: "dim", .augmented: "aug", .sus2: "sus2",
                                               .sus4: "sus4", .dominant7: "7", .major7: "maj7", .minor7: "m7",
                                               .halfDiminished7: "m7b5", .diminished7: "dim7"]
        for quality in ChordQuality.allCases {
            for root in 0..<12 {
                let name = ChordName.best(weights: weights(quality.intervals.map { root + $0 }), bass: root)
                #expect(name?.description == NoteSpelling.common.name(pitchClass: root) + symbols[quality]!)
            }
        }
    }

    @Test("inversions are written over their bass; symmetric chords are named from the bass")
    func inversions() {
        #expect(ChordName.best(weights: weights([0, 4, 7]), bass: 4)?.description == "C/E")
        #expect(ChordName.best(weights: weights([0, 4, 7]), bass: 7)?.description == "C/G")
        #expect(ChordName.best(weights: weights([7, 11, 2, 5]), bass: 5)?.description == "G7/F")
        #expect(ChordName.best(weights: weights([9, 0, 4, 7]), bass: 0)?.description == "Am7/C")
        #expect(ChordName.best(weights: weights([0, 4, 8]), bass: 4)?.description == "Eaug")
        #expect(ChordName.best(weights: weights([0, 3, 6, 9]), bass: 6)?.description == "F#dim7")
        #expect(ChordName.best(weights: weights([0, 2, 7]), bass: 7)?.description == "Gsus4")
        #expect(ChordName.best(weights: weights([0, 2, 7]), bass: 0)?.description == "Csus2")
        #expect(ChordName.best(weights: weights([10, 2, 5]), bass: 2, spelling: .sharps)?.description == "A#/D")
    }

    @Test("fewer than three pitch classes, or a cluster no chord explains, is no chord")
    func notChords() {
        #expect(ChordName.best(weights: weights([]), bass: nil) == nil)
        #expect(ChordName.best(weights: weights([0]), bass: 0) == nil)
        #expect(ChordName.best(weights: weights([0, 7]), bass: 0) == nil)
        #expect(ChordName.best(weights: weights([0, 1, 2]), bass: 0) == nil)
        #expect(ChordName.best(weights: weights([0, 1, 2, 3, 4, 5, 6]), bass: 0) == nil)
        // A quiet extra tone does not stop a chord; a loud one it does not explain does.
        var extra = weights([0, 4, 7])
        extra[6] = 0.3
        #expect(ChordName.best(weights: extra, bass: 0)?.description == "C")
        extra[6] = 2
        #expect(ChordName.best(weights: extra, bass: 0) == nil)
    }

    @Test("a seventh that sounds makes a seventh chord")
    func sevenths() {
        #expect(ChordName.best(weights: weights([0, 4, 7, 10]), bass: 0)?.description == "C7")
        #expect(ChordName.best(weights: weights([0, 4, 7, 11]), bass: 0)?.description == "Cmaj7")
        #expect(ChordName.best(weights: weights([0, 3, 6, 10]), bass: 10)?.description == "Cm7b5/Bb")
        // The guitar's C7 (x32310: C E Bb C E) has no fifth; a diminished chord keeps its fifth.
        #expect(ChordName.best(weights: weights([0, 4, 10]), bass: 0)?.description == "C7")
        #expect(ChordName.best(weights: weights([9, 0, 7]), bass: 9)?.description == "Am7")
        #expect(ChordName.best(weights: weights([0, 3, 10]), bass: 0)?.description == "Cm7")
        #expect(ChordName.best(weights: weights([0, 3, 9]), bass: 0)?.description == "Adim/C")  // not "Cdim7" without its fifth
    }

    @Test("symbols parse back", arguments: ["C", "Am7/G", "F#m7b5", "Bbmaj7/D", "Ebdim7", "G#aug", "Dsus4/A", "Db7"])
    func parse(symbol: String) throws {
        let chord = try #require(ChordName(parsing: symbol))
        let respelt = ChordName(root: chord.root, quality: chord.quality, bass: chord.bass,
                                spelling: symbol.contains("#") ? .sharps : symbol.contains("b") && !symbol.contains("m7b5") || symbol.hasPrefix("Db") ? .flats : .common)
        #expect(respelt.description == symbol)
        #expect(ChordName(parsing: "H7") == nil && ChordName(parsing: "C/E/G") == nil && ChordName(parsing: "Cmaj9") == nil)
    }
}
