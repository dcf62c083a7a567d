import Foundation
@testable import RepeaterEngine
import Testing

/// `centre` and the precedence effect (`Precedence`): a sound keeps the direction it began with
/// while it holds its bins.
@Suite("Precedence: a note keeps the direction of its onset through its room")
struct PrecedenceTests {
    /// Measured: the note that began in the middle −5.7 dB (the held masks ease toward the frame's
    /// own over 3 s; without the precedence −42.4 dB), the one that began aside −49.8 dB.
    @Test("a note that begins in the middle stays in centre when its room pulls it 3 dB aside; one that begins 3 dB aside does not")
    func noteKeepsItsOnset() {
        let rate = 48_000.0, count = 3 * 48_000, start = 48_000, end = 48_000 + Int(1.2 * 48_000)
        // Two sustained notes from 1 s to 2.2 s. The first arrives in the middle (the direct sound),
        // and its "room" builds up over 0.1 s to leave the right channel 3.1 dB below the left, as a
        // stereo reverb's two tails leave a sustained harmonic off the middle. The second is panned
        // to the same 3.1 dB from its first frame.
        // Around them, the accompaniment: a part panned +0.4 (5.9 dB aside: the tolerances follow
        // it) between the two, from the start.
        var left = [Float](repeating: 0, count: count), right = left
        for i in 0..<count {
            let part = 0.2 * sin(2 * Double.pi * 1_170 * Double(i) / rate)
            left[i] = Float(part * cos(1.4 * Double.pi / 4))
            right[i] = Float(part * sin(1.4 * Double.pi / 4))
        }
        for i in start..<end {
            let t = Double(i - start) / rate
            let room = 1 - (1 - 0.7) * (1 - exp(-t / 0.1))
            let centred = 0.3 * sin(2 * Double.pi * 880 * Double(i) / rate)
            let aside = 0.3 * sin(2 * Double.pi * 1_500 * Double(i) / rate)
            left[i] += Float(centred + aside)
            right[i] += Float(centred * room + aside * 0.7)
        }
        let centre = isolate([left, right], mode: .centre)
        let sustain = (start + 14_400)..<(end - 2_400)  // from 0.3 s into the notes
        // Against (L + R)/2 of each note over the same span: 0.3 × (1 + 0.7)/2.
        let mid = decibels(0.3 * (1 + 0.7) / 2)
        func through(_ frequency: Double) -> Double {
            (toneLevel(centre[0], sustain, frequency) + toneLevel(centre[1], sustain, frequency)) / 2 - mid
        }
        let kept = through(880), taken = through(1_500)
        print("centre over the sustain, against (L+R)/2: the note that began in the middle \(String(format: "%.1f", kept)) dB, the one that began 3.1 dB aside \(String(format: "%.1f", taken)) dB")
        #expect(kept > -8, "the note that began in the middle is kept")
        #expect(taken < -30, "the note that began aside is taken down")
    }
}
