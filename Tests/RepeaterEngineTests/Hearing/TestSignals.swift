import Foundation
import RepeaterEngine
import Testing
import RepeaterTestSupport
import RTCheck

/// A tone of `frequency` Hz at `amplitude`, `frameCount` frames at 48 kHz, starting at phase 0.
func tone(_ frequency: Double, amplitude: Float = 0.5, frameCount: Int, sampleRate: Int = 48_000) -> [Float] {
    (0..<frameCount).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
}

/// Reproducible white noise in [−amplitude, amplitude).
func noise(frameCount: Int, amplitude: Float = 0.5, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<frameCount).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return amplitude * (Float(state >> 40) / Float(1 << 23) - 1)
    }
}

/// Root-mean-square of `samples[range]`.
func rms(_ samples: [Float], _ range: Range<Int>) -> Double {
    var sum = 0.0
    for i in range { sum += Double(samples[i]) * Double(samples[i]) }
    return (sum / Double(max(1, range.count))).squareRoot()
}

func decibels(_ ratio: Double) -> Double { 20 * log10(max(ratio, 1e-30)) }

/// Drives a processor the way the engine does: planar buffers, blocks of the sizes in `blocks`
/// (repeating), the processing done in place; `before(frame)` runs before each block (mode
/// switches, gain changes), on the same thread. With `countRealTime`, each block (with its
/// `before`) is a real-time section for the allocation counter.
func drive(_ input: [[Float]], blocks: [Int] = [256], countRealTime: Bool = false,
           before: (Int) -> Void = { _ in }, process: (UnsafePointer<UnsafeMutablePointer<Float>>, Int) -> Void) -> [[Float]] {
    let channels = input.count, total = input[0].count
    let maxBlock = blocks.max()!
    let buffers = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: maxBlock) }
    let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channels)
    for channel in 0..<channels { pointers[channel] = buffers[channel] }
    defer {
        buffers.forEach { $0.deallocate() }
        pointers.deallocate()
    }
    var output = Array(repeating: [Float](), count: channels)
    for channel in 0..<channels { output[channel].reserveCapacity(total) }
    var done = 0, index = 0
    while done < total {
        let count = min(blocks[index % blocks.count], total - done)
        for channel in 0..<channels { for i in 0..<count { buffers[channel][i] = input[channel][done + i] } }
        if countRealTime { rtcheck_enter() }
        before(done)
        process(UnsafePointer(pointers), count)
        if countRealTime { rtcheck_leave() }
        for channel in 0..<channels { output[channel].append(contentsOf: UnsafeBufferPointer(start: buffers[channel], count: count)) }
        done += count
        index += 1
    }
    return output
}

/// Runs `input` through an isolator in `mode` (set at once, before the first frame), with
/// `latency` frames of silence appended, and returns the output with the latency removed: frame n
/// of the result is the isolator's answer to input frame n.
func isolate(_ input: [[Float]], mode: IsolationMode, blocks: [Int] = [256], sampleRate: Int = 48_000) -> [[Float]] {
    let output = PlanarAudio(channels: input, sampleRate: sampleRate).isolated(mode, blocks: blocks)
    #expect(output != nil)
    return output?.channels ?? input
}

/// The largest difference between neighbouring samples in `range`.
func largestStep(_ samples: [Float], _ range: Range<Int>) -> Float {
    var largest: Float = 0
    for i in range.dropFirst() { largest = max(largest, abs(samples[i] - samples[i - 1])) }
    return largest
}

/// The smallest peak level over sliding windows of `window` frames within `range`: a tone's
/// envelope, low where something cancelled it.
func lowestEnvelope(_ samples: [Float], _ range: Range<Int>, window: Int) -> Float {
    var lowest = Float.infinity
    var start = range.lowerBound
    while start + window <= range.upperBound {
        var peak: Float = 0
        for i in start..<(start + window) { peak = max(peak, abs(samples[i])) }
        lowest = min(lowest, peak)
        start += window / 4
    }
    return lowest
}

/// The level (dB) of `frequency` in `samples[range]`, by correlation with a sine and a cosine.
func toneLevel(_ samples: [Float], _ range: Range<Int>, _ frequency: Double) -> Double {
    var s = 0.0, c = 0.0
    for n in range {
        let phase = 2 * Double.pi * frequency * Double(n) / 48_000
        s += Double(samples[n]) * sin(phase)
        c += Double(samples[n]) * cos(phase)
    }
    let amplitude = 2 * (s * s + c * c).squareRoot() / Double(range.count)
    return 20 * log10(max(amplitude, 1e-12))
}
