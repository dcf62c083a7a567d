import Foundation
import Synchronization

/// A named thread of the control side (the disk reader, the take writer, the OSC receiver, the note
/// view) running one loop until `stop()`: the loop checks `stopping`; `stop()` raises it and waits
/// until the loop has returned. Started once; `stop()` without a running thread does nothing.
public final class WorkerThread: @unchecked Sendable {
    public let name: String
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var running = false

    public init(name: String) { self.name = name }

    /// Whether `stop()` was asked for: the loop's condition.
    public var stopping: Bool { stopRequested.load(ordering: .relaxed) }

    /// Started and not yet stopped (the owner's thread only).
    public var isRunning: Bool { running }

    /// Runs `loop` on a new thread named `name` (once).
    public func start(qualityOfService: QualityOfService? = nil, _ loop: @escaping @Sendable () -> Void) {
        guard !running else { return }
        running = true
        let thread = Thread { [finished] in
            loop()
            finished.signal()
        }
        thread.name = name
        if let qualityOfService { thread.qualityOfService = qualityOfService }
        thread.start()
    }

    /// Asks the loop to end and waits until it has, or at most `seconds` (true: it has). A thread of
    /// a low priority on a machine busy with other work can take a second or more to reach its check:
    /// the way out of the player does not wait for it that long (the process ends it).
    @discardableResult
    public func stop(waitingAtMost seconds: Double? = nil) -> Bool {
        guard running else { return true }
        stopRequested.store(true, ordering: .relaxed)
        if let seconds {
            guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        } else {
            finished.wait()
        }
        running = false
        return true
    }
}

/// Names the calling thread for the system (`top -H`, /proc/PID/task/*/comm): Foundation's
/// `Thread.name` stays inside the process on Linux, and glibc's `pthread_setname_np` is not visible to
/// Swift without _GNU_SOURCE.
public func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = name.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, min(15, $0.count - 1)) }
    close(fd)
}
