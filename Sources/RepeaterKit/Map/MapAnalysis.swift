import CRepeaterSupport
import Foundation
import RepeaterAnalysis
import Synchronization

/// Makes a recording's map (what the analysis finds: beats, bars, tempo, key) off the audio and
/// control threads: from the cache when this content was analysed before, else by reading the file
/// through the analysers and caching what they found.
public enum MapAnalysis {
    /// The detected grid of the file at `path`, and whether it came from the cache. `progress` gets
    /// 0…1 while the file is analysed; `warn` a line when a cache entry cannot be used.
    public static func grid(path: String, environment: Folders.Environment = ProcessInfo.processInfo.environment,
                            progress: (Double) -> Void = { _ in }, isCancelled: () -> Bool = { false },
                            warn: (String) -> Void = { _ in }) throws(RepeaterError) -> (grid: BeatGrid, cached: Bool) {
        let entry = try MapCache.entryPath(forAudio: path, environment: environment)
        switch MapCache.load(entry) {
        case .found(let grid): return (grid, true)
        case .unusable(let why): warn(why)
        case .missing: break
        }
        let grid = try analyse(path: path, progress: progress, isCancelled: isCancelled)
        MapCache.save(grid, to: entry)
        return (grid, false)
    }

    /// Reads the whole file through the music analyser.
    public static func analyse(path: String, progress: (Double) -> Void = { _ in }, isCancelled: () -> Bool = { false }) throws(RepeaterError) -> BeatGrid {
        let file = try AudioFile(path: path)
        let info = file.info
        let analysis: MusicAnalysis
        do {
            analysis = try MusicAnalyzer.analyze(
                sampleRate: info.sampleRate, channelCount: info.channelCount, frameCount: info.frameCount,
                read: { buffer in file.read(into: buffer.baseAddress!, frameCount: buffer.count / info.channelCount) },
                progress: progress, isCancelled: isCancelled)
        } catch {
            throw RepeaterError(error == .cancelled ? .failure : .input, "'\(path)': \(error.description)")
        }
        return BeatGrid(analysis)
    }
}

extension BeatGrid {
    /// The grid of what the music analysis found.
    public init(_ analysis: MusicAnalysis) {
        self.init(sampleRate: analysis.sampleRate, frameCount: analysis.frameCount, beatFrames: analysis.beatFrames,
                  downbeatFrames: analysis.downbeatFrames, beatsPerBar: analysis.beatsPerBar, key: analysis.key?.name,
                  tempoBPM: analysis.tempoBPM, tempoChanges: analysis.tempoChanges.map { TempoSpan(startFrame: $0.startFrame, bpm: $0.bpm) },
                  tempoConfidence: analysis.tempoConfidence, tempoAlternativeBPM: analysis.tempoAlternativeBPM)
    }
}

/// `repeater play`'s background analysis: one thread of low priority that makes the map while the
/// music plays (never delaying the first sound), and a mailbox the control loop polls.
public final class MapAnalysisRunner: @unchecked Sendable {
    public enum Update: Sendable {
        case progress(Double)
        case ready(BeatGrid, cached: Bool)
        case warning(String)
        case failed(String)
    }

    private let mailbox = Mutex<[Update]>([])
    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    public init() {}

    deinit { cancel() }

    public func start(path: String) {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            _ = repeater_thread_set_nice(10)  // behind the control thread; JACK's threads are real-time
            run(path: path)
            done.signal()
        }
        thread.qualityOfService = .utility
        thread.name = "repeater-map"
        thread.start()
    }

    private func run(path: String) {
        var lastReported = -1.0
        do {
            let result = try MapAnalysis.grid(path: path, progress: { fraction in
                guard fraction - lastReported >= 0.01 || fraction == 1 else { return }
                lastReported = fraction
                self.post(.progress(fraction))
            }, isCancelled: { self.cancelled.load(ordering: .relaxed) }, warn: { self.post(.warning($0)) })
            post(.ready(result.grid, cached: result.cached))
        } catch {
            if !cancelled.load(ordering: .relaxed) { post(.failed(error.message)) }
        }
    }

    private func post(_ update: Update) { mailbox.withLock { $0.append(update) } }

    /// Control thread: what happened since the last call.
    public func poll() -> [Update] {
        mailbox.withLock { updates in
            defer { updates.removeAll() }
            return updates
        }
    }

    /// Stops the thread and waits for it (it checks between blocks of the file), or at most
    /// `seconds`: at its low priority on a busy machine one block can take a second or more, and the way
    /// out of the player does not wait that long (the thread holds this runner until it ends).
    public func cancel(waitingAtMost seconds: Double? = nil) {
        guard started else { return }
        cancelled.store(true, ordering: .relaxed)
        if let seconds {
            guard done.wait(timeout: .now() + seconds) == .success else { return }
        } else {
            done.wait()
        }
        started = false
    }
}
