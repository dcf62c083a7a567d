/// A chord symbol: root, quality, and the bass when it is another chord tone (an inversion,
/// written "C/E"). Naming the bass keeps what a transcriber needs (the bass line and the
/// voicing); `root` and `quality` alone give the chord without it.
public struct ChordName: Sendable, Equatable, CustomStringConvertible {
    public var root: Int
    public var quality: ChordQuality
    /// The bass pitch class when it is a chord tone other than the root; nil in root position.
    public var bass: Int?
    public var spelling: NoteSpelling

    public init(root: Int, quality: ChordQuality, bass: Int? = nil, spelling: NoteSpelling = .common) {
        self.root = (root % 12 + 12) % 12
        self.quality = quality
        self.bass = bass.map { ($0 % 12 + 12) % 12 }
        self.spelling = spelling
    }

    /// "C", "F#m7", "Bbmaj7/D".
    public var description: String {
        spelling.name(pitchClass: root) + quality.suffix + (bass.map { "/" + spelling.name(pitchClass: $0) } ?? "")
    }

    /// The chord's pitch classes as a 12-bit set.
    public var pitchClassSet: Int { quality.pitchClassSet(root: root) }

    /// Reads a symbol this type writes (either spelling): "Am7/G" → A minor 7 over G; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let (root, suffix) = NoteSpelling.parsePitchClass(parts[0]),
              let quality = ChordQuality.allCases.first(where: { $0.suffix == suffix }) else { return nil }
        var bass: Int?
        if parts.count == 2 {
            guard let (pitchClass, rest) = NoteSpelling.parsePitchClass(parts[1]), rest.isEmpty else { return nil }
            bass = pitchClass
        }
        self.init(root: root, quality: quality, bass: bass)
    }

    /// The best chord of the vocabulary for sounding pitch classes with weights (`weights[pc]`,
    /// 0 = absent) and the lowest one sounding (`bass`). A chord qualifies when all its tones
    /// sound, except that 7, maj7 and m7 may leave out their fifth (as guitar shapes such as
    /// x32310 for C7 do) at a small cost; among those, the one whose tones carry the most weight
    /// minus the weight of the other sounding pitch classes wins; a tie goes to the chord rooted
    /// on the bass (so the symmetric chords, aug and dim7, and Csus2 = Gsus4 are named from their
    /// bass), then to the vocabulary's order. Nil with fewer than three pitch classes, or when
    /// what the chord leaves out weighs more than half of what it explains.
    public static func best(weights: [Float], bass: Int?, spelling: NoteSpelling = .common) -> ChordName? {
        precondition(weights.count == 12)
        let present = (0..<12).filter { weights[$0] > 0 }
        guard present.count >= 3 else { return nil }
        let presentSet = present.reduce(0) { $0 | 1 << $1 }
        let total = present.reduce(Float(0)) { $0 + weights[$1] }
        var best: (name: ChordName, score: Float, covered: Float)?
        for quality in ChordQuality.allCases {
            let fifthOptional = [.dominant7, .major7, .minor7].contains(quality)
            for root in 0..<12 {
                let tones = quality.pitchClassSet(root: root)
                let fifth = 1 << ((root + 7) % 12)
                let required = fifthOptional ? tones & ~fifth : tones
                guard required & presentSet == required else { continue }
                let sounding = tones & presentSet
                let covered = (0..<12).reduce(Float(0)) { sounding & (1 << $1) != 0 ? $0 + weights[$1] : $0 }
                let missingFifth = sounding != tones
                let score = covered - (total - covered) - (missingFifth ? 0.1 * covered : 0) + (root == bass ? total * 1e-3 : 0)
                if score > (best?.score ?? -.infinity) {
                    let inversion = bass.flatMap { $0 != root && tones & (1 << $0) != 0 ? $0 : nil }
                    best = (ChordName(root: root, quality: quality, bass: inversion, spelling: spelling), score, covered)
                }
            }
        }
        guard let best, total - best.covered <= 0.5 * best.covered else { return nil }
        return best.name
    }
}
