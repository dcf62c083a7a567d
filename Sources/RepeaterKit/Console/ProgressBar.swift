/// A one-line progress bar on stderr, drawn only on a terminal: `rendering [####......] 40% 0:04.000 / 0:10.000`
/// (the times only with a sample rate).
public struct ProgressBar {
    let label: String
    let enabled: Bool
    let total: Int
    let sampleRate: Int
    private var lastDrawn = -1

    public init(label: String, enabled: Bool, total: Int, sampleRate: Int) {
        self.label = label
        self.enabled = enabled
        self.total = max(1, total)
        self.sampleRate = sampleRate
    }

    /// `done` frames of `total`.
    public mutating func update(_ done: Int) {
        guard enabled else { return }
        let percent = min(100, done * 100 / total)
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let times = sampleRate > 0 ? " \(formatTime(frame: min(done, total), sampleRate: sampleRate)) / \(formatTime(frame: total, sampleRate: sampleRate))" : ""
        Console.writeErr("\r\u{1b}[K\(label) [\(bar)] \(percent)%" + times)
    }

    /// A fraction 0…1 of the whole.
    public mutating func update(fraction: Double) { update(Int((fraction * Double(total)).rounded())) }

    public func finish() {
        if enabled { Console.writeErr("\n") }
    }
}
