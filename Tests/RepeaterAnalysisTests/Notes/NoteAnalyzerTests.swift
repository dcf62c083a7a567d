import Foundation
import RepeaterAnalysis
import Testing

@Suite("Note analyser: what it reports for what it is given")
struct NoteAnalyzerTests {
    let rate = 48_000.0

    @Test("the playhead window is the smallest power of two of at least 150 ms; the loop's is 4 times that")
    func windows() {
        for (rate, frames) in [(44_100.0, 8192), (48_000.0, 8192), (96_000.0, 16_384), (22_050.0, 4096)] {
            let analyzer = NoteAnalyzer(sampleRate: rate)
            #expect(analyzer.playheadFrameCount == frames)
            #expect(analyzer.loopWindowFrameCount == 4 * frames)
        }
    }

    @Test("silence, and too few frames, report nothing")
    func silence() {
        let analyzer = NoteAnalyzer(sampleRate: rate)
        for report in [analyzer.analyze(window: [Float](repeating: 0, count: 8192)), analyzer.analyze(window: sine(frequencyHz: 440, frameCount: 1000)),
                       analyzer.loopReport(), wholeRangeReport(analyzer, [Float](repeating: 0, count: 96_000), 0..<96_000)] {
            #expect(report.notes.isEmpty)
            #expect(report.chord == nil)
            #expect(report.keyLevels.count == 88)
            #expect(report.keyLevels.allSatisfy { $0 == NoteReport.floorDB })
        }
    }

    @Test("white noise names no note and no chord")
    func noise() {
        let analyzer = NoteAnalyzer(sampleRate: rate)
        for seed in 1...10 as ClosedRange<UInt64> {
            let noise = whiteNoise(frameCount: 48_000, seed: seed)
            let playhead = analyzer.analyze(window: noise), loop = wholeRangeReport(analyzer, noise, 0..<noise.count)
            #expect(playhead.notes.isEmpty && loop.notes.isEmpty, "seed \(seed): \(describe(playhead.notes)) / \(describe(loop.notes))")
            #expect(playhead.chord == nil && loop.chord == nil)
            // It shows on the keys: a peak every 3 bins (8.8 Hz) lights most keys above C3 and some below.
            #expect(playhead.keyLevels.filter { $0 > NoteReport.floorDB }.count > 40)
        }
    }

    @Test("a sine is one note, its key level is its own level, and its harmonics do not become notes")
    func sineLevels() {
        let analyzer = NoteAnalyzer(sampleRate: rate)
        let tone = sine(frequencyHz: 440, amplitude: 0.5, frameCount: 48_000)
        let report = analyzer.analyze(window: tone)
        #expect(report.notes.map(\.name) == ["A4"])
        #expect(abs(report.level(ofKey: 69) - (-6.02)) < 0.3, "A4 at amplitude 0.5 reads \(report.level(ofKey: 69)) dB")
        #expect(abs((report.notes.first?.levelDB ?? 0) - (-6.02)) < 0.3)
        #expect(abs((report.notes.first?.frequencyHz ?? 0) - 440) < 0.02)
        #expect(report.keyLevels.filter { $0 > -60 }.count == 1)
        // A sawtooth-like tone: 10 harmonics at 1/m, so the overtones are loud keys but not notes.
        let saw = harmonicTone(f0: 110, amplitudes: (1...10).map { 0.3 / Float($0) }, frameCount: 48_000)
        let sawReport = analyzer.analyze(window: saw)
        #expect(sawReport.notes.map(\.name) == ["A2"])
        #expect(sawReport.chord == nil)
        for m in 1...10 { #expect(sawReport.level(ofKey: 45 + Int((12 * log2(Double(m))).rounded())) > -35) }
    }

    @Test("an E1 with a weak fundamental is E1, not E2")
    func missingFundamental() {
        let analyzer = NoteAnalyzer(sampleRate: rate)
        let tone = harmonicTone(f0: 41.2034, amplitudes: (1...12).map { $0 == 1 ? 0.005 : 0.2 / Float($0) }, frameCount: 48_000)
        #expect(analyzer.analyze(window: tone).notes.first?.name == "E1")
        #expect(wholeRangeReport(analyzer, tone, 0..<tone.count).notes.first?.name == "E1")
    }

    @Test("a window shorter than the playhead's is analysed as it is; a longer one by its last frames")
    func windowLengths() {
        let analyzer = NoteAnalyzer(sampleRate: rate)
        #expect(analyzer.analyze(window: sine(frequencyHz: 440, frameCount: 4096)).notes.first?.name == "A4")
        // 1 s of A4 then 0.2 s of C5: the playhead hears C5.
        let both = sine(frequencyHz: 440, frameCount: 48_000) + sine(frequencyHz: 523.25, frameCount: 9_600)
        #expect(analyzer.analyze(window: both).notes.map(\.name) == ["C5"])
    }

    @Test("the loop average hears every note of the loop, and reset forgets them")
    func loopAverage() {
        let analyzer = NoteAnalyzer(sampleRate: rate)
        // A loop of C4, E4, G4 one after the other, 0.5 s each, played twice in blocks of 4800 frames.
        let pass = [261.63, 329.63, 392.0].flatMap { sine(frequencyHz: $0, amplitude: 0.3, frameCount: 24_000) }
        let loop = wholeRangeReport(analyzer, pass + pass, 0..<(2 * pass.count))
        #expect(Set(loop.notes.map(\.name)) == ["C4", "E4", "G4"])
        #expect(loop.chord == "C")
        #expect(loop.chordName == ChordName(root: 0, quality: .major))
        #expect(analyzer.loopFrameCount == 2 * pass.count)
        analyzer.resetLoop()
        #expect(analyzer.loopFrameCount == 0)
        #expect(analyzer.loopReport().notes.isEmpty)
        // A new loop shorter than one loop window (0.3 s < 683 ms) is still reported.
        let short = sine(frequencyHz: 220, amplitude: 0.3, frameCount: 14_400)
        analyzer.addToLoop(short)
        #expect(analyzer.loopReport().notes.map(\.name) == ["A3"])
    }

    @Test("names follow the spelling asked for")
    func spelling() {
        let tone = sine(frequencyHz: 466.16, frameCount: 8192)  // A#4 / Bb4
        #expect(NoteAnalyzer(sampleRate: rate).analyze(window: tone).notes.first?.name == "Bb4")
        #expect(NoteAnalyzer(sampleRate: rate, spelling: .sharps).analyze(window: tone).notes.first?.name == "A#4")
        #expect(NoteSpelling.common.name(midi: 21) == "A0" && NoteSpelling.common.name(midi: 108) == "C8")
        #expect(NoteSpelling.flats.name(midi: 61) == "Db4" && NoteSpelling.sharps.name(midi: 0) == "C-1")
    }

    @Test("two analysers on two threads give the same reports as one")
    func concurrentAnalysers() async {
        let chord = mixed([261.63, 329.63, 392.0].map { sine(frequencyHz: $0, amplitude: 0.2, frameCount: 8192) })
        let expected = NoteAnalyzer(sampleRate: rate).analyze(window: chord)
        await withTaskGroup(of: NoteReport.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    let analyzer = NoteAnalyzer(sampleRate: 48_000)
                    var last = NoteReport.silent
                    for _ in 0..<20 { last = analyzer.analyze(window: chord) }
                    return last
                }
            }
            for await report in group { #expect(report == expected) }
        }
        #expect(expected.chord == "C")
    }
}
