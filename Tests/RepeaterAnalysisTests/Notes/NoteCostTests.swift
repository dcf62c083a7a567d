import Foundation
import RepeaterAnalysis
import Testing

/// Mean and worst of a list of durations, in milliseconds.
private func summary(_ durations: [Duration]) -> (mean: Double, worst: Double) {
    let milliseconds = durations.map { Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000 }
    return (milliseconds.reduce(0, +) / Double(max(1, milliseconds.count)), milliseconds.max() ?? 0)
}

#if DEBUG
private let build = "debug"
// An unoptimised build runs the Swift loops several times slower; the bound only catches a blow-up.
private let playheadBoundMilliseconds = 40.0
#else
private let build = "release"
private let playheadBoundMilliseconds = 4.0
#endif

@Suite("Cost of the note view", .serialized)
struct NoteCostTests {
    /// 10 s of a four-note harmonic chord changing every second, over a little noise (so that the
    /// peak picker sees a realistic number of peaks).
    private func music(sampleRate: Double) -> [Float] {
        let roots = [48, 53, 55, 50, 57, 52, 45, 47, 48, 43]
        var frames: [Float] = []
        for root in roots {
            let chord = [0, 4, 7, 10].map { interval in
                harmonicTone(f0: 440 * pow(2, Double(root + interval - 69) / 12), amplitudes: (1...12).map { 0.06 / Float($0) },
                             frameCount: Int(sampleRate), sampleRate: sampleRate)
            }
            frames += mixed(chord + [whiteNoise(frameCount: Int(sampleRate), amplitude: 0.002, seed: UInt64(root))])
        }
        return frames
    }

    @Test("one playhead analysis takes a few milliseconds; the loop average costs little per block")
    func cost() {
        let rate = 48_000.0
        let frames = music(sampleRate: rate)
        let clock = ContinuousClock()
        let made = clock.measure { _ = NoteAnalyzer(sampleRate: rate) }
        let analyzer = NoteAnalyzer(sampleRate: rate)
        let window = analyzer.playheadFrameCount
        // The playhead view at 10 Hz: a window every 4800 frames.
        var playhead: [Duration] = []
        var named = 0
        frames.withUnsafeBufferPointer { all in
            for end in stride(from: window, through: all.count, by: 4_800) {
                var report = NoteReport.silent
                playhead.append(clock.measure { report = analyzer.analyze(window: UnsafeBufferPointer(rebasing: all[(end - window)..<end])) })
                named += report.notes.count
            }
        }
        // The loop view: the same 10 s added in 10 Hz blocks, then read.
        var blocks: [Duration] = []
        frames.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 4_800) {
                let block = UnsafeBufferPointer(rebasing: all[start..<min(start + 4_800, all.count)])
                blocks.append(clock.measure { analyzer.addToLoop(block) })
            }
        }
        var loopReport = NoteReport.silent
        var reads: [Duration] = []
        for _ in 0..<5 { reads.append(clock.measure { loopReport = analyzer.loopReport() }) }
        let p = summary(playhead), b = summary(blocks), r = summary(reads)
        print(["", "note view cost, \(build) build, 48 kHz, 10 s of 4-note chords over noise (per call, ms)",
               "call                                      | calls | mean   | worst",
               String(format: "init (2 FFTW plans, buffers)              | %5d | %6.2f | %6.2f", 1, summary([made]).mean, summary([made]).mean),
               String(format: "analyze(window:) 8192 frames              | %5d | %6.2f | %6.2f", playhead.count, p.mean, p.worst),
               String(format: "addToLoop 4800-frame block                | %5d | %6.3f | %6.2f", blocks.count, b.mean, b.worst),
               String(format: "loopReport() after 10 s                   | %5d | %6.2f | %6.2f", reads.count, r.mean, r.worst),
               String(format: "10 Hz view (one analysis and one block per 100 ms): %.2f %% of one core", p.mean + b.mean)].joined(separator: "\n"))
        #expect(named > 0 && !loopReport.notes.isEmpty)
        #expect(p.mean < playheadBoundMilliseconds, "mean playhead analysis \(p.mean) ms")
        #expect(b.mean < playheadBoundMilliseconds, "mean loop block \(b.mean) ms")
    }
}
