import Foundation
import RepeaterEngine
import RTCheck
import Testing

/// Runs a mono signal through a stretcher in 256-frame output cycles (as JACK would ask), feeding
/// silence after the signal until `outputFrames` are out.
func stretch(_ input: [Float], kind: Stretcher.Kind, timeRatio: Double, pitchScale: Double, outputFrames: Int,
             countRealTime: Bool = false, change: ((inout Stretcher, Int) -> Void)? = nil) -> [Float] {
    var stretcher = Stretcher(kind: kind, sampleRate: 48_000, channelCount: 1, timeRatio: timeRatio, pitchScale: pitchScale)
    return stretch(input, with: &stretcher, outputFrames: outputFrames, countRealTime: countRealTime, change: change)
}

/// The same through a stretcher made (or re-armed) by the caller.
func stretch(_ input: [Float], with stretcher: inout Stretcher, outputFrames: Int,
             countRealTime: Bool = false, change: ((inout Stretcher, Int) -> Void)? = nil) -> [Float] {
    let feed = UnsafeMutablePointer<Float>.allocate(capacity: 8192)
    let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
    var feedPointer = feed, outPointer = out
    defer { feed.deallocate(); out.deallocate() }
    var output: [Float] = []
    output.reserveCapacity(outputFrames + 256)
    var position = 0
    var cycle = 0
    while output.count < outputFrames {
        if countRealTime { rtcheck_enter() }
        change?(&stretcher, cycle)
        var produced = 0
        var guardCount = 0
        while produced < 256 && guardCount < 64 {
            guardCount += 1
            let ready = stretcher.available()
            if ready > 0 {
                produced += withUnsafePointer(to: &outPointer) { stretcher.retrieve(into: $0, offset: produced, frameCount: min(ready, 256 - produced)) }
                continue
            }
            let needed = stretcher.samplesRequired()
            for i in 0..<needed { feed[i] = position + i < input.count ? input[position + i] : 0 }
            position += needed
            withUnsafePointer(to: &feedPointer) { stretcher.process($0, offset: 0, frameCount: needed) }
        }
        if countRealTime { rtcheck_leave() }
        output.append(contentsOf: UnsafeBufferPointer(start: out, count: produced))
        cycle += 1
    }
    return output
}

/// The frequency of a steady tone, from the mean distance of its upward zero crossings (with linear
/// interpolation) in `range`.
func measuredFrequency(_ samples: [Float], in range: Range<Int>, sampleRate: Double = 48_000) -> Double {
    var crossings: [Double] = []
    for n in (range.lowerBound + 1)..<range.upperBound where samples[n - 1] < 0 && samples[n] >= 0 {
        crossings.append(Double(n - 1) + Double(-samples[n - 1] / (samples[n] - samples[n - 1])))
    }
    guard crossings.count > 2 else { return 0 }
    return sampleRate * Double(crossings.count - 1) / (crossings.last! - crossings.first!)
}

/// The frame after the last one louder than `threshold`.
func soundingLength(_ samples: [Float], threshold: Float = 0.05) -> Int {
    (samples.lastIndex { abs($0) > threshold } ?? -1) + 1
}

@Suite("Rubber Band stretcher (issue 4 groundwork)")
struct StretcherTests {
    static let seconds = 6.0
    static let sine: [Float] = (0..<Int(seconds * 48_000)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }

    @Test("R3 (finer): speed changes keep a 440 Hz sine at 440 ± 1 Hz and scale its length by 1/speed within 0.5 %",
          arguments: [Stretcher.Kind.finer], [0.5, 0.8, 1.25, 2.0])
    func speed(kind: Stretcher.Kind, speed: Double) {
        let expectedLength = Self.seconds * 48_000 / speed
        let output = stretch(Self.sine, kind: kind, timeRatio: 1 / speed, pitchScale: 1, outputFrames: Int(expectedLength) + 48_000)
        let middle = Int(expectedLength * 0.2)..<Int(expectedLength * 0.8)
        let frequency = measuredFrequency(output, in: middle)
        #expect(abs(frequency - 440) <= 1, "\(kind) at speed \(speed): \(frequency) Hz")
        let length = Double(soundingLength(output))
        #expect(abs(length / expectedLength - 1) <= 0.005, "\(kind) at speed \(speed): \(length) frames, want \(expectedLength)")
    }

