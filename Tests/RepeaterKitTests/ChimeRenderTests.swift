import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("Minute repeater, rendered")
struct ChimeRenderTests {
    @Test("a rendered 3:47: onsets fall on the scheduled frames and low and high tell apart by spectrum", arguments: [48_000, 44_100])
    func rendered347(rate: Int) throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("chime.wav")
        try ChimeRunner(hour: 3, minute: 47).render(to: path, sampleRate: rate)
        let (info, samples) = try readAll(path)
        #expect(info.channelCount == 2 && info.sampleRate == rate)
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
        #expect(left == right)  // centred
        let schedule = ChimeSchedule(hour: 3, minute: 47, sampleRate: rate)
        let onsets = detectOnsets(left)
        #expect(onsets.count == schedule.count)
        for (found, strike) in zip(onsets, schedule.strikes) { #expect(abs(found - strike.frame) <= 1) }
        for strike in schedule.strikes {
            let window = left[strike.frame..<(strike.frame + 4096)]
            let low = power(of: Gongs.lowHz, in: window, sampleRate: rate), high = power(of: Gongs.highHz, in: window, sampleRate: rate)
            #expect((strike.kind == .high) == (high > low), "strike at \(strike.frame): 440 Hz \(low), 660 Hz \(high)")
        }
        let peak = left.reduce(0) { max($0, abs($1)) }
        #expect(peak < 1)  // overlapping strikes do not clip
        #expect(info.frameCount == schedule.onset(schedule.count - 1) + 3 * rate)  // ends when the last gong has died away
    }

    @Test("the synthesized gongs peak at -6 dBFS and ring about 2 s")
    func gongShape() {
        for frequency in [Gongs.lowHz, Gongs.highHz] {
            let gong = Gongs.synthesize(fundamental: frequency, sampleRate: 48_000)
            let peak = gong.reduce(0) { max($0, abs($1)) }
            #expect(abs(20 * log10(Double(peak)) + 6.02) < 0.01)
            func rms(_ from: Int) -> Double { sqrt(gong[from..<(from + 4800)].reduce(0) { $0 + Double($1 * $1) } / 4800) }
            let drop = 20 * log10(rms(96_000) / rms(0))  // 2 s later
            #expect(drop < -15 && drop > -40, "decay over 2 s: \(drop) dB")
        }
    }

    @Test("gongs load from files of another rate and channel count, resampled to the output rate")
    func loadGong() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("gong.flac")
        let writer = try AudioFileWriter(path: path, format: .flac, sampleRate: 44_100, channelCount: 2)
        var frames = [Float](repeating: 0, count: 44_100 * 2)
        for i in 0..<44_100 { frames[2 * i] = 0.25; frames[2 * i + 1] = 0.75 }
        try frames.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: 44_100) }
        writer.close()
        let gong = try Gongs.load(path: path, sampleRate: 48_000)
        #expect(abs(gong.count - 48_000) <= 2)
        #expect(gong.allSatisfy { abs($0 - 0.5) < 1e-3 })
    }
}
