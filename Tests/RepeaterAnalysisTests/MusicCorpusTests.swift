import Foundation
@testable import RepeaterAnalysis
import RepeaterTestSupport
import Synchronization
import Testing

/// The map on real recordings (`MusicCorpus`: game music that Debian packages install), against
/// two other trackers' stored answers. Those are not the truth; the FluidSynth accuracy set is.
/// What is asserted is what a listener would notice: the tempo they would tap (where the two
/// references agree on it), no tempo far above what anyone taps, and no tempo changes in music
/// that does not change tempo.
@Suite("Music analysis on real recordings")
struct MusicCorpusTests {
    struct Row: Sendable {
        var track: MusicCorpus.Track
        var analysis: MusicAnalysis
        var confidence: Double
        var alternativeBPM: Double
        /// Beat F (±70 ms) against essentia's beats, repeater's and aubio's.
        var beatF: Double
        var aubioBeatF: Double
        var keyRelation: KeyRelation?
        var cpuSeconds: Double

        var tempoRight: Bool { abs(analysis.tempoBPM - track.consensusBPM) <= MusicCorpus.consensusRatio * track.consensusBPM }
        var steadyReference: Bool { track.essentia.isSteady() }
        /// Tempo changes in the map (entries after the first).
        var changeCount: Int { max(0, analysis.tempoChanges.count - 1) }
        /// Above 200 BPM with no reference within 4 % of it.
        var inventedFastTempo: Bool {
            analysis.tempoBPM > 200 && ![track.essentia.bpm, track.aubio.bpm].contains {
                abs($0 - analysis.tempoBPM) <= MusicCorpus.consensusRatio * analysis.tempoBPM
            }
        }

        /// The found tempo's ratio to the consensus, named when it is a simple one.
        var verdict: String {
            guard track.isConsensus else { return "contested" }
            if tempoRight { return "ok" }
            let ratio = analysis.tempoBPM / track.consensusBPM
            for (name, value) in [("×2", 2.0), ("×½", 0.5), ("×3/2", 1.5), ("×2/3", 2.0 / 3), ("×3", 3.0), ("×⅓", 1.0 / 3), ("×4/3", 4.0 / 3), ("×3/4", 0.75)]
            where abs(ratio - value) <= MusicCorpus.consensusRatio * value {
                return "WRONG " + name
            }
            return analysis.tempoBPM == 0 ? "WRONG none" : "WRONG"
        }
    }

    /// `BeatGrid.unsureConfidence` (RepeaterKit), which this target does not import.
    static let unsureConfidence = 0.2

    @Test("on real recordings the tempo is the references' where they agree, never invented above 200 BPM, and steady music keeps one tempo")
    func realCorpus() throws {
        let corpus = try MusicCorpus.load()
        let missing = corpus.tracks.filter { !$0.isInstalled }
        try #require(missing.isEmpty, "not installed: \(missing.map(\.path).prefix(3)) …: run scripts/setup")
        #expect(corpus.tracks.count >= 40)
        #expect(Set(corpus.tracks.map(\.package)).count >= 4)

        let rows = try analyseAll(corpus.tracks)
        MusicCorpusReport.print(rows: rows, generators: corpus.generators)

        let consensus = rows.filter(\.track.isConsensus)
        let right = consensus.filter(\.tempoRight)
        #expect(Double(right.count) >= 0.95 * Double(consensus.count),
                "tempo right on \(right.count) of \(consensus.count) consensus tracks: \(consensus.filter { !$0.tempoRight }.map(\.track.name))")
        for row in rows {
            #expect(!row.inventedFastTempo, "\(row.track.name): \(row.analysis.tempoBPM) BPM, references \(row.track.essentia.bpm) and \(row.track.aubio.bpm)")
            #expect((0...1).contains(row.confidence), "\(row.track.name): confidence \(row.confidence)")
            // Bars are made of beats.
            #expect(Set(row.analysis.downbeatFrames).isSubset(of: Set(row.analysis.beatFrames)), "\(row.track.name)")
        }
        // The confidence means something: lower where the references disagree.
        let contested = rows.filter { !$0.track.isConsensus }
        if !contested.isEmpty && !consensus.isEmpty {
            let mean = { (rows: [Row]) in rows.map(\.confidence).reduce(0, +) / Double(rows.count) }
            #expect(mean(consensus) > mean(contested), "confidence: consensus \(mean(consensus)), contested \(mean(contested))")
        }
        for row in consensus where row.steadyReference {
            #expect(row.changeCount <= 1, "\(row.track.name): \(row.changeCount) tempo changes in steady music: \(row.analysis.tempoChanges)")
        }
    }

    /// Every track, read and analysed as the player does (64 Ki-frame blocks), on two threads.
    private func analyseAll(_ tracks: [MusicCorpus.Track]) throws -> [Row] {
        let results = Mutex<[Int: Result<Row, any Error>]>([:])
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < tracks.count else { return }
                let result = Result { try analyse(tracks[index]) }
                results.withLock { $0[index] = result }
            }
        }
        return try results.withLock { done in try tracks.indices.map { try done[$0]!.get() } }
    }

    private func analyse(_ track: MusicCorpus.Track) throws -> Row {
        let start = ProcessCPU.threadSeconds()
        let analyzer = try SoundFileReader.musicAnalyzer(fedWith: track.path)
        let analysis = try analyzer.finish()
        let cpu = ProcessCPU.threadSeconds() - start
        let rate = Double(analysis.sampleRate)
        let beats = analysis.beatFrames.map { Double($0) / rate }
        var relation: KeyRelation?
        if let key = analysis.key, let reference = track.essentia.key.flatMap(KeyRelation.parse) {
            relation = KeyRelation(found: (key.tonic, key.isMinor), reference: reference)
        }
        return Row(track: track, analysis: analysis,
                   confidence: analyzer.diagnostics.tempoConfidence, alternativeBPM: analyzer.diagnostics.alternativeBPM,
                   beatF: BeatMetrics.fMeasure(estimated: beats, truth: track.essentia.beats),
                   aubioBeatF: BeatMetrics.fMeasure(estimated: track.aubio.beats, truth: track.essentia.beats),
                   keyRelation: relation, cpuSeconds: cpu)
    }
}

/// CPU time of the calling thread (the corpus is analysed on two).
enum ProcessCPU {
    static func threadSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
