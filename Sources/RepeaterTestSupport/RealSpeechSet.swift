import Foundation
import RepeaterKit

/// A recording of the real-speech set, made: its file and where each sentence's voice is.
public struct RealSpeechRecording: Sendable {
    public struct Sentence: Sendable {
        /// The voiced span at the recording's rate: first frame, and one past the last.
        public var voicedStartFrame: Int
        public var voicedEndFrame: Int
        /// Its level (RMS over the voiced span), dBFS.
        public var levelDBFS: Double
        public var voiceSet: String
        public var text: String
    }

    public var plan: RealSpeechPlan
    public var sampleRate: Int
    /// A mono 16-bit WAV in the cache.
    public var path: String
    public var sentences: [Sentence]
    public var frameCount: Int

    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
    public var speechSeconds: Double { Double(sentences.reduce(0) { $0 + $1.voicedEndFrame - $1.voicedStartFrame }) / Double(sampleRate) }
    /// The pauses between neighbouring voiced spans, seconds.
    public var pausesSeconds: [Double] {
        zip(sentences, sentences.dropFirst()).map { Double($1.voicedStartFrame - $0.voicedEndFrame) / Double(sampleRate) }
    }
}

/// The real-speech phrase set: recorded voices (`RecordedVoices`) joined into long recordings as
/// `Tests/Corpus/speech/recordings.tsv` plans them, seeded, so every sentence's voiced span is
/// known. Made at any rate (the tests use 16, 44.1 and 48 kHz) into `.build/test-corpus/speech`
/// when missing or made from another plan, voice list or generator; never committed.
///
/// A recording: 1 s of background, then each sentence (its voiced span with 50 ms either side,
/// faded over 5 ms at the cut) at a level drawn from −23 ± 10 dBFS (lowered where its peak would
/// pass −3 dBFS), followed by a pause drawn from the plan's range (between voiced spans), and 1 s
/// at the end; under all of it the plan's room tone or hiss, and for a podcast a music bed at the
/// plan's level against the speech (the mean of the sentences' levels). Every draw comes from
/// the plan's seed in a fixed order before any rate is involved, so the recording is the same
/// at every rate.
public enum RealSpeechSet {
    public static let rates = [16_000, 44_100, 48_000]
    /// Bumped whenever the making changes, so that cached recordings are made again.
    static let generatorVersion = 2
    static let referenceLevelDBFS = -23.0
    static let levelSpreadDB = 10.0
    static let edgeSeconds = 1.0
    static let marginSeconds = 0.05

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    public static let corpusDirectory = repositoryRoot + "/Tests/Corpus/speech"
    public static let cacheDirectory = repositoryRoot + "/.build/test-corpus/speech"

    public static func plans() throws -> [RealSpeechPlan] { try RealSpeechPlan.plans(path: corpusDirectory + "/recordings.tsv") }

    public static func voiceEntries() throws -> [RecordedVoices.Entry] { try RecordedVoices.entries(listPath: corpusDirectory + "/voices.tsv") }

    /// The recording of `plan` at `sampleRate`, from the cache (`directory`) or made now.
    public static func recording(_ plan: RealSpeechPlan, sampleRate: Int, directory: String = cacheDirectory) throws -> RealSpeechRecording {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pool = try voiceEntries().filter { plan.voiceSets.isEmpty || plan.voiceSets.contains($0.set) }
        guard !pool.isEmpty else { throw FixtureError(message: "\(plan.name): no voice of the sets \(plan.voiceSets) in voices.tsv") }
        let key = cacheKey(plan: plan, pool: pool)
        let base = directory + "/\(plan.name)-\(sampleRate)"
        if let cached = try? readTruth(base + ".tsv", key: key, plan: plan, sampleRate: sampleRate, path: base + ".wav") { return cached }
        return try make(plan, pool: pool, sampleRate: sampleRate, base: base, key: key, scratch: directory)
    }

    /// FNV-1a over the generator's version, the plan's line and the voices it draws from.
    static func cacheKey(plan: RealSpeechPlan, pool: [RecordedVoices.Entry]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in "\(generatorVersion)|\(plan.line)|\(pool.map(\.path).joined(separator: "|"))".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }

