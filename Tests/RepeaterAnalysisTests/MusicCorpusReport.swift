import Foundation
import RepeaterTestSupport

/// The real corpus's table and summary figures, as `MusicCorpusTests` prints them (and
/// docs/manual.md quotes the summary).
enum MusicCorpusReport {
    static func print(rows: [MusicCorpusTests.Row], generators: [String]) {
        func cell(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
        Swift.print("Real recordings against two other trackers (references, not the truth: " + generators.joined(separator: "; ") + ")")
        Swift.print("track                                      | kind  |  essentia / aubio BPM | repeater BPM (or?, sure) | changes | verdict   | beat F vs essentia: repeater, aubio | key: essentia / repeater")
        for row in rows {
            let track = row.track
            let changes = row.changeCount == 0 ? "0" : "\(row.changeCount)" + (row.steadyReference && track.isConsensus && row.changeCount > 1 ? "!" : "")
            Swift.print([
                cell(track.name, 42),
                cell(track.character, 5),
                cell(String(format: "%7.1f / %6.1f%@", track.essentia.bpm, track.aubio.bpm, track.isConsensus ? "  " : " ≠"), 21),
                cell(String(format: "%6.1f (%5.1f?, %.2f)", row.analysis.tempoBPM, row.alternativeBPM, row.confidence), 24),
                cell(changes + (row.steadyReference ? " steady" : ""), 7),
                cell(row.verdict, 9),
                cell(String(format: "%.2f, %.2f", row.beatF, row.aubioBeatF), 35),
                (track.essentia.key ?? "-") + " / " + (row.analysis.key?.name ?? "none") + (row.keyRelation.map { " (\($0.rawValue))" } ?? ""),
            ].joined(separator: " | "))
        }
        Swift.print(summary(rows: rows).joined(separator: "\n"))
    }

    /// The summary figures, one per line.
    static func summary(rows: [MusicCorpusTests.Row]) -> [String] {
        var lines: [String] = []
        let consensus = rows.filter(\.track.isConsensus)
        let right = consensus.filter(\.tempoRight)
        func percent(_ part: Int, _ whole: Int) -> String { whole == 0 ? "-" : String(format: "%.0f %%", 100 * Double(part) / Double(whole)) }
        lines.append("tracks: \(rows.count) from \(Set(rows.map(\.track.package)).count) packages (\(rows.filter { $0.track.character == "drums" }.count) with drums, \(rows.filter { $0.track.character == "soft" }.count) soft), \(String(format: "%.1f", rows.map(\.track.seconds).reduce(0, +) / 60)) min; consensus (essentia and aubio within 4 %): \(consensus.count), contested: \(rows.count - consensus.count)")
        lines.append("tempo within 4 % of the consensus: \(right.count) of \(consensus.count) (\(percent(right.count, consensus.count)); goal ≥ 95 %)")
        for kind in ["drums", "soft"] {
            let those = consensus.filter { $0.track.character == kind }
            lines.append("  \(kind): \(those.filter(\.tempoRight).count) of \(those.count)")
        }
        var wrongs: [String: Int] = [:]
        for row in consensus where !row.tempoRight { wrongs[row.verdict, default: 0] += 1 }
        if !wrongs.isEmpty { lines.append("  wrong: " + wrongs.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")) }
        let fast = rows.filter { $0.analysis.tempoBPM > 200 }
        lines.append("above 200 BPM: \(fast.count) tracks, \(fast.filter(\.inventedFastTempo).count) with no reference there (goal 0)")
        let steady = consensus.filter(\.steadyReference)
        let changes = steady.map(\.changeCount)
        lines.append("consensus tracks with steady reference beats: \(steady.count); with at most one tempo change: \(changes.filter { $0 <= 1 }.count) (goal all); changes in all: \(changes.reduce(0, +)), at most \(changes.max() ?? 0) in one")
        let allChanges = rows.map(\.changeCount)
        lines.append("tempo changes on all tracks: \(allChanges.reduce(0, +)) (\(allChanges.filter { $0 == 0 }.count) tracks with one tempo)")
        if !consensus.isEmpty {
            func stats(_ values: [Double]) -> String {
                let sorted = values.sorted()
                return String(format: "mean %.2f, median %.2f", values.reduce(0, +) / Double(values.count), sorted[sorted.count / 2])
            }
            lines.append("beat F (±70 ms) against essentia's beats on consensus tracks (a figure, not a goal): repeater \(stats(consensus.map(\.beatF))); aubio \(stats(consensus.map(\.aubioBeatF)))")
        }
        let keyed = rows.compactMap(\.keyRelation)
        var counts: [KeyRelation: Int] = [:]
        for relation in keyed { counts[relation, default: 0] += 1 }
        let weighted = keyed.map(\.weight).reduce(0, +) / Double(max(1, keyed.count))
        lines.append("key against essentia's (a figure, not a goal): " + KeyRelation.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
                     + String(format: " of %d; MIREX-weighted %.2f", keyed.count, weighted))
        let contested = rows.filter { !$0.track.isConsensus }
        func unsure(_ rows: [MusicCorpusTests.Row]) -> Int { rows.filter { $0.confidence < MusicCorpusTests.unsureConfidence }.count }
        func meanConfidence(_ rows: [MusicCorpusTests.Row]) -> Double { rows.map(\.confidence).reduce(0, +) / Double(max(1, rows.count)) }
        lines.append(String(format: "tempo confidence: mean %.2f on consensus tracks, %.2f on contested; unsure (below %.2f, the screen offers the other octave) on %d of %d consensus, %d of %d contested",
                            meanConfidence(consensus), meanConfidence(contested), MusicCorpusTests.unsureConfidence,
                            unsure(consensus), consensus.count, unsure(contested), contested.count))
        if !contested.isEmpty {
            func near(_ bpm: Double, _ reference: Double) -> Bool { abs(bpm - reference) <= MusicCorpus.consensusRatio * reference }
            let withEssentia = contested.filter { near($0.analysis.tempoBPM, $0.track.essentia.bpm) }.count
            let withAubio = contested.filter { near($0.analysis.tempoBPM, $0.track.aubio.bpm) }.count
            lines.append("contested (not scored): \(contested.count); repeater agrees with essentia on \(withEssentia), with aubio on \(withAubio), with neither on \(contested.count - withEssentia - withAubio)")
        }
        let seconds = rows.map(\.track.seconds).reduce(0, +)
        let cpu = rows.map(\.cpuSeconds).reduce(0, +)
        lines.append(String(format: "CPU (this build, reading included): %.1f s for %.1f min, %.2f s per 5 min", cpu, seconds / 60, cpu / seconds * 300))
        return lines
    }
}
