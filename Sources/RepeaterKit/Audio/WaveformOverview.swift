import CRepeaterSupport
import Foundation
import Synchronization

/// The whole file's waveform at a glance, for the screen's time strip and the practice page: the
/// lowest and highest sample (all channels) of `bucketCount` equal stretches of the file, computed on
/// a background thread of low priority from a file handle of its own, and readable while it is being
/// filled (the count of finished buckets is published with a release store after their values).
public final class WaveformOverview: @unchecked Sendable {
    public let bucketCount: Int
    private let minimum: UnsafeMutablePointer<Float>
    private let maximum: UnsafeMutablePointer<Float>
    private let finished = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    public init(bucketCount: Int = 2048) {
        self.bucketCount = bucketCount
        minimum = .allocate(capacity: bucketCount)
        minimum.initialize(repeating: 0, count: bucketCount)
        maximum = .allocate(capacity: bucketCount)
        maximum.initialize(repeating: 0, count: bucketCount)
    }

    deinit {
        cancel()
        minimum.deallocate()
        maximum.deallocate()
    }

    /// Starts computing the overview of `path` on its own thread.
    public func start(path: String) {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            _ = repeater_thread_set_nice(10)
            compute(path: path)
            done.signal()
        }
        thread.qualityOfService = .background
        thread.name = "repeater-overview"
        thread.start()
    }

    /// Stops the thread and waits for it (it checks between chunks of 64 k frames), or at most
    /// `seconds` (the thread holds this object until it ends, so its memory stays valid).
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

    /// How many buckets are known.
    public var doneCount: Int { finished.load(ordering: .acquiring) }

    /// The peaks |x| known so far (the rest are 0) and how many are known.
    public func snapshot() -> (peaks: [Float], done: Int) {
        let count = finished.load(ordering: .acquiring)
        return ((0..<bucketCount).map { max(-minimum[$0], maximum[$0]) }, count)
    }

    /// The lowest and highest sample of each bucket known so far (the rest are 0), and how many are known.
    public func extremes() -> (minimum: [Float], maximum: [Float], done: Int) {
        let count = finished.load(ordering: .acquiring)
        return (Array(UnsafeBufferPointer(start: minimum, count: bucketCount)), Array(UnsafeBufferPointer(start: maximum, count: bucketCount)), count)
    }

    /// Computes synchronously (the thread's body; tests call it directly).
    public func compute(path: String) {
        guard let file = try? AudioFile(path: path) else { return }
        let channels = file.info.channelCount
        let frames = file.info.frameCount
        let chunk = 65_536
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { buffer.deallocate() }
        var position = 0
        var bucket = 0
        var low: Float = 0, high: Float = 0
        func bucketEnd(_ index: Int) -> Int { Int((Double(index + 1) * Double(frames) / Double(bucketCount)).rounded(.up)) }
        var end = bucketEnd(0)
        while position < frames, !cancelled.load(ordering: .relaxed) {
            let count = file.read(into: buffer, frameCount: min(chunk, frames - position))
            if count <= 0 { break }
            for frame in 0..<count {
                while position + frame >= end && bucket < bucketCount - 1 {
                    (minimum[bucket], maximum[bucket]) = (low, high)
                    bucket += 1
                    (low, high) = (0, 0)
                    end = bucketEnd(bucket)
                    finished.store(bucket, ordering: .releasing)
                }
                let base = buffer + frame * channels
                for channel in 0..<channels {
                    low = min(low, base[channel])
                    high = max(high, base[channel])
                }
            }
            position += count
        }
        if bucket < bucketCount {
            (minimum[bucket], maximum[bucket]) = (low, high)
            finished.store(bucketCount, ordering: .releasing)
        }
    }
}