    @Test("R3 (finer): pitch +12 gives 880 ± 2 Hz and −7 gives 293.7 ± 1.5 Hz at unchanged length",
          arguments: [Stretcher.Kind.finer], [(12.0, 880.0, 2.0), (-7.0, 293.66, 1.5)])
    func pitch(kind: Stretcher.Kind, shift: (semitones: Double, hz: Double, tolerance: Double)) {
        let scale = pow(2, shift.semitones / 12)
        let expectedLength = Self.seconds * 48_000
        let output = stretch(Self.sine, kind: kind, timeRatio: 1, pitchScale: scale, outputFrames: Int(expectedLength) + 48_000)
        let frequency = measuredFrequency(output, in: Int(expectedLength * 0.2)..<Int(expectedLength * 0.8))
        #expect(abs(frequency - shift.hz) <= shift.tolerance, "\(kind) at \(shift.semitones) st: \(frequency) Hz")
        #expect(abs(Double(soundingLength(output)) / expectedLength - 1) <= 0.005)
    }

    /// R2 does not hold ±1 Hz on a pure sine: measured here (spectral peak over 2 s) 435.4, 437.7,
    /// 447.5 and 434.4 Hz at speeds 0.5, 0.8, 1.25 and 2.0 with the real-time, pitch-high-consistency
    /// options. Its phase vocoder spreads a lone partial's energy over neighbouring bins at these hop
    /// ratios. That keeps it off the default; this test guards the measured envelope (±2 %) and the
    /// length, which R2 does keep.
    @Test("R2 (faster): within 2 % of 440 Hz and 0.5 % of the length (it misses the ±1 Hz bar: not the default)",
          arguments: [0.5, 0.8, 1.25, 2.0])
    func fasterEnvelope(speed: Double) {
        let expectedLength = Self.seconds * 48_000 / speed
        let output = stretch(Self.sine, kind: .faster, timeRatio: 1 / speed, pitchScale: 1, outputFrames: Int(expectedLength) + 48_000)
        let frequency = measuredFrequency(output, in: Int(expectedLength * 0.2)..<Int(expectedLength * 0.8))
        #expect(abs(frequency - 440) <= 8.8, "R2 at speed \(speed): \(frequency) Hz")
        #expect(abs(Double(soundingLength(output)) / expectedLength - 1) <= 0.005)
    }

    @Test("processing from the first chunk on, with a continuous speed sweep, allocates nothing and takes no lock", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"), arguments: Stretcher.Kind.allCases)
    func realTimeSafety(kind: Stretcher.Kind) throws {
        let sweep: (inout Stretcher, Int) -> Void = { stretcher, cycle in
            let phase = Double(cycle % 200) / 200
            stretcher.setRatios(time: 1 / (0.5 + phase), pitch: 1)
        }
        // What a process does once, the first time any stretcher of this kind sweeps (R2's shared
        // tables: 3 allocations, 1 free, when this test ran before every other R2 test), is not the
        // stretcher's: the player does it in its warm-up (`Engine.warmUpStretchingOnce`) before the
        // audio thread stretches. A throwaway stretcher through the same sweep does it here,
        // uncounted; the counted one is new and starts from its first chunk.
        _ = stretch(Self.sine, kind: kind, timeRatio: 1, pitchScale: 1, outputFrames: 4 * 48_000, change: sweep)
        rtcheck_thread_reset()
        _ = stretch(Self.sine, kind: kind, timeRatio: 1, pitchScale: 1, outputFrames: 4 * 48_000, countRealTime: true, change: sweep)
        let counts = rtcheck_thread_counts()
        // 3.1.2 allocates resampler state on its first real chunk: `Stretcher.init` runs that chunk
        // (on silence) on the constructing thread, so none is left for the audio thread.
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees)")
    }
}

