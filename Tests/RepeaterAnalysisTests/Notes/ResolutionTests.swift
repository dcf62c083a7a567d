import Foundation
import RepeaterAnalysis
import Testing

@Suite("Resolution: two notes a semitone apart")
struct ResolutionTests {
    @Test("the lowest semitone pair each view separates")
    func semitonePairs() {
        let analyzer = NoteAnalyzer(sampleRate: 48_000)
        var rows: [String] = []
        var lowestPlayhead = 200, lowestLoop = 200
        for key in stride(from: 95, through: 21, by: -1) {
            let tones = [key, key + 1].map { sine(frequencyHz: 440 * pow(2, Double($0 - 69) / 12), amplitude: 0.2, frameCount: 48_000, phase: Double($0)) }
            let pair = mixed(tones)
            let playhead = analyzer.analyze(window: pair), loop = wholeRangeReport(analyzer, pair, 0..<pair.count)
            let want: Set = [key, key + 1]
            let playheadOK = Set(playhead.notes.map(\.midi)) == want, loopOK = Set(loop.notes.map(\.midi)) == want
            if playheadOK && lowestPlayhead == key + 1 || lowestPlayhead == 200 && playheadOK { lowestPlayhead = key }
            if loopOK && lowestLoop == key + 1 || lowestLoop == 200 && loopOK { lowestLoop = key }
            rows.append("\(NoteSpelling.common.name(midi: key))+\(NoteSpelling.common.name(midi: key + 1)): playhead \(playheadOK ? "yes" : "no ") loop \(loopOK ? "yes" : "no ")")
        }
        print("\nsemitone pairs of sines, both named (48 kHz):\n" + rows.reversed().joined(separator: "\n")
            + "\nevery pair from \(NoteSpelling.common.name(midi: lowestPlayhead)) up at the playhead, from \(NoteSpelling.common.name(midi: lowestLoop)) up over the loop")
        // Two Hann-window bins apart: 11.7 Hz at the playhead (F3–F#3 is 10.4 Hz), 2.9 Hz over the loop (G1–Ab1).
        #expect(lowestPlayhead <= 55, "the playhead separates semitones only from \(lowestPlayhead)")
        #expect(lowestLoop <= 33, "the loop separates semitones only from \(lowestLoop)")
    }
}
