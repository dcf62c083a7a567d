import Foundation
import RepeaterEngine
import RepeaterTestSupport
import Testing

/// The two mixes, rendered once for the suite: a saxophone lead and a finger bass in the middle
/// (song), or a spoken voice and the bass in the middle (speech), over a steel-string guitar at
/// pan −0.8 and a piano at +0.8.
enum QualityFixture {
    static let mixes: Result<(song: PartMix, speech: PartMix), Error> = Result {
        let scratch = NSTemporaryDirectory() + "hearing-quality-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let song = try PartMix.render(lead: true, voice: false, scratch: scratch)
        let speech = try PartMix.render(lead: false, voice: true, scratch: scratch)
        return (song, speech)
    }
}

@Suite("Isolation quality on mixes with known parts", .enabled(if: PartMix.toolsAvailable, "needs fluidsynth, its SoundFont, espeak-ng and sox"))
struct IsolationQualityTests {
    /// The mix through `mode`, aligned with the input.
    func spectral(_ mix: PlanarAudio, _ mode: IsolationMode) -> PlanarAudio {
        PlanarAudio(channels: isolate(mix.channels, mode: mode, blocks: [256]), sampleRate: mix.sampleRate)
    }

    /// Plain mid/side: (L + R)/2 on both channels, or (L − R)/2 on the left and (R − L)/2 on the right.
    func plain(_ mix: PlanarAudio, centre: Bool) -> PlanarAudio {
        let l = mix.channels[0], r = mix.channels[1]
        if centre {
            let mid = zip(l, r).map { ($0 + $1) / 2 }
            return PlanarAudio(channels: [mid, mid], sampleRate: mix.sampleRate)
        }
        return PlanarAudio(channels: [zip(l, r).map { ($0 - $1) / 2 }, zip(l, r).map { ($1 - $0) / 2 }], sampleRate: mix.sampleRate)
    }

    func levels(_ output: PlanarAudio, _ mix: PartMix) -> [SeparationMeasures.PartLevel] {
        SeparationMeasures.partLevels(output: output, parts: mix.parts.map { ($0.name, $0.audio) })
    }

    func row(_ label: String, _ levels: [SeparationMeasures.PartLevel]) -> String {
        func db(_ value: Double) -> String { value < -99 ? "−∞" : String(format: "%.1f", value) }
        return label.padding(toLength: 22, withPad: " ", startingAt: 0)
            + levels.map { "\($0.name) \(db($0.energyWeightedDB)) [\(db($0.lowestBandDB)) … \(db($0.highestBandDB))]" }
                .joined(separator: " | ")
    }

    /// Per octave band: each part's level, for the report.
    func bandTable(_ label: String, _ levels: [SeparationMeasures.PartLevel]) -> String {
        let edges = SeparationMeasures.octaveEdgesHz.map { $0 < 1000 ? "\(Int($0.rounded()))" : String(format: "%.1fk", $0 / 1000) }
        var lines = ["\(label) by octave band from (Hz): " + edges.joined(separator: " ")]
        for level in levels {
            lines.append("  \(level.name.padding(toLength: 10, withPad: " ", startingAt: 0))"
                         + level.bandDB.map { $0.map { String(format: "%6.1f", $0) } ?? "     ·" }.joined())
        }
        return lines.joined(separator: "\n")
    }

    @Test("centre raises the centred parts' SI-SDR by at least 8 dB; sides takes them down 20 dB and keeps the side parts within 3 dB",
          arguments: ["song", "speech"])
    func quality(name: String) throws {
        let mixes = try QualityFixture.mixes.get()
        let mix = name == "song" ? mixes.song : mixes.speech
        let input = mix.mix, centred = mix.centred
        let centreOutput = spectral(input, .centre), sidesOutput = spectral(input, .sides)
        let mixSDR = SeparationMeasures.siSDR(estimate: input, reference: centred)
        let plainSDR = SeparationMeasures.siSDR(estimate: plain(input, centre: true), reference: centred)
        let spectralSDR = SeparationMeasures.siSDR(estimate: centreOutput, reference: centred)
        let centredNames = mix.parts.filter(\.isCentred).map(\.name).joined(separator: " + ")
        print("""
            [\(name)] centred: \(centredNames); sides: guitar (pan \(PartMix.guitarPan)), piano (pan \(PartMix.pianoPan)); \
            \(String(format: "%.1f", Double(mix.frameCount) / Double(mix.sampleRate))) s
            [\(name)] SI-SDR of the centred parts: mix \(String(format: "%.2f", mixSDR)) dB, plain (L+R)/2 \(String(format: "%.2f (%+.2f)", plainSDR, plainSDR - mixSDR)) dB, \
            spectral centre \(String(format: "%.2f (%+.2f)", spectralSDR, spectralSDR - mixSDR)) dB
            [\(name)] level of each part through the mode, dB: over all octave bands [lowest … highest band]:
            [\(name)]   \(row("plain (L+R)/2", levels(plain(input, centre: true), mix)))
            [\(name)]   \(row("spectral centre", levels(centreOutput, mix)))
            [\(name)]   \(row("plain (L−R)/2, (R−L)/2", levels(plain(input, centre: false), mix)))
            [\(name)]   \(row("spectral sides", levels(sidesOutput, mix)))
            \(bandTable("[\(name)] spectral centre", levels(centreOutput, mix)))
            \(bandTable("[\(name)] spectral sides", levels(sidesOutput, mix)))
            """)
        #expect(spectralSDR - mixSDR >= 8)
        for level in levels(sidesOutput, mix) {
            if mix.parts.first(where: { $0.name == level.name })!.isCentred {
                #expect(level.energyWeightedDB <= -20, "\(level.name) through sides")
            } else {
                #expect(abs(level.energyWeightedDB) <= 3, "\(level.name) through sides")
            }
        }
    }
}
