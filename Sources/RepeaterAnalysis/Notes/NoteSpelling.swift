/// How pitch classes are spelt in note and chord names. There is no key context here (key finding
/// is another analyser's job): `.common` is the spelling chord sheets use most, and the default.
public enum NoteSpelling: Sendable, Equatable {
    /// C C# D D# E F F# G G# A A# B
    case sharps
    /// C Db D Eb E F Gb G Ab A Bb B
    case flats
    /// C C# D Eb E F F# G Ab A Bb B
    case common

    /// The name of pitch class `pitchClass` (0 = C … 11 = B; any integer is reduced modulo 12).
    public func name(pitchClass: Int) -> String {
        let index = ((pitchClass % 12) + 12) % 12
        switch self {
        case .sharps: return ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"][index]
        case .flats: return ["C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"][index]
        case .common: return ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"][index]
        }
    }

    /// The scientific name of MIDI key `midi`: 60 → "C4", 69 → "A4", 21 → "A0", 108 → "C8".
    public func name(midi: Int) -> String {
        name(pitchClass: midi) + String(midi.floorDivided(by: 12) - 1)
    }

    /// The pitch class a name starting with a letter and optional `#`/`b` denotes, and the rest of
    /// the string ("Bbm7" → (10, "m7")); nil when it does not start with a note letter.
    public static func parsePitchClass(_ text: Substring) -> (pitchClass: Int, rest: Substring)? {
        guard let letter = text.first, let natural = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11][letter] else {
            return nil
        }
        var rest = text.dropFirst()
        var pitchClass = natural
        if rest.first == "#" { pitchClass += 1; rest = rest.dropFirst() } else if rest.first == "b" { pitchClass -= 1; rest = rest.dropFirst() }
        return ((pitchClass + 12) % 12, rest)
    }
}

extension Int {
    /// Division rounding towards minus infinity (MIDI 0 … 11 are octave −1).
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
