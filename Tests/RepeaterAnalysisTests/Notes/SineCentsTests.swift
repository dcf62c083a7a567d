import Foundation
import RepeaterAnalysis
import Testing

@Suite("Cents of a pure sine")
struct SineCentsTests {
    @Test("A4 detuned −40 … +40 cents reads within ±3 cents, at the playhead and over the loop", arguments: [48_000.0, 44_100.0])
    func detunedA4(sampleRate: Double) {
        let analyzer = NoteAnalyzer(sampleRate: sampleRate)
        var worstPlayhead: Float = 0, worstLoop: Float = 0
        var rows: [String] = []
        for cents in stride(from: -40, through: 40, by: 5) {
            let frequency = 440 * pow(2, Double(cents) / 1200)
            let tone = sine(frequencyHz: frequency, amplitude: 0.25, frameCount: Int(sampleRate), sampleRate: sampleRate, phase: 0.3)
            let playhead = analyzer.analyze(window: tone)
            let loop = wholeRangeReport(analyzer, tone, 0..<tone.count)
            #expect(playhead.notes.first?.name == "A4")
            #expect(loop.notes.first?.name == "A4")
            let playheadError = (playhead.notes.first?.cents ?? 99) - Float(cents)
            let loopError = (loop.notes.first?.cents ?? 99) - Float(cents)
            worstPlayhead = max(worstPlayhead, abs(playheadError))
            worstLoop = max(worstLoop, abs(loopError))
            #expect(abs(playheadError) <= 3 && abs(loopError) <= 3, "\(cents) ¢: read \(playhead.notes.first?.cents ?? .nan) / \(loop.notes.first?.cents ?? .nan)")
            #expect(playhead.chord == nil && loop.chord == nil)
            rows.append(String(format: "%+4d ¢ | %+7.3f | %+7.3f", cents, playhead.notes.first?.cents ?? .nan, loop.notes.first?.cents ?? .nan))
        }
        print("\nA4 sine at \(Int(sampleRate)) Hz: set cents | read at the playhead | read over the loop\n" + rows.joined(separator: "\n")
            + String(format: "\nworst error: playhead %.3f ¢, loop %.3f ¢", worstPlayhead, worstLoop))
    }

    @Test("sines from A0 to C8, detuned ±25 cents, read within ±3 cents")
    func acrossTheRange() {
        let analyzer = NoteAnalyzer(sampleRate: 48_000)
        var table = "\nsine | set ¢ | playhead ¢ | loop ¢"
        for midi in [21, 24, 28, 33, 40, 45, 52, 57, 64, 69, 76, 81, 88, 93, 100, 105, 108] {
            for cents in [-25, 0, 25] {
                let frequency = 440 * pow(2, (Double(midi - 69) + Double(cents) / 100) / 12)
                let tone = sine(frequencyHz: frequency, amplitude: 0.25, frameCount: 48_000, phase: 1.1)
                let playhead = analyzer.analyze(window: tone)
                let loop = wholeRangeReport(analyzer, tone, 0..<tone.count)
                for report in [playhead, loop] {
                    #expect(report.notes.first?.midi == midi)
                    #expect(abs((report.notes.first?.cents ?? 99) - Float(cents)) <= 3, "MIDI \(midi) \(cents) ¢: \(report.notes.first?.cents ?? .nan)")
                }
                table += String(format: "\n%4@ | %+4d | %+8.3f | %+8.3f", NoteSpelling.common.name(midi: midi), cents,
                                playhead.notes.first?.cents ?? .nan, loop.notes.first?.cents ?? .nan)
            }
        }
        print(table)
    }
}
