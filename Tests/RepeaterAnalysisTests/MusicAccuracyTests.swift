import Foundation
@testable import RepeaterAnalysis
import RepeaterTestSupport
import Testing

/// The accuracy set (`AccuracySet`: twelve pieces written as MIDI and rendered by FluidSynth),
/// analysed as a player would stream them from disk, against what their scores say.
@Suite("Music analysis accuracy")
struct MusicAccuracyTests {
    struct Row {
        var piece: AccuracyPiece
        var analysis: MusicAnalysis
        var diagnostics: MusicAnalyzer.Diagnostics
        var beatF: Double
        var downbeatF: Double
        var aubioBeatF: Double
        var aubioBPM: Double
        var aubioTempoRight: Bool

        var tempoRight: Bool { BeatMetrics.tempoMatches(analysis.tempoBPM, piece.mainBPM) }
        var meterRight: Bool { analysis.beatsPerBar == piece.beatsPerBar }
        var keyRight: Bool { analysis.key == MusicalKey(tonic: piece.tonic, isMinor: piece.isMinor) }
    }

    @Test("beats, bars, tempo, meter and key of the accuracy set meet the goals, and qm-dsp beats aubio")
    func accuracySet() throws {
        try #require(FluidSynth.isAvailable, "install fluidsynth and timgm6mb-soundfont")
        let scratch = NSTemporaryDirectory() + "repeater-music-accuracy-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        var rows: [Row] = []
        for (index, piece) in AccuracySet.pieces.enumerated() {
            let path = scratch + "/piece\(index).wav"
            try FluidSynth.render(piece.song, to: path, sampleRate: piece.sampleRate)
            rows.append(try analyse(piece, path: path))
        }
        printTable(rows)

        let meanBeatF = rows.map(\.beatF).reduce(0, +) / Double(rows.count)
        let meanDownbeatF = rows.map(\.downbeatF).reduce(0, +) / Double(rows.count)
        let meanAubioF = rows.map(\.aubioBeatF).reduce(0, +) / Double(rows.count)
        #expect(rows.count >= 10)
        #expect(meanBeatF >= 0.90, "mean beat F \(meanBeatF)")
        #expect(meanDownbeatF >= 0.80, "mean downbeat F \(meanDownbeatF)")
        for row in rows {
            #expect(row.tempoRight, "\(row.piece.name): tempo \(row.analysis.tempoBPM) for \(row.piece.mainBPM)")
            #expect(row.meterRight, "\(row.piece.name): \(row.analysis.beatsPerBar) beats per bar for \(row.piece.beatsPerBar)")
            // Bars are made of beats.
            #expect(Set(row.analysis.downbeatFrames).isSubset(of: Set(row.analysis.beatFrames)), "\(row.piece.name)")
        }
        #expect(rows.filter(\.keyRight).count >= 8, "keys right: \(rows.filter(\.keyRight).count) of \(rows.count)")
        // The library chosen for beats is the better one on this set.
        #expect(meanBeatF > meanAubioF, "qm-dsp \(meanBeatF), aubio \(meanAubioF)")

        // The piece that changes tempo: both tempos are in the map, at most two bars from where
        // they change.
        for row in rows where row.piece.song.tempo.count > 1 {
            let rate = Double(row.analysis.sampleRate)
            for (startSeconds, bpm) in row.piece.tempoSegments {
                let found = row.analysis.tempoChanges.min { abs(Double($0.startFrame) / rate - startSeconds) < abs(Double($1.startFrame) / rate - startSeconds) }
                let barSeconds = 60 / bpm * Double(row.piece.beatsPerBar)
                print(String(format: "tempo map of '%@': %.1f BPM from %.2f s (true %.1f BPM from %.2f s)", row.piece.name,
                             found?.bpm ?? 0, Double(found?.startFrame ?? 0) / rate, bpm, startSeconds))
                #expect(found.map { BeatMetrics.tempoMatches($0.bpm, bpm) } == true, "\(row.piece.name): \(row.analysis.tempoChanges)")
                #expect(found.map { abs(Double($0.startFrame) / rate - startSeconds) <= 2 * barSeconds } == true,
                        "\(row.piece.name): \(row.analysis.tempoChanges)")
            }
        }
    }

    /// Streams the file through the analyzer (and aubio) in 64 Ki-frame blocks.
    private func analyse(_ piece: AccuracyPiece, path: String) throws -> Row {
        let reader = try SoundFileReader(path: path)
        let analyzer = try MusicAnalyzer(sampleRate: reader.sampleRate, channelCount: reader.channelCount)
        let aubio = try #require(AubioBeatTracker(sampleRate: reader.sampleRate))
        var block = [Float](repeating: 0, count: 65_536 * reader.channelCount)
        while true {
            let frames = block.withUnsafeMutableBufferPointer { reader.read(into: $0) }
            if frames == 0 { break }
            try block.withUnsafeBufferPointer { buffer in
                let filled = UnsafeBufferPointer(rebasing: buffer[0..<(frames * reader.channelCount)])
                try analyzer.process(filled)
                aubio.process(filled, channelCount: reader.channelCount)
            }
        }
        let analysis = try analyzer.finish()
        let rate = Double(reader.sampleRate)
        let aubioBeats = aubio.beatFrames.map { Double($0) / rate }
        let aubioIntervals = zip(aubio.beatFrames.dropFirst(), aubio.beatFrames).map { Double($0 - $1) }.sorted()
        let aubioBPM = aubioIntervals.isEmpty ? 0 : 60 * rate / aubioIntervals[aubioIntervals.count / 2]
        return Row(piece: piece, analysis: analysis, diagnostics: analyzer.diagnostics,
                   beatF: BeatMetrics.fMeasure(estimated: analysis.beatFrames.map { Double($0) / rate }, truth: piece.beatSeconds),
                   downbeatF: BeatMetrics.fMeasure(estimated: analysis.downbeatFrames.map { Double($0) / rate }, truth: piece.downbeatSeconds),
                   aubioBeatF: BeatMetrics.fMeasure(estimated: aubioBeats, truth: piece.beatSeconds),
                   aubioBPM: aubioBPM, aubioTempoRight: BeatMetrics.tempoMatches(aubioBPM, piece.mainBPM))
    }

    private func printTable(_ rows: [Row]) {
        func cell(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
        print("piece                  | tempo true/est     | beat F | downbeat F | bpb true/est (contrast 3|4) | octave (odd/even, mid)  | key true / est        | aubio F, tempo")
        for row in rows {
            let octave = row.diagnostics.octave.map {
                String(format: "%.2f, %.2f %@", min($0.even, $0.odd) / max($0.even, $0.odd), $0.midpoints, "\($0.choice)")
            } ?? "-"
            print([
                cell(row.piece.name, 22),
                cell(String(format: "%.1f / %.1f %@", row.piece.mainBPM, row.analysis.tempoBPM, row.tempoRight ? "ok" : "WRONG"), 18),
                cell(String(format: "%.3f", row.beatF), 6),
                cell(String(format: "%.3f", row.downbeatF), 10),
                cell(String(format: "%d / %d (%.2f|%.2f) %@", row.piece.beatsPerBar, row.analysis.beatsPerBar,
                            row.diagnostics.meterContrasts[3] ?? 0, row.diagnostics.meterContrasts[4] ?? 0, row.meterRight ? "ok" : "WRONG"), 27),
                cell(octave, 23),
                cell(row.piece.keyName + " / " + (row.analysis.key?.name ?? "none") + (row.keyRight ? "" : " ✗"), 21),
                String(format: "%.3f, %.1f%@", row.aubioBeatF, row.aubioBPM, row.aubioTempoRight ? "" : " ✗"),
            ].joined(separator: " | "))
        }
        let count = Double(rows.count)
        print(String(format: "mean beat F %.3f (aubio %.3f), mean downbeat F %.3f, tempo right %d/%d (aubio %d), beats per bar right %d/%d, key right %d/%d",
                     rows.map(\.beatF).reduce(0, +) / count, rows.map(\.aubioBeatF).reduce(0, +) / count,
                     rows.map(\.downbeatF).reduce(0, +) / count, rows.filter(\.tempoRight).count, rows.count,
                     rows.filter(\.aubioTempoRight).count, rows.filter(\.meterRight).count, rows.count,
                     rows.filter(\.keyRight).count, rows.count))
    }
}
