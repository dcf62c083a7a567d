/// The two gong sounds of the minute repeater, mono, at the output rate: made (synthesized or
/// loaded) off the audio thread, copied here once, read by the audio thread.
public struct GongBank: ~Copyable, @unchecked Sendable {
    public let lowFrames: Int
    public let highFrames: Int
    let low: UnsafeMutablePointer<Float>
    let high: UnsafeMutablePointer<Float>

    public init(low: [Float], high: [Float]) {
        lowFrames = low.count
        highFrames = high.count
        self.low = .allocate(capacity: max(1, low.count))
        self.high = .allocate(capacity: max(1, high.count))
        for (index, value) in low.enumerated() { self.low[index] = value }
        for (index, value) in high.enumerated() { self.high[index] = value }
    }

    /// No gongs: a chime is silent (and over at once).
    public static func silent() -> GongBank { GongBank(low: [], high: []) }

    deinit {
        low.deallocate()
        high.deallocate()
    }
}
