import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import RTCheck
import Testing

@Suite("Offline render")
struct OfflineRenderTests {
    @Test("render writes the file's frames bit for bit", arguments: [1, 2, 6])
    func bitExact(channels: Int) throws {
        let scratch = ScratchDirectory()
        let input = scratch.file("ramp.wav"), output = scratch.file("out.wav")
        try writeRamp(path: input, frames: 123_457, channels: channels)
        let frames = try OfflineRenderer(options: RenderOptions(inputPath: input, outputPath: output)).run()
        #expect(frames == 123_457)
        let (inputInfo, inputSamples) = try readAll(input)
        let (outputInfo, outputSamples) = try readAll(output)
        #expect(outputInfo.frameCount == inputInfo.frameCount)
        #expect(outputInfo.encodingName == "32 bit float")
        #expect(outputSamples.count == inputSamples.count)
        #expect(zip(outputSamples, inputSamples).filter { $0 != $1 }.count == 0)
    }

    @Test("--from and --duration cut at exact frames, also from FLAC")
    func fromAndDuration() throws {
        let scratch = ScratchDirectory()
        let input = scratch.file("ramp.flac"), output = scratch.file("cut.wav")
        try writeRamp(path: input, frames: 96_000, channels: 2, format: .flac)
        var options = RenderOptions(inputPath: input, outputPath: output)
        options.sound.from = .frames(10_001)
        options.duration = .seconds(0.5)
        #expect(try OfflineRenderer(options: options).run() == 24_000)
        let (_, all) = try readAll(input)
        let (_, cut) = try readAll(output)
        let expected = Array(all[(10_001 * 2)..<(34_001 * 2)])
        #expect(cut.count == expected.count)
        #expect(zip(cut, expected).filter { $0 != $1 }.count == 0)
    }

    @Test("the disk reader and engine together make no allocation or lock in render")
    func realTimeSafety() throws {
        try #require(rtcheck_available() == 1, "the allocation counter is off (sanitizer build)")
        let scratch = ScratchDirectory()
        let input = scratch.file("ramp.wav")
        try writeRamp(path: input, frames: 200_000, channels: 2)
        let file = try AudioFile(path: input)
        let engine = Engine(.init(channelCount: 2))
        let reader = DiskReader(file: file, engine: engine)
        let buffers = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 4096) }
        defer { buffers.forEach { $0.deallocate() } }
        func cycle(_ n: Int, counted: Bool) {
            reader.fill()
            buffers.withUnsafeBufferPointer {
                if counted { rtcheck_enter() }
                engine.render(frameCount: n, outputs: $0.baseAddress!)
                if counted { rtcheck_leave() }
            }
        }
        Engine.warmUpRuntime()  // as the player and the renderer do before real-time use
        cycle(256, counted: false)
        rtcheck_thread_reset()
        var total = 0
        var index = 0
        while total < 210_000 {
            let n = [1, 37, 256, 4096][index % 4]
            if index == 50 { engine.commands.push(.seek(frame: 150_000)) }
            cycle(n, counted: true)
            total += n
            index += 1
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0)
        let finished = engine.status.finishedCycle.load(ordering: .relaxed)
        #expect(finished >= 0)
    }
}
