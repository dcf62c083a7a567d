import CRubberBand
import Foundation
import RepeaterKit

/// `repeater-bench bare FILE --rate R --engine finer|faster [--consistent] [--paced]`: librubberband
/// alone on a whole file, the way a plain real-time program drives it (256-frame output blocks, no
/// JACK, no threads): in a tight loop (the baseline for what stretching costs), or `--paced`, one
/// block per 5.33 ms of real time as a real-time player must (what the library itself costs when
/// it runs in bursts between sleeps). The parent measures this process's CPU time.
func runBare(arguments: [String]) throws(RepeaterError) {
    guard let path = arguments.first else { throw .input("bare needs a FILE") }
    var speed = 0.75, finer = true, consistent = false, paced = false
    var rest = Array(arguments.dropFirst())
    while !rest.isEmpty {
        let name = rest.removeFirst()
        switch name {
        case "--rate": speed = Double(rest.isEmpty ? "" : rest.removeFirst()) ?? 0.75
        case "--engine": finer = (rest.isEmpty ? "" : rest.removeFirst()) != "faster"
        case "--consistent": consistent = true
        case "--paced": paced = true
        default: throw .input("bare: unknown option \(name)")
        }
    }
    let file = try AudioFile(path: path)
    let channels = file.info.channelCount, total = file.info.frameCount
    let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: total * channels)
    defer { interleaved.deallocate() }
    let read = file.read(into: interleaved, frameCount: total)
    let planar = (0..<channels).map { channel in
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: read)
        for i in 0..<read { buffer[i] = interleaved[i * channels + channel] }
        return buffer
    }
    defer { planar.forEach { $0.deallocate() } }
    var options = RubberBandOptionProcessRealTime.rawValue
    if consistent { options |= RubberBandOptionPitchHighConsistency.rawValue | RubberBandOptionThreadingNever.rawValue }
    if finer { options |= RubberBandOptionEngineFiner.rawValue }
    let state = rubberband_new(UInt32(file.info.sampleRate), UInt32(channels), RubberBandOptions(Int32(bitPattern: options)), 1 / speed, 1)!
    defer { rubberband_delete(state) }
    rubberband_set_debug_level(state, -1)
    rubberband_set_max_process_size(state, 8192)
    let block = 256
    let output = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
    defer { output.forEach { $0.deallocate() } }
    let inputs = UnsafeMutablePointer<UnsafePointer<Float>?>.allocate(capacity: channels)
    let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: channels)
    defer { inputs.deallocate(); outputs.deallocate() }
    var position = 0, produced = 0
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    let blockNanoseconds = block * 1_000_000_000 / file.info.sampleRate
    while position < read {
        if paced {
            deadline.tv_nsec += blockNanoseconds
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_nsec -= 1_000_000_000; deadline.tv_sec += 1 }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
        }
        var done = 0
        while done < block {
            let ready = Int(rubberband_available(state))
            if ready > 0 {
                for channel in 0..<channels { outputs[channel] = output[channel] + done }
                done += Int(rubberband_retrieve(state, outputs, UInt32(min(ready, block - done))))
                continue
            }
            let needed = min(max(1, Int(rubberband_get_samples_required(state))), 8192, read - position)
            if needed <= 0 { break }
            for channel in 0..<channels { inputs[channel] = UnsafePointer(planar[channel] + position) }
            rubberband_process(state, inputs, UInt32(needed), 0)
            position += needed
        }
        produced += block
    }
    print("frames \(produced)")
}
