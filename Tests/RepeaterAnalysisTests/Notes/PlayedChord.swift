import Foundation
import RepeaterAnalysis
import RepeaterTestSupport

/// A chord played in a test: its keys (lowest first) and the name it should get.
struct PlayedChord {
    let keys: [Int]
    let expected: ChordName
    /// 0 = root position; k = the k lowest tones moved up an octave (close voicings only).
    let inversion: Int

    init(keys: [Int], expected: ChordName, inversion: Int = 0) {
        self.keys = keys.sorted()
        self.expected = expected
        self.inversion = inversion
    }

    /// A close-position chord on `rootKey`, inverted by moving its `inversion` lowest tones up an octave.
    init(rootKey: Int, quality: ChordQuality, inversion: Int) {
        var keys = quality.intervals.map { rootKey + $0 }
        for _ in 0..<inversion { keys.append(keys.removeFirst() + 12) }
        self.init(keys: keys, expected: ChordName(root: rootKey % 12, quality: quality, bass: inversion > 0 ? keys[0] % 12 : nil),
                  inversion: inversion)
    }

    /// A chord from its symbol and keys ("C/G", [43, 48, 52, 55, 60, 64]).
    init(_ symbol: String, _ keys: [Int]) {
        guard let name = ChordName(parsing: symbol) else { preconditionFailure("bad test chord symbol \(symbol)") }
        self.init(keys: keys, expected: name)
    }

    /// The pitch classes played.
    var pitchClasses: Set<Int> { Set(keys.map { $0 % 12 }) }

    private static let rootAmbiguous: Set<ChordQuality> = [.augmented, .diminished7, .sus2, .sus4]

    /// Right when `name` is the expected symbol; for the chords whose tones alone do not fix the
    /// root (aug, dim7, and sus2/sus4: Csus2 = Gsus4), any symbol with the same tones and bass.
    func isRight(_ name: String?) -> Bool {
        guard let name, let chord = ChordName(parsing: name) else { return false }
        if chord == expected { return true }
        guard Self.rootAmbiguous.contains(expected.quality) else { return false }
        return chord.pitchClassSet == expected.pitchClassSet && (chord.bass ?? chord.root) == keys[0] % 12
    }

    /// Root and quality right, the bass ignored (with the same allowance for those chords).
    func isRightIgnoringBass(_ name: String?) -> Bool {
        guard let name, let chord = ChordName(parsing: name) else { return false }
        if chord.root == expected.root && chord.quality == expected.quality { return true }
        return Self.rootAmbiguous.contains(expected.quality) && chord.pitchClassSet == expected.pitchClassSet
    }
}
