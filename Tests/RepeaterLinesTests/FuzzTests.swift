import Foundation
import RepeaterLines
import Testing

/// Arbitrary bytes must never trap or hang a reader: every input gives lines or a `LinesError`.
@Suite("Fuzz")
struct FuzzTests {
    static let seeds: [String: String] = [
        "srt": "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hi</i> &amp; {\\an8}there\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nTwo\r\n",
        "vtt": "WEBVTT\n\nNOTE x\n\nid\n00:01.000 --> 00:02.000 align:start\n<v A>Hi <c.x>there</c> <00:01.500>&lt;\n",
        "lrc": "[ar:x]\n[offset:+100]\n[00:01.00][00:05.00]Hi <00:01.50>there\n[00:03.00]\n",
        "txt": "1.000000\t2.000000\tHi\n\\\t100\t200\n3.0\t3.0\tpoint\n",
        "json": "[\n  {\"index\":1,\"start_s\":1.000,\"end_s\":2.000,\"text\":\"Hi\\n\\u00e9\"}\n]\n",
    ]
    /// Pieces of syntax spliced in by the mutator, so that mutants reach deep into each parser.
    static let tokens: [[UInt8]] = ["-->", "\r", "\n", "\r\n", "[", "]", ":", ",", ".", "<", ">", "{\\", "}", "&", ";", "&#x",
                                    "\"", "\\u", "{", "\t", "WEBVTT", "NOTE", "99", "00:00:", "[00:", "\u{FEFF}", "é", "日"]
        .map { Array($0.utf8) } + [[0xFF, 0xFE], [0xFE, 0xFF], [0x00], [0xC3], [0x80, 0x97]]

    static func mutate(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<(1 + Int(random.next() % 6)) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 6 {
            case 0 where !bytes.isEmpty: bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.insert(contentsOf: tokens[Int(random.next() % UInt64(tokens.count))], at: position)
            case 2 where !bytes.isEmpty: bytes.removeSubrange(position..<min(bytes.count, position + Int(random.next() % 8)))
            case 3: bytes = Array(bytes.prefix(position))
            case 4: bytes.insert(contentsOf: bytes[position...].prefix(Int(random.next() % 64)), at: position)
            default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
            }
        }
        return bytes
    }

    @Test("3 000 random and mutated inputs per format read or fail with a message; lines are sane")
    func fuzz() {
        var random = SeededRandom(seed: 2026)
        var counts = (read: 0, failed: 0)
        let clock = ContinuousClock()
        var slowest = Duration.zero
        for format in LineFormat.allCases {
            let seed = Array(Self.seeds[format.rawValue]!.utf8)
            for round in 0..<3_000 {
                let input: [UInt8]
                if round % 4 == 0 {
                    input = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                } else {
                    input = Self.mutate(seed, &random)
                }
                let started = clock.now
                do {
                    let file = try LineFileReader.parse(input, fileName: "fuzz." + format.rawValue, format: format, recordingDurationSeconds: 10)
                    counts.read += 1
                    for (index, line) in file.lines.enumerated() {
                        #expect(line.startSeconds.isFinite && line.endSeconds.isFinite && line.endSeconds >= line.startSeconds)
                        if index > 0 { #expect(file.lines[index - 1].startSeconds <= line.startSeconds) }
                    }
                } catch {
                    counts.failed += 1
                    #expect(!error.message.unicodeScalars.contains { $0.properties.generalCategory == .control }
                            && error.message.hasPrefix("'fuzz."), "\(error.message.debugDescription)")
                }
                slowest = max(slowest, clock.now - started)
            }
        }
        print("fuzz: \(counts.read + counts.failed) inputs, \(counts.read) read, \(counts.failed) errors, slowest \(slowest)")
        #expect(counts.read > 1_000 && counts.failed > 1_000)  // both paths were exercised
    }

    /// Quadratic scanning would take minutes on these; linear takes a fraction of a second (debug build).
    @Test("pathological large inputs stay linear: 200 000 markup characters read in under 5 s each")
    func largeInputs() throws {
        let clock = ContinuousClock()
        let bodies = [String(repeating: "<", count: 200_000), String(repeating: "<a", count: 100_000),
                      String(repeating: "{\\", count: 100_000), String(repeating: "&#", count: 100_000),
                      String(repeating: "<0", count: 100_000), String(repeating: "[", count: 200_000)]
        var slowest = Duration.zero
        for body in bodies {
            for (name, text) in [("big.srt", "1\n00:00:01,000 --> 00:00:02,000\n" + body + "\n"),
                                 ("big.vtt", "WEBVTT\n\n00:01.000 --> 00:02.000\n" + body + "\n"),
                                 ("big.lrc", "[00:01.00]" + body + "\n")] {
                let started = clock.now
                _ = try? read(text, name)
                slowest = max(slowest, clock.now - started)
            }
        }
        let points = String(repeating: "5.0\t5.0\tpoint\n", count: 20_000)
        let started = clock.now
        #expect(try read(points, "points.txt", durationSeconds: 9).allSatisfy { $0.endSeconds == 9 })
        slowest = max(slowest, clock.now - started)
        print("large inputs: slowest \(slowest)")
        #expect(slowest < .seconds(5))
    }
}