@Suite("Rubber Band stretchers reused")
struct StretcherReuseTests {
    /// The supply keeps used stretchers and re-arms them instead of building new ones (memory stays
    /// as it is, and no page the audio thread touches is new). A re-armed stretcher must be a new one
    /// in all but its allocations: the same output, sample for sample, after it ran another signal at
    /// other ratios (a speed sweep, and pitch jumps); and re-arming keeps no new memory.
    @Test("a re-armed stretcher renders exactly what a new one renders, and re-arming keeps no new memory", arguments: Stretcher.Kind.allCases, [false, true])
    func rearmedIsNew(kind: Stretcher.Kind, consistent: Bool) {
        let pitch = consistent ? pow(2, 3 / 12.0) : 1
        var fresh = Stretcher(kind: kind, sampleRate: 48_000, channelCount: 1, timeRatio: 1 / 0.8, pitchScale: pitch,
                              pitchConsistent: consistent)
        let expected = stretch(StretcherTests.sine, with: &fresh, outputFrames: 2 * 48_000)
        var used = Stretcher(kind: kind, sampleRate: 48_000, channelCount: 1, timeRatio: 1 / 1.3, pitchScale: 1,
                             pitchConsistent: consistent)
        let other = (0..<48_000).map { (n: Int) -> Float in
            let t = Double(n)
            return Float(sin(t * 0.37) * 0.2 + sin(t * 0.0123) * 0.3)
        }
        _ = stretch(other, with: &used, outputFrames: 48_000) { stretcher, cycle in
            let speed = 0.6 + Double(cycle % 50) / 50
            let shift: Double = consistent ? pow(2, Double(cycle % 7 - 3) / 12) : 1
            stretcher.setRatios(time: 1 / speed, pitch: shift)
        }
        rtcheck_thread_reset()
        rtcheck_enter()
        used.rearm(timeRatio: 1 / 0.8, pitchScale: pitch)
        rtcheck_leave()
        let counts = rtcheck_thread_counts()
        if rtcheck_available() == 1 {
            // Nothing kept: Rubber Band's reconfiguration frees every temporary it allocates (8–13 on
            // the control thread); the buffers it had are the buffers it uses.
            #expect(counts.allocs == counts.frees, "re-arming allocated \(counts.allocs) times and freed \(counts.frees)")
        }
        let reused = stretch(StretcherTests.sine, with: &used, outputFrames: 2 * 48_000)
        let differing = zip(expected, reused).filter { $0 != $1 }.count
        let first = expected.indices.first { expected[$0] != reused[$0] } ?? -1
        #expect(reused.count == expected.count && differing == 0, "\(kind), consistent \(consistent): \(differing) samples differ, the first at \(first)")
    }
}

@Suite("Rubber Band pitch changes")
struct StretcherPitchAllocationTests {
    /// Rubber Band 3.1.2 rebuilds its resampler for each new pitch ratio, and grows its tables when a
    /// ratio needs more room. Every pitch handed to it is a fraction the prepared tables hold
    /// (`Stretcher.pitchScale`), so sweeps, glides and jumps anywhere in ±24 semitones allocate nothing.
    @Test("pitch sweeps, glides and jumps over ±24 semitones: no allocation, no lock", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"), arguments: Stretcher.Kind.allCases)
    func pitchSweep(kind: Stretcher.Kind) throws {
        var generator = SplitMix64(seed: 7)
        let jumps = (0..<400).map { _ in Double(Int(generator.next() % 4801)) - 2400 }
        rtcheck_thread_reset()
        _ = stretch(StretcherTests.sine, kind: kind, timeRatio: 1, pitchScale: 1, outputFrames: 6 * 48_000, countRealTime: true) { stretcher, cycle in
            let cents: Double
            switch cycle / 375 {
            case 0: cents = Double((cycle * 3) % 1200) - 600           // a sweep in 3-cent steps
            case 1: cents = Double(cycle % 375) * 12.8 - 2400          // a glide over the whole range
            default: cents = jumps[cycle % jumps.count]                 // jumps anywhere
            }
            stretcher.setRatios(time: 1, pitch: pow(2, cents / 1200) * (cycle % 2 == 0 ? 1 : 44_100.0 / 48_000))
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
    }

    @Test("the pitch handed to Rubber Band is within a tenth of a cent of the one asked for, a fraction whose numerator fits the prepared tables")
    func pitchFractions() {
        var worst = 0.0
        for cents in stride(from: -2400, through: 2400, by: 1) {
            for base in [1.0, 44_100.0 / 48_000, 48_000.0 / 44_100, 22_050.0 / 48_000, 96_000.0 / 48_000] {
                let pitch = base * pow(2, Double(cents) / 1200)
                let scale = Stretcher.pitchScale(pitch)
                worst = max(worst, abs(scale / pitch - 1))
                let fraction = Stretcher.resamplerFraction(pitch)
                #expect(fraction.numerator <= 38_400 && fraction.denominator <= 9600, "\(pitch): \(fraction)")
            }
        }
        #expect(worst < 5e-5, "worst relative error \(worst)")  // 0.09 cent; measured 2.6e-5 (0.045 cent)
    }
}