    private static func make(_ plan: RealSpeechPlan, pool: [RecordedVoices.Entry], sampleRate rate: Int, base: String, key: String,
                             scratch: String) throws -> RealSpeechRecording {
        // The draws, all before anything depends on the rate.
        var random = SplitMix64(seed: plan.seed)
        var order = pool
        for index in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        let chosen = (0..<plan.sentenceCount).map { order[$0 % order.count] }
        let targetLevels = chosen.map { _ in referenceLevelDBFS + levelSpreadDB * (2 * Double(random.nextUnit()) - 1) }
        let pauses = chosen.map { _ in plan.pauseSeconds.lowerBound + (plan.pauseSeconds.upperBound - plan.pauseSeconds.lowerBound) * Double(random.nextUnit()) }
        let bedStart = Double(random.nextUnit())

        let clips = try RecordedVoices.load(chosen, scratchDirectory: scratch)
        // Each clip cut to its voiced span and margin, faded, and brought to its level, at its own rate.
        var pieces: [(samples: [Float], voicedOffset: Int, voicedCount: Int, level: Double)] = []
        for (clip, target) in zip(clips, targetLevels) {
            let margin = Int(marginSeconds * Double(clip.sampleRate))
            let start = max(0, clip.voicedStartFrame - margin), end = min(clip.samples.count, clip.voicedEndFrame + margin)
            var piece = Array(clip.samples[start..<end])
            let fade = max(1, clip.sampleRate / 200)
            for index in 0..<min(fade, piece.count) {
                let gain = Float(index) / Float(fade)
                piece[index] *= gain
                piece[piece.count - 1 - index] *= gain
            }
            let level = RoomTone.levelDBFS(clip.samples[clip.voicedStartFrame..<clip.voicedEndFrame])
            let peak = Double(piece.map(abs).max() ?? 1)
            let gainDB = min(target - level, -3 - 20 * log10(max(peak, 1e-9)))
            let gain = Float(pow(10, gainDB / 20))
            pieces.append((piece.map { $0 * gain }, clip.voicedStartFrame - start, clip.voicedEndFrame - clip.voicedStartFrame, level + gainDB))
        }
        // At the recording's rate: one sox run per source rate.
        var converted = [[Float]](repeating: [], count: pieces.count)
        for sourceRate in Set(clips.map(\.sampleRate)) {
            let indices = clips.indices.filter { clips[$0].sampleRate == sourceRate }
            let done = try SoxResampler.resample(indices.map { pieces[$0].samples }, from: sourceRate, to: rate, scratchDirectory: scratch)
            for (index, samples) in zip(indices, done) { converted[index] = samples }
        }
        // Placed: each voiced span starts a pause after the previous one ends.
        var sentences: [RealSpeechRecording.Sentence] = []
        var placements: [(start: Int, samples: [Float])] = []
        var positionSeconds = edgeSeconds  // kept in seconds, so that no rounding adds up
        for index in pieces.indices {
            let sourceRate = clips[index].sampleRate
            let position = Int((positionSeconds * Double(rate)).rounded())
            let offset = SoxResampler.frame(pieces[index].voicedOffset, from: sourceRate, to: rate)
            let count = SoxResampler.frame(pieces[index].voicedCount, from: sourceRate, to: rate)
            placements.append((position - offset, converted[index]))
            sentences.append(.init(voicedStartFrame: position, voicedEndFrame: position + count, levelDBFS: pieces[index].level,
                                   voiceSet: chosen[index].set, text: chosen[index].text))
            positionSeconds += Double(pieces[index].voicedCount) / Double(sourceRate) + pauses[index]
        }
        let frameCount = sentences.last!.voicedEndFrame + Int(edgeSeconds * Double(rate))
        var mix = RoomTone.noise(plan.noise, dBFS: plan.noiseDBFS, frameCount: frameCount, seed: plan.seed &* 1_000_003 &+ UInt64(rate))
        for placement in placements {
            for (offset, sample) in placement.samples.enumerated() where placement.start + offset < frameCount { mix[placement.start + offset] += sample }
        }
        if let musicPath = plan.musicPath {
            let track = try musicTrack(musicPath, package: plan.musicPackage ?? "", sampleRate: rate, scratch: scratch)
            let meanLevel = sentences.reduce(0) { $0 + $1.levelDBFS } / Double(sentences.count)
            let bed = RoomTone.musicBed(track: track, sampleRate: rate, startFrame: Int(bedStart * Double(max(0, track.count - 4 * rate))),
                                        frameCount: frameCount, dBFS: meanLevel + plan.bedDB)
            for index in mix.indices { mix[index] += bed[index] }
        }
        guard let peak = mix.map(abs).max(), peak < 1 else { throw FixtureError(message: "\(plan.name): the mix clips; lower the levels") }
        // Written, then the truth beside it (its presence means the pair is whole).
        let temporary = base + ".\(UUID().uuidString).wav"
        let writer = try AudioFileWriter(path: temporary, format: .wav16, sampleRate: rate, channelCount: 1)
        try mix.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: frameCount) }
        writer.close()
        guard rename(temporary, base + ".wav") == 0 else { throw FixtureError(message: "cannot write '\(base).wav'") }
        let recording = RealSpeechRecording(plan: plan, sampleRate: rate, path: base + ".wav", sentences: sentences, frameCount: frameCount)
        try writeTruth(recording, key: key, path: base + ".tsv")
        return recording
    }

    /// A music track as mono at `sampleRate`.
    static func musicTrack(_ path: String, package: String, sampleRate: Int, scratch: String) throws -> [Float] {
        guard FileManager.default.fileExists(atPath: path) else { throw FixtureError(message: "'\(path)' is missing: install \(package) (scripts/setup does)") }
        return try SoxResampler.decodeMono(path, rate: sampleRate, scratchDirectory: scratch)
    }

    static func writeTruth(_ recording: RealSpeechRecording, key: String, path: String) throws {
        var text = "# key \(key) frames \(recording.frameCount)\nvoiced_start\tvoiced_end\tlevel_dbfs\tset\ttext\n"
        for sentence in recording.sentences {
            text += "\(sentence.voicedStartFrame)\t\(sentence.voicedEndFrame)\t\(String(format: "%.2f", sentence.levelDBFS))\t\(sentence.voiceSet)\t\(sentence.text)\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func readTruth(_ path: String, key: String, plan: RealSpeechPlan, sampleRate: Int, path audioPath: String) throws -> RealSpeechRecording? {
        guard FileManager.default.fileExists(atPath: audioPath), let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = lines.first?.split(separator: " ") ?? []
        guard header.count == 5, header[2] == key, let frameCount = Int(header[4]) else { return nil }
        let sentences = lines.dropFirst(2).filter { !$0.isEmpty }.compactMap { line -> RealSpeechRecording.Sentence? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, let start = Int(fields[0]), let end = Int(fields[1]), let level = Double(fields[2]) else { return nil }
            return .init(voicedStartFrame: start, voicedEndFrame: end, levelDBFS: level, voiceSet: fields[3], text: fields.count > 4 ? fields[4] : "")
        }
        guard sentences.count == plan.sentenceCount else { return nil }
        return RealSpeechRecording(plan: plan, sampleRate: sampleRate, path: audioPath, sentences: sentences, frameCount: frameCount)
    }
}
