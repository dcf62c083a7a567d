import Glibc

/// A short-time Fourier transform with overlap-add, for streams held in a `DelayLine`.
///
/// Frames of N = `frameFrames` (a power of two) every N/`overlap` frames (`overlap` 2: 50 %, or 4:
/// 75 %), the square root of a periodic Hann window (sin(πn/N)) on analysis and again on
/// synthesis: their product, the Hann window, overlap-adds at a hop of N/`overlap` to exactly
/// `overlap`/2, so the synthesis window carries 2/(`overlap`·N) (that and FFTW's unnormalised
/// inverse) and a spectrum synthesised unchanged gives the input back, to rounding. The window on
/// synthesis also tapers whatever a change of the spectrum wraps around the frame's ends.
struct STFT: ~Copyable, @unchecked Sendable {
    let frameFrames: Int
    let hopFrames: Int
    let binCount: Int
    private let fft: RealFFT
    private let analysisWindow: UnsafeMutablePointer<Float>
    private let synthesisWindow: UnsafeMutablePointer<Float>
    /// Time-domain scratch (FFTW-aligned).
    private let frame: UnsafeMutablePointer<Float>

    /// Control thread. `overlap`: frames per frame length (2 or 4).
    init(frameFrames: Int, overlap: Int) {
        precondition(frameFrames >= 64 && frameFrames & (frameFrames - 1) == 0, "the frame must be a power of two")
        precondition(overlap == 2 || overlap == 4)
        self.frameFrames = frameFrames
        hopFrames = frameFrames / overlap
        binCount = frameFrames / 2 + 1
        fft = RealFFT(size: frameFrames)
        analysisWindow = .allocate(capacity: frameFrames)
        synthesisWindow = .allocate(capacity: frameFrames)
        for n in 0..<frameFrames {
            let w = sin(Double.pi * Double(n) / Double(frameFrames))
            (analysisWindow + n).initialize(to: Float(w))
            (synthesisWindow + n).initialize(to: Float(w / (Double(overlap / 2) * Double(frameFrames))))
        }
        frame = RealFFT.allocateReal(frameFrames)
    }

    deinit {
        analysisWindow.deallocate()
        synthesisWindow.deallocate()
        RealFFT.free(frame)
    }

    /// Control thread. A buffer for one spectrum (`binCount` interleaved re, im), aligned for FFTW.
    func makeSpectrum() -> UnsafeMutablePointer<Float> { RealFFT.allocateComplex(binCount) }

    /// Real-time thread. The frames [`end` − N, `end`) of `channel` in `history`, windowed and
    /// transformed into `spectrum`.
    @inline(__always)
    func analyse(_ history: borrowing DelayLine, channel: Int, end: Int, into spectrum: UnsafeMutablePointer<Float>) {
        history.read(channel: channel, from: end - frameFrames, count: frameFrames, into: frame)
        for n in 0..<frameFrames { frame[n] *= analysisWindow[n] }
        fft.forward(frame, spectrum)
    }

    /// Real-time thread. The inverse of `spectrum` (destroyed), windowed, added into `stream`.
    @inline(__always)
    func synthesise(_ spectrum: UnsafeMutablePointer<Float>, into stream: borrowing OverlapAdd) {
        fft.inverse(spectrum, frame)
        let accumulator = stream.accumulator
        for n in 0..<frameFrames { accumulator[n] += frame[n] * synthesisWindow[n] }
    }
}
