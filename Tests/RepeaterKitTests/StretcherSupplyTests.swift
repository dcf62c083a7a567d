import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import RTCheck
import Testing

@Suite("Stretcher supply")
struct StretcherSupplyTests {
    /// The player's supply keeps used stretchers and re-arms them (memory stays where it is: see
    /// `repeater-bench memory`). Over many rate and pitch changes it builds only what the engine
    /// holds at once, of each flavour, and the re-armed ones play: the tone has no hole.
    @Test("forty rate and pitch changes (each handover a new stretcher) build at most two of each flavour, re-arm the rest, allocate nothing in render, and leave no hole")
    func reuse() throws {
        let scratch = ScratchDirectory()
        let input = scratch.file("tone.wav")
        try writeSine(path: input, frequency: 330, seconds: 60)
        let file = try AudioFile(path: input)
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: file.info.frameCount, sampleRate: 48_000))
        let reader = DiskReader(file: file, engine: engine)
        let supply = StretcherSupply(engine: engine, kind: .faster, sampleRate: 48_000)
        defer { supply.drain() }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        var outputs = buffer
        defer { buffer.deallocate() }
        var output: [Float] = []
        output.reserveCapacity(41 * 150 * 256)
        let speeds = [0.7, 0.8, 0.9, 1.1, 1.2, 1, 0.85], pitches = [-2.0, -1, 0, 0, 1, 2, 0, 3, -3]
        Engine.warmUpRuntime()  // as the player does before real-time use
        // The output list's pointer is taken once, outside the counted section: the first
        // `withUnsafePointer` of a type makes the runtime build its metadata (a lock and three
        // allocations), which is the test's doing, not render's, and happens only if no earlier
        // test in the process used the same type (it failed this way when run alone).
        withUnsafePointer(to: &outputs) { outputList in
            rtcheck_thread_reset()
            engine.send(.start)
            for change in 0...40 {
                engine.controls.speed.store(change == 0 ? 0.8 : speeds[change % speeds.count], ordering: .relaxed)
                engine.controls.pitchSemitones.store(change == 0 ? 0 : pitches[change % pitches.count], ordering: .relaxed)
                for _ in 0..<150 {  // 0.8 s
                    reader.fill()
                    supply.service()
                    rtcheck_enter()
                    engine.render(frameCount: 256, outputs: outputList)
                    rtcheck_leave()
                    output.append(contentsOf: UnsafeBufferPointer(start: buffer, count: 256))
                    while engine.events.pop() != nil {}
                }
            }
        }
        #expect(supply.built <= 4, "built \(supply.built), re-armed \(supply.rearmed)")
        #expect(supply.rearmed >= 8, "built \(supply.built), re-armed \(supply.rearmed)")
        // The audio thread's side, playing re-armed stretchers and handing them over: nothing allocated or locked.
        let counts = rtcheck_thread_counts()
        if rtcheck_available() == 1 {
            #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
        }
        // No hole: nowhere after the first second is the tone quiet for 10 ms.
        let quiet = longestQuietRun(output, threshold: 0.05, in: 48_000..<output.count)
        #expect(quiet.length < 480, "quiet for \(quiet.length) frames at \(quiet.at)")
    }
}
