import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import RTCheck
import Testing

@Suite("Offline render")
struct OfflineRenderTests {
    @Test("render writes the file's frames bit for bit (a mono file to both channels of a pair)", arguments: [1, 2, 6])
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
        let outputs = channels == 1 ? 2 : channels
        #expect(outputInfo.channelCount == outputs)
        #expect(outputSamples.count == inputSamples.count / channels * outputs)
        var mismatches = 0
        for frame in 0..<inputInfo.frameCount {
            for channel in 0..<outputs where outputSamples[frame * outputs + channel] != inputSamples[frame * channels + (channels == 1 ? 0 : channel)] {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
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

    @Test("the disk reader and engine together make no allocation or lock in render", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
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
            if index == 50 { engine.send(.seek(frame: 150_000)) }
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

@Suite("Offline render with speed and pitch")
struct StretchRenderTests {
    @Test("render --rate 0.5 keeps a 440 Hz sine at 440 ± 1 Hz and doubles its length (±0.5 %); --rate 1 is bit-exact")
    func rate() throws {
        let scratch = ScratchDirectory()
        let input = scratch.file("sine.wav")
        let sine = try writeSine(path: input, frequency: 440, seconds: 4)
        var options = RenderOptions(inputPath: input, outputPath: scratch.file("slow.wav"))
        options.sound.speed = 0.5
        let frames = try OfflineRenderer(options: options).run()
        #expect(abs(Double(frames) / Double(8 * 48_000) - 1) <= 0.005, "\(frames) frames")
        let slow = try readAll(scratch.file("slow.wav")).samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)  // out_1
        var crossings: [Double] = []
        for n in 48_000..<(7 * 48_000) where slow[n - 1] < 0 && slow[n] >= 0 {
            crossings.append(Double(n - 1) + Double(-slow[n - 1] / (slow[n] - slow[n - 1])))
        }
        let frequency = 48_000 * Double(crossings.count - 1) / (crossings.last! - crossings.first!)
        #expect(abs(frequency - 440) <= 1, "\(frequency) Hz")
        options.outputPath = scratch.file("same.wav")
        options.sound.speed = 1
        try OfflineRenderer(options: options).run()
        let same = try readAll(scratch.file("same.wav")).samples
        #expect(same.count == 2 * sine.count)
        #expect(sine.indices.allSatisfy { same[2 * $0] == sine[$0] && same[2 * $0 + 1] == sine[$0] })
    }
}

/// Sixteen struck notes, 250 ms apart, each decaying: clear onsets and changing content to line up by.
private func writeNotes(path: String) throws {
    let rate = 48_000, frames = 4 * rate
    let notes = [220.0, 330, 262, 392, 294, 440, 349, 523]
    var samples = [Float](repeating: 0, count: frames)
    for index in 0..<16 {
        let start = index * rate / 4
        for n in start..<frames {
            let t = Double(n - start) / Double(rate)
            samples[n] += Float(0.3 * exp(-6 * t) * sin(2 * Double.pi * notes[index % 8] * t))
        }
    }
    let writer = try AudioFileWriter(path: path, format: .wav, sampleRate: rate, channelCount: 1)
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    defer { scratch.deallocate() }
    try samples.withUnsafeMutableBufferPointer { try writer.write(planar: [$0.baseAddress!], frameCount: frames, scratch: scratch) }
    writer.close()
}

/// The lag (−`range`…`range`) at which `b` lines up best with `a` over `window` frames from `start`,
/// and the normalized correlation there.
private func bestLag(_ a: [Float], _ b: [Float], start: Int, window: Int, range: Int) -> (lag: Int, correlation: Double) {
    var best = (0, -2.0)
    for lag in -range...range {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for n in start..<(start + window) {
            let x = Double(a[n]), y = Double(b[n + lag])
            ab += x * y; aa += x * x; bb += y * y
        }
        let correlation = ab / max(1e-12, (aa * bb).squareRoot())
        if correlation > best.1 { best = (lag, correlation) }
    }
    return best
}

@Suite("Offline render at another speed")
struct StretchedRenderTests {
    @Test("render --rate 0.75 lines up with Rubber Band's own tool to the frame, is exactly 4/3 as long, and has no silent run at the start",
          arguments: [("finer", ["-3"]), ("faster", ["-2", "-R"])])
    func alignedWithRubberBand(engine: String, toolOptions: [String]) throws {
        let tool = "/usr/bin/rubberband"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "rubberband-cli is not installed (scripts/setup installs it)")
        let scratch = ScratchDirectory()
        let input = scratch.file("notes.wav"), ours = scratch.file("ours.wav"), theirs = scratch.file("theirs.wav")
        try writeNotes(path: input)
        var options = RenderOptions(inputPath: input, outputPath: ours)
        options.sound.speed = 0.75
        options.sound.stretcher = Stretcher.Kind(rawValue: engine)!
        let written = try OfflineRenderer(options: options).run()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = toolOptions + ["-T", "0.75", input, theirs]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let (info, a) = try readAll(ours)
        let b = try readAll(theirs).samples
        let left = stride(from: 0, to: a.count, by: info.channelCount).map { a[$0] }
        // Exactly the source's length / 0.75 (4 s → 256000 frames), as the tool writes it.
        #expect(written == 256_000 && b.count == 256_000, "ours \(written), the tool's \(b.count)")
        // The same music at the same frames: R3 against the tool's offline default, R2 against its
        // real-time mode (R2 offline studies the whole file first and phases differently).
        let early = bestLag(left, b, start: 4_800, window: 24_000, range: 64)
        let late = bestLag(left, b, start: 160_000, window: 24_000, range: 64)
        #expect(abs(early.lag) <= 2 && abs(late.lag) <= 2, "lag \(early.lag) then \(late.lag) frames")
        #expect(early.correlation > 0.99 && late.correlation > 0.99, "correlation \(early.correlation), \(late.correlation)")
        // Stretched music from the first frame: no run of silence in the first 100 ms.
        var quiet = 0, longest = 0
        for sample in left.prefix(4_800) {
            quiet = abs(sample) < 0.003 ? quiet + 1 : 0
            longest = max(longest, quiet)
        }
        #expect(longest < 48, "a silent run of \(longest) frames in the first 100 ms")
    }
}
