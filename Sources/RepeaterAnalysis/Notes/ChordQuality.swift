/// The chord vocabulary of the note view: triads, suspended chords and the five common sevenths.
public enum ChordQuality: String, Sendable, CaseIterable {
    case major, minor, diminished, augmented, sus2, sus4
    case dominant7, major7, minor7, halfDiminished7, diminished7

    /// Semitones above the root.
    public var intervals: [Int] {
        switch self {
        case .major: [0, 4, 7]
        case .minor: [0, 3, 7]
        case .diminished: [0, 3, 6]
        case .augmented: [0, 4, 8]
        case .sus2: [0, 2, 7]
        case .sus4: [0, 5, 7]
        case .dominant7: [0, 4, 7, 10]
        case .major7: [0, 4, 7, 11]
        case .minor7: [0, 3, 7, 10]
        case .halfDiminished7: [0, 3, 6, 10]
        case .diminished7: [0, 3, 6, 9]
        }
    }

    /// What follows the root in a chord symbol ("" for major: "C", "Cm", "Cm7b5", "Cdim7").
    public var suffix: String {
        switch self {
        case .major: ""
        case .minor: "m"
        case .diminished: "dim"
        case .augmented: "aug"
        case .sus2: "sus2"
        case .sus4: "sus4"
        case .dominant7: "7"
        case .major7: "maj7"
        case .minor7: "m7"
        case .halfDiminished7: "m7b5"
        case .diminished7: "dim7"
        }
    }

    /// The pitch classes of this chord on `root`, as a 12-bit set (bit pc).
    public func pitchClassSet(root: Int) -> Int {
        intervals.reduce(0) { $0 | 1 << ((root + $1) % 12) }
    }
}
