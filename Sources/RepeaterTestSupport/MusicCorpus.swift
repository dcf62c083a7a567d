import Foundation

/// The real-music corpus: recordings that Debian packages install (`Tests/Corpus/music/tracks.tsv`
/// lists each with its package), and what two other trackers found in them
/// (`Tests/Corpus/music/references.json`, written by `scripts/corpus/music-references`: essentia's
/// RhythmExtractor2013 and KeyExtractor, and aubio's beat tracker). The references are other
/// trackers' answers, not the truth: a track on whose tempo they agree (within
/// `consensusRatio`) is a consensus track, and only those are scored.
public struct MusicCorpus: Sendable {
    public struct Reference: Sendable {
        public var bpm: Double
        /// Beat times, seconds from the start.
        public var beats: [Double]
        /// "A minor" (essentia's spelling: sharps, "C# minor"), or nil.
        public var key: String?
    }

    public struct Track: Sendable {
        /// As installed, e.g. /usr/share/games/hedgewars/Data/Music/hell.ogg.
        public var path: String
        public var package: String
        /// "drums" (a beat section: drums, or a bass and chords on every beat) or "soft" (no
        /// drums: strings, piano, pads, a music box).
        public var character: String
        public var seconds: Double
        public var essentia: Reference
        public var aubio: Reference

        /// `package/file` without the folders, for tables.
        public var name: String {
            let short = package.replacingOccurrences(of: "-data", with: "")
            return short + "/" + (path as NSString).lastPathComponent
        }

        /// The two references agree on the tempo within `consensusRatio` (of essentia's).
        public var isConsensus: Bool { abs(essentia.bpm - aubio.bpm) <= MusicCorpus.consensusRatio * essentia.bpm }

        /// The consensus tempo: the mean of the two references.
        public var consensusBPM: Double { (essentia.bpm + aubio.bpm) / 2 }

        public var isInstalled: Bool { FileManager.default.isReadableFile(atPath: path) }
    }

    public static let consensusRatio = 0.04

    public var tracks: [Track]
    /// The references' generator line (versions and settings), for tables.
    public var generators: [String]

    /// The corpus's folder in the source tree.
    public static var folder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Corpus/music").path
    }

    /// Reads the list and the stored references; every listed track must have references.
    public static func load(folder: String = MusicCorpus.folder) throws -> MusicCorpus {
        let listing = try String(contentsOfFile: folder + "/tracks.tsv", encoding: .utf8)
        var listed: [(path: String, package: String, character: String)] = []
        for line in listing.split(separator: "\n") where !line.hasPrefix("#") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else { throw FixtureError(message: "tracks.tsv: '\(line)' has not path, package and character") }
            listed.append((fields[0], fields[1], fields[2]))
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/references.json"))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = root["tracks"] as? [[String: Any]] else { throw FixtureError(message: "references.json: no tracks") }
        var byPath: [String: [String: Any]] = [:]
        for entry in entries { if let path = entry["path"] as? String { byPath[path] = entry } }
        func reference(_ object: Any?) throws -> Reference {
            guard let object = object as? [String: Any], let bpm = object["bpm"] as? Double, let beats = object["beats"] as? [Double] else {
                throw FixtureError(message: "references.json: a reference without bpm or beats")
            }
            return Reference(bpm: bpm, beats: beats, key: object["key"] as? String)
        }
        var tracks: [Track] = []
        for item in listed {
            guard let entry = byPath[item.path] else {
                throw FixtureError(message: "references.json has no entry for \(item.path): run scripts/corpus/music-references")
            }
            tracks.append(Track(path: item.path, package: item.package, character: item.character,
                                seconds: entry["seconds"] as? Double ?? 0,
                                essentia: try reference(entry["essentia"]), aubio: try reference(entry["aubio"])))
        }
        let generators = ["essentia", "aubio"].compactMap { name in (root[name] as? String).map { "\(name) \($0)" } }
        return MusicCorpus(tracks: tracks, generators: generators)
    }
}

extension MusicCorpus.Reference {
    /// The beats are steady: over every window of 8 beats, the median interval stays within
    /// `ratio` of the whole track's median (a tracker's jitter and a held note do not move a median
    /// of 8; a tempo change, a rubato or a break where the beats stop does). Steady beats are what
    /// "no invented tempo changes" is judged on.
    public func isSteady(ratio: Double = 0.04) -> Bool {
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        guard intervals.count >= 8 else { return false }
        let whole = Self.median(intervals)
        for start in 0...(intervals.count - 8) where abs(Self.median(Array(intervals[start..<(start + 8)])) - whole) > ratio * whole {
            return false
        }
        return true
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// How a found key relates to a reference key, as MIREX scores key detection.
public enum KeyRelation: String, Sendable, CaseIterable {
    case same, fifth, relative, parallel, other

    /// MIREX's weights: same 1, a fifth away (same mode) 0.5, relative 0.3, parallel 0.2, other 0.
    public var weight: Double {
        switch self {
        case .same: 1
        case .fifth: 0.5
        case .relative: 0.3
        case .parallel: 0.2
        case .other: 0
        }
    }

    /// The relation of `found` to `reference`, both as (tonic pitch class, minor).
    public init(found: (tonic: Int, isMinor: Bool), reference: (tonic: Int, isMinor: Bool)) {
        let up = ((found.tonic - reference.tonic) % 12 + 12) % 12
        if found.isMinor == reference.isMinor {
            self = up == 0 ? .same : (up == 7 || up == 5) ? .fifth : .other
        } else if up == 0 {
            self = .parallel
        } else if (!reference.isMinor && up == 9) || (reference.isMinor && up == 3) {
            self = .relative
        } else {
            self = .other
        }
    }

    /// "C# minor", "Bb major", "A minor" → (pitch class, minor); nil for anything else.
    public static func parse(_ name: String) -> (tonic: Int, isMinor: Bool)? {
        let parts = name.split(separator: " ")
        guard parts.count == 2, let letter = parts[0].first else { return nil }
        let naturals: [Character: Int] = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11]
        guard var tonic = naturals[letter] else { return nil }
        for accidental in parts[0].dropFirst() {
            switch accidental {
            case "#": tonic += 1
            case "b": tonic -= 1
            default: return nil
            }
        }
        switch parts[1] {
        case "major": return ((tonic % 12 + 12) % 12, false)
        case "minor": return ((tonic % 12 + 12) % 12, true)
        default: return nil
        }
    }
}
