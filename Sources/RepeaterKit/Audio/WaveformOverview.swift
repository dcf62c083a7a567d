import CRepeaterSupport
import Foundation
import Synchronization

/// The whole file's waveform at a glance, for the screen's time strip: the peak |x| (all channels) of
/// `bucketCount` equal stretches of the file, computed on a background thread of low priority from a
/// file handle of its own, and readable while it is being filled (the count of finished buckets is
/// published with a release store after their values).
public final class WaveformOverview: @unchecked Sendable {
    public let bucketCount: Int
    private let peaks: UnsafeMutablePointer<Float>
    private let finished = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    public init(bucketCount: Int = 2048) {
        self.bucketCount = bucketCount
        peaks = .allocate(capacity: bucketCount)
        peaks.initialize(repeating: 0, count: bucketCount)
    }

    deinit {
        cancel()
        peaks.deallocate()
    }

    /// Starts computing the overview of `path` on its own thread.
    public func start(path: String) {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            _ = repeater_thread_lowest_priority()
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

    /// The peaks known so far (the rest are 0) and how many are known.
    public func snapshot() -> (peaks: [Float], done: Int) {
        let count = finished.load(ordering: .acquiring)
        return (Array(UnsafeBufferPointer(start: peaks, count: bucketCount)), count)
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
        var peak: Float = 0
        func bucketEnd(_ index: Int) -> Int { Int((Double(index + 1) * Double(frames) / Double(bucketCount)).rounded(.up)) }
        var end = bucketEnd(0)
        while position < frames, !cancelled.load(ordering: .relaxed) {
            let count = file.read(into: buffer, frameCount: min(chunk, frames - position))
            if count <= 0 { break }
            for frame in 0..<count {
                while position + frame >= end && bucket < bucketCount - 1 {
                    peaks[bucket] = peak
                    bucket += 1
                    peak = 0
                    end = bucketEnd(bucket)
                    finished.store(bucket, ordering: .releasing)
                }
                let base = buffer + frame * channels
                for channel in 0..<channels { peak = max(peak, base[channel].magnitude) }
            }
            position += count
        }
        if bucket < bucketCount {
            peaks[bucket] = peak
            finished.store(bucketCount, ordering: .releasing)
        }
    }
}
