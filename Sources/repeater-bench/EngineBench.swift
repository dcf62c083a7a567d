// `repeater-bench engine`: what the stretcher costs at JACK-sized periods, with each Rubber Band
// engine, through the project's `Stretcher` wrapper and through a bare librubberband loop with the
// same options and block size (the baseline, measured in the same run), in this process, no JACK.
//
// Three loops per case: "bare" (librubberband alone), "wrapper" (the `Stretcher` type alone), and
// "engine" (the whole `Engine.render` path: ring, loop logic, stretcher hand-off, fades, log).
import CRubberBand
import Foundation
import RepeaterEngine

let rate = 48_000, period = 256, channels = 2
nonisolated(unsafe) var frames = 60 * 48_000

/// A music-like stereo signal: a few detuned harmonic voices changing note every 250 ms, plus a little noise.
func musicLike(frames: Int = frames) -> [[Float]] {
    var generator = SystemRandomNumberGenerator()
    let notes = [220.0, 246.9, 261.6, 293.7, 329.6, 349.2, 392.0, 440.0]
    return (0..<channels).map { channel in
        var out = [Float](repeating: 0, count: frames)
        for n in 0..<frames {
            let t = Double(n) / Double(rate)
            let note = notes[(n / (rate / 4) + channel) % notes.count]
            var value = 0.0
            for harmonic in 1...5 { value += sin(2 * .pi * note * Double(harmonic) * t) / Double(harmonic * harmonic) }
            out[n] = Float(0.2 * value) + Float.random(in: -0.01...0.01, using: &generator)
        }
        return out
    }
}

struct Figures {
    var cpuPerAudioSecond: Double
    var worst: Double
    var p999: Double
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func summarize(_ blockNanos: [UInt64], total: UInt64, outputFrames: Int) -> Figures {
    let periodNanos = Double(period) / Double(rate) * 1e9
    let sorted = blockNanos.sorted()
    return Figures(cpuPerAudioSecond: Double(total) / 1e9 / (Double(outputFrames) / Double(rate)),
                   worst: Double(sorted.last ?? 0) / periodNanos,
                   p999: Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.999))]) / periodNanos)
}

/// The wrapper, driven as the engine will: per 256-frame period, retrieve what is ready, else feed
/// exactly what is required.
func runWrapper(_ signal: [[Float]], kind: Stretcher.Kind, timeRatio: Double, pitchScale: Double) -> Figures {
    var stretcher = Stretcher(kind: kind, sampleRate: rate, channelCount: channels, timeRatio: timeRatio, pitchScale: pitchScale,
                              pitchConsistent: pitchScale != 1)
    let input = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 8192) }
    let output = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: period) }
    var blocks: [UInt64] = []
    var position = 0, produced = 0
    let start = now()
    while position < frames {
        let t0 = now()
        var done = 0
        while done < period {
            let ready = stretcher.available()
            if ready > 0 {
                done += output.withUnsafeBufferPointer { stretcher.retrieve(into: $0.baseAddress!, offset: done, frameCount: min(ready, period - done)) }
                continue
            }
            let needed = min(stretcher.samplesRequired(), frames - position)
            if needed <= 0 { break }
            for channel in 0..<channels { signal[channel].withUnsafeBufferPointer { input[channel].update(from: $0.baseAddress! + position, count: needed) } }
            input.withUnsafeBufferPointer { stretcher.process($0.baseAddress!, offset: 0, frameCount: needed) }
            position += needed
        }
        blocks.append(now() - t0)
        produced += period
    }
    let total = now() - start
    input.forEach { $0.deallocate() }
    output.forEach { $0.deallocate() }
    return summarize(blocks, total: total, outputFrames: produced)
}

/// The bare library loop: the same options, block size and feeding rule, no wrapper.
func runBare(_ signal: [[Float]], kind: Stretcher.Kind, timeRatio: Double, pitchScale: Double) -> Figures {
    var options = RubberBandOptionProcessRealTime.rawValue | RubberBandOptionThreadingNever.rawValue
    if pitchScale != 1 { options |= RubberBandOptionPitchHighConsistency.rawValue }  // as the engine's stretchers
    if kind == .finer { options |= RubberBandOptionEngineFiner.rawValue }
    let state = rubberband_new(UInt32(rate), UInt32(channels), RubberBandOptions(Int32(bitPattern: options)), timeRatio, pitchScale)!
    rubberband_set_debug_level(state, -1)
    rubberband_set_max_process_size(state, 8192)
    let input = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 8192) }
    let output = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: period) }
    let inputs = UnsafeMutablePointer<UnsafePointer<Float>?>.allocate(capacity: channels)
    let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: channels)
    var blocks: [UInt64] = []
    var position = 0, produced = 0
    let start = now()
    while position < frames {
        let t0 = now()
        var done = 0
        while done < period {
            let ready = Int(rubberband_available(state))
            if ready > 0 {
                for channel in 0..<channels { outputs[channel] = output[channel] + done }
                done += Int(rubberband_retrieve(state, outputs, UInt32(min(ready, period - done))))
                continue
            }
            let needed = min(max(1, Int(rubberband_get_samples_required(state))), 8192, frames - position)
            if needed <= 0 { break }
            for channel in 0..<channels {
                signal[channel].withUnsafeBufferPointer { input[channel].update(from: $0.baseAddress! + position, count: needed) }
                inputs[channel] = UnsafePointer(input[channel])
            }
            rubberband_process(state, inputs, UInt32(needed), 0)
            position += needed
        }
        blocks.append(now() - t0)
        produced += period
    }
    let total = now() - start
    rubberband_delete(state)
    input.forEach { $0.deallocate() }
    output.forEach { $0.deallocate() }
    inputs.deallocate()
    outputs.deallocate()
    return summarize(blocks, total: total, outputFrames: produced)
}

