import Foundation
@testable import RepeaterEngine
import Testing

/// The transform the spectral modes stand on: every spectrum synthesised unchanged gives the input
/// back, delayed by one frame, at either overlap, and a change of one frame's spectrum stays within
/// that frame's span.
@Suite("STFT: overlap-add at 50 % and 75 %")
struct STFTTests {
    /// Noise through `STFT` and `OverlapAdd` with every spectrum unchanged: the output frames
    /// played out during each hop, as the splitter plays them. `alter` may change the spectrum of
    /// the frame ending at a given input frame.
    static func run(frameFrames: Int, overlap: Int, frameCount: Int,
                    alter: (Int, UnsafeMutablePointer<Float>, Int) -> Void = { _, _, _ in }) -> (input: [Float], output: [Float]) {
        let stft = STFT(frameFrames: frameFrames, overlap: overlap)
        let stream = OverlapAdd(frameFrames: frameFrames, hopFrames: stft.hopFrames)
        var history = DelayLine(channelCount: 1, minimumFrames: 4 * frameFrames)
        let spectrum = stft.makeSpectrum()
        defer { RealFFT.free(spectrum) }
        var generator = SystemRandomNumberGenerator()
        let input = (0..<frameCount).map { _ in Float.random(in: -0.5...0.5, using: &generator) }
        var output: [Float] = []
        let hop = UnsafeMutablePointer<Float>.allocate(capacity: stft.hopFrames)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 1)
        defer {
            hop.deallocate()
            pointers.deallocate()
        }
        pointers[0] = hop
        var start = 0
        while start + stft.hopFrames <= frameCount {
            // The hop completed last time plays out while this hop's input comes in.
            output.append(contentsOf: UnsafeBufferPointer(start: stream.hop, count: stft.hopFrames))
            for i in 0..<stft.hopFrames { hop[i] = input[start + i] }
            history.write(pointers, offset: 0, count: stft.hopFrames)
            start += stft.hopFrames
            stft.analyse(history, channel: 0, end: start, into: spectrum)
            alter(start, spectrum, stft.binCount)
            stft.synthesise(spectrum, into: stream)
            stream.completeHop()
        }
        return (input, output)
    }

    @Test("a spectrum synthesised unchanged gives the input back one frame (N) later, to rounding, at 50 % and at 75 % overlap", arguments: [2, 4])
    func identity(overlap: Int) {
        let frameFrames = 2048, count = 48_000
        let (input, output) = Self.run(frameFrames: frameFrames, overlap: overlap, frameCount: count)
        // Output frame n is input frame n − N, once N frames have been heard (before: the ramp-in
        // of the first frames' windows).
        var largest: Float = 0
        for n in frameFrames..<output.count { largest = max(largest, abs(output[n] - input[n - frameFrames])) }
        print("STFT, N \(frameFrames), overlap \(overlap) (hop \(frameFrames / overlap)): largest error \(largest) over \(output.count - frameFrames) frames")
        #expect(largest < 1e-5)
        #expect(output.count > count - frameFrames)
    }

    @Test("silencing one frame's spectrum silences the output only within that frame's N frames, at 50 % and 75 % overlap", arguments: [2, 4])
    func locality(overlap: Int) {
        let frameFrames = 1024, count = 16_384
        let silenced = 8192  // the frame ending at this input frame
        let (input, output) = Self.run(frameFrames: frameFrames, overlap: overlap, frameCount: count) { end, spectrum, bins in
            if end == silenced { for i in 0..<(2 * bins) { spectrum[i] = 0 } }
        }
        // That frame spans input [silenced − N, silenced): output [silenced, silenced + N).
        var outside: Float = 0, inside: Float = 0
        for n in frameFrames..<output.count {
            let error = abs(output[n] - input[n - frameFrames])
            if n >= silenced && n < silenced + frameFrames { inside = max(inside, error) } else { outside = max(outside, error) }
        }
        #expect(outside < 1e-5, "the change reached outside its frame: \(outside)")
        #expect(inside > 0.05, "the change did not reach the output: \(inside)")
    }
}
