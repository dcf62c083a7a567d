/// The average power spectrum of everything added since the last reset, over long Hann windows
/// (half-overlapping), for the "over the whole loop" view. Blocks of any size are added as they
/// play; a window is transformed each time `hopFrameCount` new frames have arrived. Until the
/// first full window, the average is the spectrum of the frames so far (a shorter Hann window).
final class LoopSpectrum {
    let windowFrameCount: Int
    let hopFrameCount: Int
    /// Bins in the spectrum: fftLength/2 + 1.
    let binCount: Int
    /// Windows averaged so far.
    private(set) var windowCount = 0
    /// Frames added since the last reset.
    private(set) var addedFrameCount = 0

    private let fft: RealFFT
    private let window: UnsafeMutableBufferPointer<Float>
    private let scale: Float
    /// The most recent frames, oldest first; `pendingCount` of them are valid.
    private let pending: UnsafeMutableBufferPointer<Float>
    private var pendingCount = 0
    private let sum: UnsafeMutableBufferPointer<Float>
    private let spectrum: UnsafeMutableBufferPointer<Float>
    private let scratchWindow: UnsafeMutableBufferPointer<Float>

    init(windowFrameCount: Int, zeroPadding: Int) {
        self.windowFrameCount = windowFrameCount
        hopFrameCount = windowFrameCount / 2
        fft = RealFFT(length: windowFrameCount * zeroPadding)
        binCount = fft.length / 2 + 1
        window = .allocate(capacity: windowFrameCount)
        scale = amplitudeSquaredScale(windowSum: fillHannWindow(window))
        pending = .allocate(capacity: windowFrameCount)
        pending.initialize(repeating: 0)
        sum = .allocate(capacity: binCount)
        sum.initialize(repeating: 0)
        spectrum = .allocate(capacity: binCount)
        spectrum.initialize(repeating: 0)
        scratchWindow = .allocate(capacity: windowFrameCount)
        scratchWindow.initialize(repeating: 0)
    }

    deinit {
        window.deallocate()
        pending.deallocate()
        sum.deallocate()
        spectrum.deallocate()
        scratchWindow.deallocate()
    }

    /// Forgets everything added (call when the loop, the pitch shift or the file changes).
    func reset() {
        for k in 0..<binCount { sum[k] = 0 }
        pendingCount = 0
        windowCount = 0
        addedFrameCount = 0
    }

    /// Adds the next frames heard, in order.
    func add(_ frames: UnsafeBufferPointer<Float>) {
        var offset = 0
        addedFrameCount += frames.count
        while offset < frames.count {
            let take = min(windowFrameCount - pendingCount, frames.count - offset)
            for n in 0..<take { pending[pendingCount + n] = frames[offset + n] }
            pendingCount += take
            offset += take
            if pendingCount == windowFrameCount {
                accumulateWindow()
                // Keep the second half: it starts the next window.
                for n in 0..<(windowFrameCount - hopFrameCount) { pending[n] = pending[hopFrameCount + n] }
                pendingCount = windowFrameCount - hopFrameCount
            }
        }
    }

    private func accumulateWindow() {
        fft.powerSpectrum(of: UnsafeBufferPointer(pending), window: UnsafeBufferPointer(window), scale: scale, into: spectrum)
        for k in 0..<binCount { sum[k] += spectrum[k] }
        windowCount += 1
    }

    /// The average power spectrum (amplitude² per bin), or nil when fewer than `minimumFrameCount`
    /// frames were added. The buffer is valid until the next call on this object.
    func averagePower(minimumFrameCount: Int) -> UnsafeBufferPointer<Float>? {
        if windowCount > 0 {
            let inverse = 1 / Float(windowCount)
            for k in 0..<binCount { spectrum[k] = sum[k] * inverse }
            return UnsafeBufferPointer(spectrum)
        }
        guard pendingCount >= minimumFrameCount else { return nil }
        let shortWindow = UnsafeMutableBufferPointer(rebasing: scratchWindow[0..<pendingCount])
        let shortScale = amplitudeSquaredScale(windowSum: fillHannWindow(shortWindow))
        fft.powerSpectrum(of: UnsafeBufferPointer(rebasing: pending[0..<pendingCount]), window: UnsafeBufferPointer(shortWindow),
                          scale: shortScale, into: spectrum)
        return UnsafeBufferPointer(spectrum)
    }
}
