import Foundation
import RepeaterAnalysis
import RepeaterTestSupport

// Rendered and generated test signals for the note view's tests.

/// Reads a WAV file of 32-bit float samples (what `FluidSynth.render` writes) and mixes its
/// channels to mono.
func readFloatWAVAsMono(_ path: String) throws -> (sampleRate: Int, frames: [Float]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    func u32(_ at: Int) -> Int { data.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) } }
    func u16(_ at: Int) -> Int { data.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) } }
    struct NotFloatWAV: Error, CustomStringConvertible { let path: String; var description: String { "\(path) is not a 32-bit float WAV file" } }
    guard data.count >= 12, data.prefix(4) == Data("RIFF".utf8), data[8..<12] == Data("WAVE".utf8) else { throw NotFloatWAV(path: path) }
    var offset = 12
    var channels = 0, rate = 0, isFloat32 = false
    while offset + 8 <= data.count {
        let id = String(decoding: data[offset..<offset + 4], as: UTF8.self), size = u32(offset + 4)
        let body = offset + 8
        if id == "fmt " {
            let tag = u16(body)
            channels = u16(body + 2)
            rate = u32(body + 4)
            let bits = u16(body + 14)
            let subformat = tag == 0xFFFE && size >= 26 ? u16(body + 24) : tag
            isFloat32 = subformat == 3 && bits == 32
        } else if id == "data" {
            guard isFloat32, channels > 0 else { throw NotFloatWAV(path: path) }
            let frameCount = min(size, data.count - body) / (4 * channels)
            var mono = [Float](repeating: 0, count: frameCount)
            data.withUnsafeBytes { raw in
                for frame in 0..<frameCount {
                    var sum: Float = 0
                    for channel in 0..<channels {
                        sum += Float(bitPattern: raw.loadUnaligned(fromByteOffset: body + 4 * (frame * channels + channel), as: UInt32.self).littleEndian)
                    }
                    mono[frame] = sum / Float(channels)
                }
            }
            return (rate, mono)
        }
        offset = body + size + (size & 1)
    }
    throw NotFloatWAV(path: path)
}

/// Renders `song` with FluidSynth at `sampleRate` and returns it as mono frames.
func renderMono(_ song: SynthSong, sampleRate: Int = 48_000) throws -> [Float] {
    let path = NSTemporaryDirectory() + "repeater-notes-\(UUID().uuidString).wav"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try FluidSynth.render(song, to: path, sampleRate: sampleRate)
    let (rate, frames) = try readFloatWAVAsMono(path)
    precondition(rate == sampleRate)
    return frames
}

/// A sine of `frequencyHz` at `amplitude`, `frameCount` frames long.
func sine(frequencyHz: Double, amplitude: Float = 0.5, frameCount: Int, sampleRate: Double = 48_000, phase: Double = 0) -> [Float] {
    (0..<frameCount).map { amplitude * Float(sin(2 * Double.pi * frequencyHz * Double($0) / sampleRate + phase)) }
}

/// Deterministic white noise (a linear congruential generator), uniform in ±amplitude.
func whiteNoise(frameCount: Int, amplitude: Float = 0.5, seed: UInt64 = 12345) -> [Float] {
    var state = seed
    return (0..<frameCount).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return amplitude * (Float(state >> 40) / Float(1 << 23) * 2 - 1)
    }
}

/// Feeds `frames[range]` to the analyser's loop average in blocks of `blockFrameCount` (as the
/// analysis thread does at 10 Hz) and returns the loop report.
func wholeRangeReport(_ analyzer: NoteAnalyzer, _ frames: [Float], _ range: Range<Int>, blockFrameCount: Int = 4_800) -> NoteReport {
    analyzer.resetLoop()
    var start = range.lowerBound
    while start < range.upperBound {
        let end = min(start + blockFrameCount, range.upperBound)
        frames.withUnsafeBufferPointer { analyzer.addToLoop(UnsafeBufferPointer(rebasing: $0[start..<end])) }
        start = end
    }
    return analyzer.loopReport()
}

/// The playhead report for the window that ends at `endFrame`.
func playheadReport(_ analyzer: NoteAnalyzer, _ frames: [Float], endingAt endFrame: Int) -> NoteReport {
    let start = max(0, endFrame - analyzer.playheadFrameCount)
    return frames.withUnsafeBufferPointer { analyzer.analyze(window: UnsafeBufferPointer(rebasing: $0[start..<endFrame])) }
}

/// "A4 −3¢ (−12 dB)" lists for printing.
func describe(_ notes: [NoteReport.Note]) -> String {
    notes.map { "\($0.name) \(Int($0.cents.rounded()))¢ \(Int($0.levelDB.rounded()))dB" }.joined(separator: ", ")
}

/// A percentage with one decimal.
func percent(_ part: Int, _ whole: Int) -> String {
    whole == 0 ? "—" : String(format: "%.1f %%", 100 * Double(part) / Double(whole))
}

/// A steady harmonic tone: partial m (1-based) of `f0` at `amplitudes[m - 1]`.
func harmonicTone(f0: Double, amplitudes: [Float], frameCount: Int, sampleRate: Double = 48_000) -> [Float] {
    var tone = [Float](repeating: 0, count: frameCount)
    for (index, amplitude) in amplitudes.enumerated() {
        let step = 2 * Double.pi * f0 * Double(index + 1) / sampleRate
        for n in 0..<frameCount { tone[n] += amplitude * Float(sin(step * Double(n))) }
    }
    return tone
}

/// The sample-by-sample sum of equally long signals.
func mixed(_ signals: [[Float]]) -> [Float] {
    var sum = [Float](repeating: 0, count: signals.map(\.count).max() ?? 0)
    for signal in signals { for n in signal.indices { sum[n] += signal[n] } }
    return sum
}