/// The whole engine, fed synchronously from memory (standing in for the disk thread), 256-frame cycles.
func runEngine(_ signal: [[Float]], kind: Stretcher.Kind?, speed: Double, pitch: Double, volume: Double = 1, pan: Double = 0) -> Figures {
    var configuration = Engine.Configuration(channelCount: channels, sourceFrameCount: frames, blockFrames: 2048, blockCount: 32,
                                             sampleRate: rate)
    configuration.volume = volume
    configuration.pan = pan
    let engine = Engine(configuration)
    engine.controls.speed.store(speed, ordering: .relaxed)
    engine.controls.pitchSemitones.store(pitch, ordering: .relaxed)
    if let kind {
        let stretcher = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
        stretcher.initialize(to: Stretcher(kind: kind, sampleRate: rate, channelCount: channels, timeRatio: 1 / speed,
                                           pitchScale: pow(2, pitch / 12), pitchConsistent: pitch != 0))
        engine.freshStretchers.push(UInt(bitPattern: stretcher))
    }
    var position = 0
    func feed() {
        while position < frames, let slot = engine.blocks.writableSlot() {
            let count = min(engine.blocks.blockFrames, frames - position)
            for channel in 0..<channels {
                signal[channel].withUnsafeBufferPointer { engine.blocks.channel(channel, ofSlot: slot).update(from: $0.baseAddress! + position, count: count) }
            }
            engine.blocks.publish(BlockTag(startFrame: position, frameCount: count, generation: 0))
            position += count
        }
    }
    let output = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: period) }
    var blocks: [UInt64] = []
    var produced = 0
    let expected = Int(Double(frames) / speed)
    var total: UInt64 = 0
    while produced < expected {
        feed()
        let t0 = now()
        output.withUnsafeBufferPointer { engine.render(frameCount: period, outputs: $0.baseAddress!) }
        let spent = now() - t0
        total += spent
        blocks.append(spent)
        produced += period
    }
    output.forEach { $0.deallocate() }
    return summarize(blocks, total: total, outputFrames: produced)
}

/// The floor for the bypass path: copying each period from memory to the outputs, nothing else.
func runCopy(_ signal: [[Float]]) -> Figures {
    let output = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: period) }
    var blocks: [UInt64] = []
    var position = 0
    var total: UInt64 = 0
    while position + period <= frames {
        let t0 = now()
        for channel in 0..<channels {
            signal[channel].withUnsafeBufferPointer { output[channel].update(from: $0.baseAddress! + position, count: period) }
        }
        let spent = now() - t0
        total += spent
        blocks.append(spent)
        position += period
    }
    output.forEach { $0.deallocate() }
    return summarize(blocks, total: total, outputFrames: position)
}

/// Prints the in-process table: bypass, and each engine through bare library, wrapper and engine.
func runEngineBench(seconds: Double) {
    let signal = musicLike()
    print("repeater-bench engine: \(Int(seconds)) s stereo 48 kHz music-like signal, 256-frame periods (\(String(format: "%.3f", 256.0 / 48.0)) ms)")
    func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    print("case         engine  loop     CPU s/audio s  worst/period  p99.9/period  vs bare")
    let copy = runCopy(signal)
    print(pad("speed 1.0", 13) + pad("bypass", 8) + pad("copy", 9)
          + String(format: "%13.6f %13.3f %13.3f", copy.cpuPerAudioSecond, copy.worst, copy.p999))
    for (label, volume, pan) in [("engine", 1.0, 0.0), ("-6dB,pan", 0.5, -0.3)] {
        let bypass = runEngine(signal, kind: nil, speed: 1, pitch: 0, volume: volume, pan: pan)
        print(pad("speed 1.0", 13) + pad("bypass", 8) + pad(label, 9)
              + String(format: "%13.6f %13.3f %13.3f  %.1f× copy", bypass.cpuPerAudioSecond, bypass.worst, bypass.p999,
                       bypass.cpuPerAudioSecond / copy.cpuPerAudioSecond))
    }
    let cases: [(String, Double, Double)] = [("speed 0.75", 0.75, 0), ("speed 1.25", 1.25, 0), ("pitch +3", 1, 3)]
    for (name, speed, pitch) in cases {
        for kind in [Stretcher.Kind.faster, .finer] {
            let timeRatio = 1 / speed, pitchScale = pow(2, pitch / 12)
            let bare = runBare(signal, kind: kind, timeRatio: timeRatio, pitchScale: pitchScale)
            let wrapped = runWrapper(signal, kind: kind, timeRatio: timeRatio, pitchScale: pitchScale)
            let whole = runEngine(signal, kind: kind, speed: speed, pitch: pitch)
            for (label, figures) in [("bare", bare), ("wrapper", wrapped), ("engine", whole)] {
                let ratio = label == "bare" ? "" : String(format: "%.3f", figures.cpuPerAudioSecond / bare.cpuPerAudioSecond)
                print(pad(name, 13) + pad(kind.rawValue, 8) + pad(label, 9)
                      + String(format: "%13.4f %13.3f %13.3f  ", figures.cpuPerAudioSecond, figures.worst, figures.p999) + ratio)
            }
        }
    }
}
