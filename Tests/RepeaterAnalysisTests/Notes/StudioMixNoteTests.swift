import Foundation
import RepeaterAnalysis
import RepeaterTestSupport
import Testing

/// The note view on the studio mixes (`StudioMix`): the notes of the centred lead and the chords of
/// the accompaniment, as a user reads them from the plain mix, from `centre` and from `sides`,
/// beside what it reads from the part alone (the synthetic set's figures, on single parts, are
/// in `SingleNoteAccuracyTests` and `ChordAccuracyTests`).
@Suite("The note view on studio mixes", .enabled(if: StudioSources.available, "needs the studio mixes' tools and data (scripts/setup)"))
struct StudioMixNoteTests {
    /// Right and counted.
    struct Share {
        var right = 0, count = 0
        mutating func add(_ isRight: Bool) {
            count += 1
            if isRight { right += 1 }
        }
        var text: String { percent(right, count).leftPadded(8) }
        var value: Double { Double(right) / Double(max(1, count)) }
    }

    static func mono(_ audio: PlanarAudio) -> [Float] { zip(audio.channels[0], audio.channels[1]).map { ($0 + $1) / 2 } }

    /// The lead's notes: the trumpet's, at the playhead (171 ms ending in the middle of each note of
    /// at least 0.3 s) and over each whole note, right when the strongest note is the played key;
    /// the voice's, at the playhead every 0.25 s where the voice alone is named, right when the
    /// strongest note is the key the voice alone gives. For the part alone, the plain mix, centre.
    static func leadShares(_ entry: StudioMixSet.Entry, analyzer: NoteAnalyzer) -> [Share] {
        let rate = entry.mix.parts.sampleRate
        let signals = [mono(entry.mix.parts.centred), mono(entry.input), mono(entry.centre)]
        var shares = [Share](repeating: Share(), count: signals.count)
        if entry.mix.leadNotes.isEmpty {
            var end = analyzer.playheadFrameCount
            while end <= signals[0].count {
                if let truth = playheadReport(analyzer, signals[0], endingAt: end).notes.first {
                    for (index, signal) in signals.enumerated() {
                        shares[index].add(playheadReport(analyzer, signal, endingAt: end).notes.first?.midi == truth.midi)
                    }
                }
                end += rate / 4
            }
            return shares
        }
        for note in entry.mix.leadNotes where note.endSeconds - note.startSeconds >= 0.3 {
            let start = Int(note.startSeconds * Double(rate)), end = Int(note.endSeconds * Double(rate))
            for (index, signal) in signals.enumerated() {
                shares[index].add(playheadReport(analyzer, signal, endingAt: (start + end) / 2 + analyzer.playheadFrameCount / 2).notes.first?.midi == note.key)
                shares[index].add(wholeRangeReport(analyzer, signal, start..<end).notes.first?.midi == note.key)
            }
        }
        return shares
    }

    /// The accompaniment's chords, bar by bar over the whole bar: the name's root and quality right,
    /// and the chord's tones among the strongest notes' pitch classes (one more allowed, as
    /// `ChordTally`'s "pcs in top n+1"): from the accompaniment alone, the plain mix, and sides.
    static func chordShares(_ entry: StudioMixSet.Entry, analyzer: NoteAnalyzer) -> (names: [Share], tones: [Share])? {
        guard !entry.mix.chords.isEmpty else { return nil }
        let parts = entry.mix.parts.parts.filter { !$0.isCentred && !$0.name.hasSuffix(" reverb") }.map(\.audio)
        let accompaniment = parts.dropFirst().reduce(parts[0]) { $0 + $1 }
        let signals = [mono(accompaniment), mono(entry.input), mono(entry.sides)]
        let rate = Double(entry.mix.parts.sampleRate)
        var shares = [Share](repeating: Share(), count: signals.count), tones = shares
        for chord in entry.mix.chords {
            let expected = ChordName(parsing: chord.name)!
            let range = Int(chord.startSeconds * rate)..<Int(chord.endSeconds * rate)
            for (index, signal) in signals.enumerated() {
                let report = wholeRangeReport(analyzer, signal, range)
                let named = report.chordName
                shares[index].add(named?.root == expected.root && named?.quality == expected.quality)
                var ranked: [Int] = []
                for note in report.notes where !ranked.contains(note.midi % 12) { ranked.append(note.midi % 12) }
                let wanted = Set((0..<12).filter { expected.pitchClassSet >> $0 & 1 == 1 })
                tones[index].add(wanted.isSubset(of: Set(ranked.prefix(wanted.count + 1))))
            }
        }
        return (shares, tones)
    }

    @Test("the lead's notes and the accompaniment's chords, from the mix, centre and sides")
    func notesAndChords() throws {
        let entries = try StudioMixSet.entries.get()
        let analyzer = NoteAnalyzer(sampleRate: Double(entries[0].mix.parts.sampleRate))
        var lines = ["The note view on the studio mixes: the lead's strongest note right (trumpet: the played key, at the playhead",
                     "mid-note and over the whole note; voice: the key the voice alone gives, every 0.25 s); the chord per bar right (root, quality)",
                     "mix                       | panning      | reverb | lead alone |     mix |  centre | chord name, tones: alone | mix | sides"]
        var trumpetCentre = Share(), trumpetMix = Share(), chordSides = Share(), chordMix = Share()
        var leadCentre = Share(), leadMix = Share()
        for entry in entries {
            let recipe = entry.mix.recipe
            let lead = Self.leadShares(entry, analyzer: analyzer), chords = Self.chordShares(entry, analyzer: analyzer)
            leadMix.right += lead[1].right; leadMix.count += lead[1].count
            leadCentre.right += lead[2].right; leadCentre.count += lead[2].count
            if recipe.lead == .trumpet {
                trumpetMix.right += lead[1].right; trumpetMix.count += lead[1].count
                trumpetCentre.right += lead[2].right; trumpetCentre.count += lead[2].count
            }
            if let chords {
                chordMix.right += chords.tones[1].right; chordMix.count += chords.tones[1].count
                chordSides.right += chords.tones[2].right; chordSides.count += chords.tones[2].count
            }
            let name: String = recipe.name.padding(toLength: 25, withPad: " ", startingAt: 0)
            let panning: String = recipe.panningLabel.padding(toLength: 12, withPad: " ", startingAt: 0)
            let reverb: String = recipe.reverb ? "1.2 s " : "none  "
            let leadText: String = lead[0].text.leftPadded(10) + " | " + lead[1].text + " | " + lead[2].text
            var chordText = "—"
            if let chords { chordText = (0..<3).map { "\(chords.names[$0].right)/\(chords.tones[$0].right) of \(chords.names[$0].count)" }.joined(separator: " | ") }
            lines.append(name + " | " + panning + " | " + reverb + " | " + leadText + " | " + chordText)
        }
        lines.append("all lead notes: mix \(leadMix.text), centre \(leadCentre.text); trumpet notes: mix \(trumpetMix.text), centre \(trumpetCentre.text); chord tones, all bars: mix \(chordMix.text), sides \(chordSides.text)")
        print(lines.joined(separator: "\n"))
        // Over every mix's lead (voices and trumpets): the trumpets alone are 96 notes, where one
        // note is a point, and the reverberant trumpet mix, where `centre` gains least (+1.7 dB),
        // loses one (73 of 96 right in the mix, 72 through `centre`; the voices gain 5–21 points).
        #expect(leadCentre.value >= leadMix.value, "centre names the lead's notes no worse than the plain mix")
        #expect(chordSides.value >= chordMix.value, "sides names the accompaniment's chord tones no worse than the plain mix")
    }
}
