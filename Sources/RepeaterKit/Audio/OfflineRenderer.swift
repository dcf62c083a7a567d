import CRepeaterSupport
import Foundation
import RepeaterEngine

/// Everything `repeater render` is told.
public struct RenderOptions: Sendable {
    public var inputPath: String
    public var outputPath: String
    public var format: OutputFormat?
    public var sound = SoundOptions()
    public var duration: TimeSpec?
    /// The cycle size the offline driver renders with (JACK's period stands in here).
    public var cycleFrames = 1024
    public var progress = false

    public init(inputPath: String, outputPath: String) {
        self.inputPath = inputPath
        self.outputPath = outputPath
    }
}

/// Runs the same engine as `play`, without JACK: the disk reader is stepped on this thread before
/// each cycle (so no cycle ever underruns), and what the ports would carry goes to a file.
public struct OfflineRenderer {
    public let options: RenderOptions

    public init(options: RenderOptions) { self.options = options }

    /// Renders; returns the number of frames written.
    @discardableResult
    public func run() throws(RepeaterError) -> Int {
        let file = try AudioFile(path: options.inputPath)
        let info = file.info
        if let promised = info.headerFrameCount {
            Console.warning("'\(info.path)' is cut short: its header promises \(formatTime(frame: promised, sampleRate: info.sampleRate)), the file holds \(formatTime(frame: info.frameCount, sampleRate: info.sampleRate)); rendering what is there")
        }
        guard let format = options.format ?? OutputFormat.forPath(options.outputPath) else {
            throw .input("cannot tell the format of '\(options.outputPath)' from its extension: use .wav, .aiff, .flac or .ogg, or --format")
        }
        var configuration = try options.sound.engineConfiguration(for: info)
        configuration.prerollFramesPerCycle = Int.max  // no deadline offline: a stretcher is primed at once
        let limit = options.duration.map { $0.frame(atRate: info.sampleRate) }
        if configuration.loop != nil, configuration.maxPasses == 0, limit == nil {
            throw .input("render with --loop needs --loops N or --duration TIME (a loop plays forever)")
        }
        let startFrame = configuration.startFrame
        let engine = Engine(configuration)
        let reader = DiskReader(file: file, engine: engine)
        let supply = StretcherSupply(engine: engine, kind: options.sound.stretcher, sampleRate: info.sampleRate)
        engine.controls.speed.store(options.sound.speed, ordering: .relaxed)
        engine.controls.pitchSemitones.store(options.sound.pitch, ordering: .relaxed)
        defer { supply.drain() }
        let writer = try AudioFileWriter(path: options.outputPath, format: format, sampleRate: info.sampleRate,
                                         channelCount: engine.outputChannelCount)
        let cycle = options.cycleFrames
        let planar = (0..<engine.outputChannelCount).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: cycle) }
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: cycle * engine.outputChannelCount)
        defer {
            planar.forEach { $0.deallocate() }
            interleaved.deallocate()
        }
        Engine.warmUpRuntime()
        _ = repeater_rtprobe_init()
        var expected = limit ?? (info.frameCount - startFrame)
        if let loop = configuration.loop, limit == nil {
            expected = configuration.maxPasses * (loop.b - loop.a + configuration.gapFrames)
        }
        var written = 0
        var progress = ProgressBar(label: "rendering", enabled: options.progress, total: expected, sampleRate: info.sampleRate)
        if options.sound.speed != 1 && limit == nil { expected = Int(Double(expected) / options.sound.speed) }
        // The isolation (when on) delays the sound by its latency: the file starts that much later
        // in the engine's output, and its end comes out that much after the engine's end.
        let delay = engine.isolationDelayFrames
        var rendered = 0
        var end: Int?
        while limit.map({ written < $0 }) ?? true {
            reader.fill()
            supply.service()
            planar.withUnsafeBufferPointer { outputs in
                repeater_rtprobe_enter()
                engine.render(frameCount: cycle, outputs: outputs.baseAddress!)
                repeater_rtprobe_leave()
            }
            while let event = engine.events.pop()?.event {
                if case .finished(_, _, let outputFrame) = event, end == nil { end = outputFrame + delay }
            }
            // This cycle's output frames that carry the file: from `delay` on, up to the end and the limit.
            var from = max(rendered, delay), to = rendered + cycle
            if let end { to = min(to, end) }
            if let limit { to = min(to, delay + limit) }
            if to > from {
                if from > rendered {
                    for channel in planar.indices { (planar[channel]).update(from: planar[channel] + (from - rendered), count: to - from) }
                }
                try writer.write(planar: planar, frameCount: to - from, scratch: interleaved)
                written += to - from
            } else {
                from = to
            }
            rendered += cycle
            progress.update(written)
            if let end, rendered >= end { break }
        }
        writer.close()
        progress.finish()
        return written
    }
}
