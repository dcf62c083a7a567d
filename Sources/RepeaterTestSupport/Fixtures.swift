import Foundation
import RepeaterKit

// Fixtures shared by the kit and integration tests (test targets cannot import each other).

/// A scratch directory per test, removed at the end.
public final class ScratchDirectory {
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "repeater-tests-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }
}

/// The ramp the tests write: each sample an exact float encoding its frame and channel, so any
/// missing, repeated, zeroed or swapped sample shows.
public func rampSample(frame: Int, channel: Int, channels: Int) -> Float {
    Float((frame * channels + channel + 1) % (1 << 23)) / Float(1 << 23)
}

/// Writes an N-channel ramp file of `frames` frames.
public func writeRamp(path: String, frames: Int, channels: Int, rate: Int = 48000, format: OutputFormat = .wav) throws {
    let writer = try AudioFileWriter(path: path, format: format, sampleRate: rate, channelCount: channels)
    var interleaved = [Float](repeating: 0, count: frames * channels)
    for frame in 0..<frames {
        for channel in 0..<channels { interleaved[frame * channels + channel] = rampSample(frame: frame, channel: channel, channels: channels) }
    }
    try interleaved.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: frames) }
    writer.close()
}

/// Writes a mono 48 kHz sine of `frequency` Hz, `seconds` long, at amplitude 0.5; returns its samples.
@discardableResult
public func writeSine(path: String, frequency: Double, seconds: Double) throws -> [Float] {
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 48_000, channelCount: 1)
    let sine = (0..<Int(seconds * 48_000)).map { Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
    try sine.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: sine.count) }
    writer.close()
    return sine
}

/// Reads a whole file as interleaved floats.
public func readAll(_ path: String) throws -> (info: AudioFileInfo, samples: [Float]) {
    let file = try AudioFile(path: path)
    var samples = [Float](repeating: 0, count: file.info.frameCount * file.info.channelCount)
    let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frameCount: file.info.frameCount) }
    return (file.info, Array(samples.prefix(read * file.info.channelCount)))
}

/// Onsets found in a signal: samples where it jumps by more than `threshold` from the sample before
/// (a struck gong starts at its crest), at least `refractory` frames after the previous onset. Before
/// the first sample there is silence.
public func detectOnsets(_ samples: [Float], threshold: Float = 0.2, refractory: Int = 9600) -> [Int] {
    var onsets: [Int] = []
    for n in 0..<samples.count where abs(samples[n] - (n > 0 ? samples[n - 1] : 0)) > threshold {
        if let last = onsets.last, n - last < refractory { continue }
        onsets.append(n)
    }
    return onsets
}

/// The power of `frequency` in `samples` (Goertzel).
public func power(of frequency: Double, in samples: ArraySlice<Float>, sampleRate: Int) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
    var s1 = 0.0, s2 = 0.0
    for sample in samples {
        let s0 = Double(sample) + coefficient * s1 - s2
        s2 = s1
        s1 = s0
    }
    return s1 * s1 + s2 * s2 - coefficient * s1 * s2
}

/// The longest run of frames where the signal's envelope (the largest |x| within ±`halfWindow`
/// frames: longer than a period of the tone) stays below `threshold`, within `range`.
public func longestQuietRun(_ samples: [Float], threshold: Float, halfWindow: Int = 120, in range: Range<Int>) -> (length: Int, at: Int) {
    let runs = quietRuns(samples, threshold: threshold, halfWindow: halfWindow, in: range, longerThan: 0)
    return runs.max { $0.length < $1.length } ?? (0, 0)
}

/// The runs in `range` (frames) where the envelope (the peak over ±`halfWindow` frames) stays below
/// `threshold`, longer than `longerThan` frames, in order.
public func quietRuns(_ samples: [Float], threshold: Float, halfWindow: Int = 120, in range: Range<Int>,
                      longerThan: Int) -> [(length: Int, at: Int)] {
    var runs: [(length: Int, at: Int)] = []
    var run = 0
    func close(at n: Int) {
        if run > longerThan { runs.append((run, n - run)) }
        run = 0
    }
    for n in range {
        var peak: Float = 0
        for k in max(0, n - halfWindow)...min(samples.count - 1, n + halfWindow) { peak = max(peak, abs(samples[k])) }
        if peak < threshold { run += 1 } else { close(at: n) }
    }
    close(at: range.upperBound)
    return runs
}
