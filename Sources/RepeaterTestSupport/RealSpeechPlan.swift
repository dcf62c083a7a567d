import Foundation

/// One recording of the real-speech phrase set, as a line of `Tests/Corpus/speech/recordings.tsv`
/// describes it: which voices, how many sentences, the pauses, the background.
public struct RealSpeechPlan: Sendable, Hashable {
    /// What the recording is for: `speech` (pauses ≥ 0.35 s, noise up to −45 dBFS: the 95 % goal),
    /// `podcast` (a music bed: the 85 % goal), `limit` (beyond the goals: reported).
    public enum Kind: String, Sendable { case speech, podcast, limit }

    public var name: String
    public var kind: Kind
    /// Sets of the voice list to draw from; empty for all of them.
    public var voiceSets: [String]
    public var sentenceCount: Int
    public var seed: UInt64
    /// Pauses between voiced spans, drawn uniformly from this range, seconds.
    public var pauseSeconds: ClosedRange<Double>
    public var noise: RoomTone.Kind
    public var noiseDBFS: Double
    /// A music bed: the package that ships it (for the error when it is missing) and the track's path.
    public var musicPackage: String?
    public var musicPath: String?
    /// The bed's RMS against the speech's (the mean of the sentences' levels), dB.
    public var bedDB: Double
    /// The line as written, part of the cache key.
    public var line: String

    public init(name: String, kind: Kind, voiceSets: [String], sentenceCount: Int, seed: UInt64, pauseSeconds: ClosedRange<Double>,
                noise: RoomTone.Kind, noiseDBFS: Double, musicPackage: String? = nil, musicPath: String? = nil, bedDB: Double = 0, line: String) {
        self.name = name
        self.kind = kind
        self.voiceSets = voiceSets
        self.sentenceCount = sentenceCount
        self.seed = seed
        self.pauseSeconds = pauseSeconds
        self.noise = noise
        self.noiseDBFS = noiseDBFS
        self.musicPackage = musicPackage
        self.musicPath = musicPath
        self.bedDB = bedDB
        self.line = line
    }

    /// The plans in `path` (tab-separated: name, class, voices, sentences, seed, pause_s, noise,
    /// noise_dbfs, music, bed_db; a header line first).
    public static func plans(path: String) throws -> [RealSpeechPlan] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw FixtureError(message: "cannot read '\(path)'") }
        var plans: [RealSpeechPlan] = []
        for (number, line) in text.split(separator: "\n").enumerated() where number > 0 && !line.hasPrefix("#") {
            func bad(_ what: String) -> FixtureError { FixtureError(message: "'\(path)' line \(number + 1): \(what)") }
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 10 else { throw bad("expected 10 tab-separated fields") }
            guard let kind = Kind(rawValue: fields[1]) else { throw bad("class '\(fields[1])' is not speech, podcast or limit") }
            let pauses = fields[5].split(separator: "-").compactMap { Double($0) }
            guard let count = Int(fields[3]), let seed = UInt64(fields[4]), pauses.count == 2, pauses[0] <= pauses[1],
                  let noise = RoomTone.Kind(rawValue: fields[6]), let noiseDBFS = Double(fields[7]) else { throw bad("a field does not parse") }
            var plan = RealSpeechPlan(name: fields[0], kind: kind, voiceSets: fields[2] == "all" ? [] : fields[2].split(separator: ",").map(String.init),
                                      sentenceCount: count, seed: seed, pauseSeconds: pauses[0]...pauses[1], noise: noise,
                                      noiseDBFS: noiseDBFS, bedDB: Double(fields[9]) ?? 0, line: String(line))
            if fields[8] != "-" {
                let parts = fields[8].split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw bad("music is PACKAGE:PATH") }
                plan.musicPackage = parts[0]
                plan.musicPath = parts[1]
            }
            plans.append(plan)
        }
        return plans
    }
}
