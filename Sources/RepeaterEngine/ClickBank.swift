/// The metronome's two sounds (a beat, and the accent on a bar's first beat), mono, at the output
/// rate: synthesized off the audio thread, copied here once, read by the audio thread. Each starts
/// at its crest, so its first frame is its onset.
public struct ClickBank: ~Copyable, @unchecked Sendable {
    public let beatFrames: Int
    public let accentFrames: Int
    let beat: UnsafeMutablePointer<Float>
    let accent: UnsafeMutablePointer<Float>

    public init(beat: [Float], accent: [Float]) {
        beatFrames = beat.count
        accentFrames = accent.count
        self.beat = .allocate(capacity: max(1, beat.count))
        self.accent = .allocate(capacity: max(1, accent.count))
        for (index, value) in beat.enumerated() { self.beat[index] = value }
        for (index, value) in accent.enumerated() { self.accent[index] = value }
    }

    /// No sound: clicks are silent.
    public static func silent() -> ClickBank { ClickBank(beat: [], accent: []) }

    deinit {
        beat.deallocate()
        accent.deallocate()
    }
}
