import Foundation
import RepeaterKit
import RepeaterTestSupport

// `repeater-capture --write-ramp FILE SECONDS` writes the stereo ramp the loop checks use (each
// frame's left sample encodes its own frame number).
//
// `repeater-capture --ramp-report CAPTURE.wav --log CAPTURE.log --events PLAYER.jsonl` reads a
// capture of repeater playing that ramp in a loop and says what the listener got: runs of
// consecutive frames joined at reported wraps (seams), unexplained jumps, and each silent stretch,
// classified by what the ramp did across it (a block lost and replaced by silence, or silence
// inserted with nothing lost) and whether the server skipped the capture client in a cycle right
// there (its frame time jumped: the "gap" lines of --log). It is scripts/starve's analysis.

func writeRampFile(path: String, seconds: Double) throws {
    try writeRamp(path: path, frames: Int(seconds * 48_000), channels: 2)
}

func rampReport(capturePath: String, logPath: String, eventsPath: String) throws -> String {
    let (info, samples) = try readAll(capturePath)
    let channels = info.channelCount
    let frames: [Int?] = stride(from: 0, to: samples.count, by: channels).map { index in
        let value = samples[index]
        return value == 0 ? nil : (Int((value * Float(1 << 23)).rounded()) - 1) / 2
    }
    let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    let gaps = log.split(separator: "\n").compactMap { line -> Int? in
        let words = line.split(separator: " ")
        return words.count == 3 && words[0] == "gap" ? Int(words[1]) : nil
    }
    let events = (try? String(contentsOfFile: eventsPath, encoding: .utf8)) ?? ""
    var wraps = Set<String>()
    var lastStatus = ""
    for line in events.split(separator: "\n") {
        if line.hasPrefix("{\"state\"") { lastStatus = String(line) }
        guard line.contains("\"event\":\"wrap\""),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let from = object["from"] as? Int, let to = object["to"] as? Int else { continue }
        wraps.insert("\(from)>\(to)")
    }
    guard let first = frames.firstIndex(where: { $0 != nil }), let last = frames.lastIndex(where: { $0 != nil }) else {
        return "the capture is silent"
    }
    var seams = 0, jumps = 0, lost = 0, inserted = 0, other = 0, atGap = 0, silences = 0, silentFrames = 0
    var lines: [String] = []
    var k = first + 1
    while k <= last {
        if let current = frames[k], let previous = frames[k - 1] {
            if current != previous + 1 {
                if wraps.contains("\(previous + 1)>\(current)") { seams += 1 } else {
                    jumps += 1
                    lines.append("  jump at capture frame \(k): ramp \(previous) → \(current)")
                }
            }
            k += 1
            continue
        }
        // A silent stretch from k: what came before and after it.
        let start = k
        while k <= last && frames[k] == nil { k += 1 }
        let length = k - start
        k += 1   // frames[k] (after the stretch) is checked against the frame before the stretch below
        silences += 1
        silentFrames += length
        guard let before = frames[start - 1], let after = frames[k - 1] else { continue }
        let skipped = after - before - 1
        let kind: String
        if skipped == 0 {
            inserted += 1
            kind = "silence inserted, nothing lost"
        } else if skipped == length {
            lost += 1
            kind = "\(skipped) frames lost, replaced by silence"
        } else {
            other += 1
            kind = "ramp \(before) → \(after) across it"
        }
        let nearGap = gaps.contains { $0 >= start - length && $0 <= start + length }
        if nearGap { atGap += 1 }
        lines.append("  \(length) silent frames at capture frame \(start): \(kind)\(nearGap ? "; the server skipped the capture in a cycle there" : "")")
    }
    var report = "captured \(last - first + 1) frames: \(seams) seams at reported wraps, \(jumps) unexplained jumps, "
        + "\(silences) silent stretches (\(silentFrames) frames: \(lost) lost blocks, \(inserted) inserted, \(other) other; "
        + "\(atGap) at a cycle the server skipped the capture in); the capture saw \(gaps.count) skipped cycles\n"
    report += lines.prefix(40).joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    if let object = try? JSONSerialization.jsonObject(with: Data(lastStatus.utf8)) as? [String: Any] {
        report += "repeater's last status: underruns \(object["underruns"] ?? "?"), xruns \(object["xruns"] ?? "?"), missed_cycles \(object["missed_cycles"] ?? "?")\n"
    }
    return report
}
