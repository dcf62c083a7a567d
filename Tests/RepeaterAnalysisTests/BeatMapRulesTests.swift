@testable import RepeaterAnalysis
import Testing

/// The rules applied to the library's output, on made-up inputs with known answers.
@Suite("Beat map rules")
struct BeatMapRulesTests {
    @Test("a steady beat with ±1-step jitter is one tempo, found within 0.2 %")
    func steadyTempo() {
        // 120 BPM at 44.1 kHz: 22 050 frames a beat, each beat 0–511 frames off (one step).
        let frames = (0..<100).map { $0 * 22_050 + ($0 * 7919) % 512 }
        let changes = TempoMap.changes(beatFrames: frames, sampleRate: 44_100)
        #expect(changes.count == 1)
        #expect(abs(changes[0].bpm - 120) < 0.24)
        #expect(changes[0].startFrame == frames[0])
    }

    @Test("a tempo change is found at its beat, with both tempos")
    func tempoChange() {
        var frames = (0..<40).map { $0 * 26_460 }  // 100 BPM
        let last = frames.last!
        frames += (1...40).map { last + $0 * 20_354 }  // 130 BPM
        let changes = TempoMap.changes(beatFrames: frames, sampleRate: 44_100)
        print(changes)
        #expect(changes.count == 2)
        #expect(abs(changes[0].bpm - 100) < 0.05 && abs(changes[1].bpm - 130) < 0.05)
        #expect(abs(changes[1].startFrame - frames[39]) <= 4 * 26_460)
        #expect(TempoMap.mainTempo(changes, endFrame: frames.last!) == changes[0].bpm)
    }

    @Test("bar lines follow the strongest phase, move with a lost beat when the evidence persists, and ignore one odd beat")
    func barLines() {
        // Change into each beat: 2 at bar lines (every 4th beat from beat 0), 0 elsewhere; after
        // beat 40 the tracker "lost" a beat, so the bar lines fall on 43, 47, …
        var evidence = [Double](repeating: 0, count: 80)
        for beat in 1..<81 where (beat < 41 ? beat % 4 == 0 : (beat - 43) % 4 == 0) { evidence[beat - 1] = 2 }
        evidence[21] = 3  // one strong change on an off-beat (beat 22)
        let downbeats = BarFinder.downbeats(spectralDifference: evidence, beatCount: 81, beatsPerBar: 4)
        #expect(downbeats.filter { $0 < 40 } == Array(stride(from: 0, to: 40, by: 4)))
        #expect(downbeats.filter { $0 > 44 } == Array(stride(from: 47, to: 81, by: 4)))
        #expect(!downbeats.contains(22))
    }

    @Test("the meter with the clearer phase contrast wins: 3 for a waltz's changes, 4 for a march's")
    func meterContrast() {
        func changes(every bar: Int) -> [Double] {
            (1...90).map { (beat: Int) -> Double in beat % bar == 0 ? 2 : Double(beat % 2) / 10 }
        }
        let waltz = changes(every: 3), march = changes(every: 4)
        #expect(BarFinder.contrast(spectralDifference: waltz, beatsPerBar: 3) > BarFinder.contrast(spectralDifference: waltz, beatsPerBar: 4))
        #expect(BarFinder.contrast(spectralDifference: march, beatsPerBar: 4) > BarFinder.contrast(spectralDifference: march, beatsPerBar: 3))
    }

    @Test("the octave rule halves a pulse whose every other point is weak or that is faster than 200 BPM, doubles a slow one whose midpoints are as strong, and keeps busy eighths at a moderate tempo")
    func octave() {
        // Onsets every 40 values (129 BPM at 11.61 ms a value); tracked beats every 20 (258 BPM:
        // halve), every 80 (65 BPM with midpoints as strong: double), every 40 (keep).
        let step = 0.01161
        let df = (0..<4000).map { $0 % 40 == 0 ? 10.0 : 0.1 }
        func evidence(_ period: Int, in df: [Double]) -> TempoOctave.Evidence {
            TempoOctave.evidence(detectionFunction: df, beats: stride(from: 0, to: 4000, by: period).map(Double.init), stepSeconds: step)
        }
        #expect(evidence(20, in: df).choice == .halve)
        #expect(evidence(80, in: df).choice == .double)
        #expect(evidence(40, in: df).choice == .keep)
        #expect(abs(evidence(80, in: df).chosenBPM - 2 * evidence(80, in: df).trackedBPM) < 1e-9)
        // Eighths as strong as the beats at 129 BPM: a listener taps 129, not 258.
        let eighths = (0..<4000).map { $0 % 20 == 0 ? 10.0 : 0.1 }
        #expect(evidence(40, in: eighths).choice == .keep)
        #expect(evidence(40, in: eighths).alternativeBPM > 250)
        // Equal beats at 258 BPM: halved all the same (nobody taps that fast).
        #expect(evidence(20, in: eighths).choice == .halve)
        // The hi-hat ballad: every other tracked beat at 0.15 of the others: halved, and sure of it.
        let ballad = (0..<4000).map { $0 % 40 == 0 ? 10.0 : $0 % 20 == 0 ? 1.5 : 0.1 }
        let halved = evidence(20, in: ballad)
        #expect(halved.choice == .halve)
        #expect(halved.confidence > 0.5)
    }

    @Test("confidence: 0 between two equally usual octaves with no accents to tell them apart, high for a usual tempo with clear accents")
    func confidence() {
        #expect(TempoOctave.confidence(chosenBPM: 80, alternativeBPM: 160, evidenceMargin: 0) < 0.05)
        #expect(TempoOctave.confidence(chosenBPM: 120, alternativeBPM: 60, evidenceMargin: 1) > 0.75)
        #expect(TempoOctave.confidence(chosenBPM: 120, alternativeBPM: 60, evidenceMargin: 1) <= 1)
    }

    @Test("pulse clarity: 1 for a perfectly periodic onset function at its period, about 0 off it and for noise")
    func pulseClarity() {
        let periodic = (0..<3000).map { $0 % 43 == 0 ? 5.0 : 0.2 }
        #expect(PulseClarity.at(lag: 43, detectionFunction: periodic) > 0.95)
        #expect(PulseClarity.at(lag: 30, detectionFunction: periodic) < 0.05)
        var seed: UInt64 = 99
        let noise = (0..<3000).map { _ -> Double in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 40) / Double(1 << 24)
        }
        #expect(PulseClarity.at(lag: 43, detectionFunction: noise) < PulseClarity.minimum)
        #expect(PulseClarity.at(lag: 43, detectionFunction: [Double](repeating: 1, count: 3000)) == 0)
    }
}
