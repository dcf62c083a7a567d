import Foundation
import Synchronization

/// What a receiving thread (OSC's, the practice page's) hands the control thread: a bounded list
/// of items under a lock held for an append, and a pipe the control thread polls, written once
/// until the control thread has taken what waits. A flood cannot grow memory or starve the keys:
/// what does not fit is dropped, and the caller counts it.
public final class WakingInbox<Item: Sendable>: @unchecked Sendable {
    public let capacity: Int
    private let state = Mutex(State())
    private let pipeFDs: (read: Int32, write: Int32)

    private struct State {
        var items: [Item] = []
        /// A byte is in the pipe that the control thread has not drained yet.
        var woken = false
    }

    /// `what` names the thread in the error when the pipe cannot be made.
    public init(capacity: Int, for what: String) throws(RepeaterError) {
        self.capacity = capacity
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RepeaterError(.failure, "cannot create a pipe for the \(what) thread") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        pipeFDs = (fds[0], fds[1])
    }

    deinit {
        close(pipeFDs.read)
        close(pipeFDs.write)
    }

    /// The control thread polls this; a byte arrives when the inbox gets its first item.
    public var wakeFD: Int32 { pipeFDs.read }

    /// Receiving thread: appends as many of `items` as there is room for; returns how many were dropped.
    @discardableResult
    public func post(_ items: [Item]) -> Int {
        guard !items.isEmpty else { return 0 }
        let (wake, dropped) = state.withLock { state -> (Bool, Int) in
            let room = max(0, capacity - state.items.count)
            state.items += items.prefix(room)
            defer { state.woken = true }
            return (!state.woken && room > 0, max(0, items.count - room))
        }
        if wake {
            var byte: UInt8 = 1
            _ = write(pipeFDs.write, &byte, 1)
        }
        return dropped
    }

    /// Control thread: drains the pipe and takes everything waiting.
    public func take() -> [Item] {
        var byte: UInt8 = 0
        while read(pipeFDs.read, &byte, 1) > 0 {}
        return state.withLock { state -> [Item] in
            defer { state.items = []; state.woken = false }
            return state.items
        }
    }
}
