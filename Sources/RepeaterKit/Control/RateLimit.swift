import Foundation

/// A token bucket: at most `perSecond` a second on average, `burst` at once. One thread's (no
/// locking); the clock is the monotonic one, in seconds, passed in so that tests can drive it.
public struct RateLimit: Sendable {
    public let perSecond: Double
    public let burst: Double
    private var tokens: Double
    private var last: Double?

    public init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = burst ?? perSecond
        tokens = self.burst
    }

    /// Takes one token if there is one.
    public mutating func take(now: Double = RateLimit.now()) -> Bool {
        if let last { tokens = min(burst, tokens + (now - last) * perSecond) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
