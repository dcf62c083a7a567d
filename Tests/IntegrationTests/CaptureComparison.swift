import Foundation
import RepeaterTestSupport
import Testing

/// What the graph reported losing between the player and the capture client, from the capture's
/// `--log`: the capture frames of the cycles the server skipped the capture in ("gap FRAME N") and
/// of the xruns it reported ("xrun FRAME": placed within a cycle or two, from JACK's notification
/// thread). On this virtual machine even an idle `jackd -R` has its dummy driver wake late now and
/// then; a period lost, repeated or silent there is the graph's, not the player's.
struct GraphLosses {
    /// The capture frames of every reported loss, in order.
    var frames: [Int]
    /// The skipped cycles: (capture frame, JACK frames the server went on without the capture).
    var gaps: [(frame: Int, frames: Int)]
    var xruns: Int
    var skippedFrames: Int { gaps.reduce(0) { $0 + $1.frames } }
    /// The capture client's own callback, by windows of 0.1 s: how many, and in how many a cycle
    /// took a whole period (an idle client's figure: what the machine does to any client).
    var idleWindows = (count: 0, over: 0)

    init(logPath: String) {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        var frames: [Int] = []
        var gaps: [(Int, Int)] = []
        var xruns = 0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 3, words[0] == "gap", let frame = Int(words[1]), let skipped = Int(words[2]) {
                frames.append(frame)
                gaps.append((frame, skipped))
            } else if words.count == 2, words[0] == "xrun", let frame = Int(words[1]) {
                frames.append(frame)
            } else if words.count == 2, words[0] == "xruns" {
                xruns = Int(words[1]) ?? 0
            } else if words.count == 3, words[0] == "windows", let count = Int(words[1]), let over = Int(words[2]) {
                idleWindows = (count, over)
            }
        }
        self.frames = frames.sorted()
        self.gaps = gaps.sorted { $0.0 < $1.0 }
        self.xruns = xruns
    }

    var isEmpty: Bool { frames.isEmpty }

    /// True when the graph reported a loss in `range` (capture frames).
    func reported(in range: ClosedRange<Int>) -> Bool { frames.contains { range.contains($0) } }

    /// The capture frame that carried JACK frame time `time` (the capture's first frame was at
    /// `firstFrame`), allowing for the cycles the server skipped the capture in; nil when `time`
    /// fell in one of them.
    func captureFrame(jackTime time: Int, firstFrame: Int) -> Int? {
        var skippedBefore = 0
        for gap in gaps {
            // The capture frame `gap.frame` was recorded at JACK time firstFrame + gap.frame + the
            // frames skipped up to and including this gap.
            let resumed = firstFrame + gap.frame + skippedBefore + gap.frames
            if time >= resumed { skippedBefore += gap.frames; continue }
            if time >= resumed - gap.frames { return nil }  // in the skipped stretch
            break
        }
        return time - firstFrame - skippedBefore
    }

    var summary: String { "the graph reported \(xruns) xruns and skipped the capture for \(skippedFrames) frames" }
}

/// How a capture compares with what it should be: silence, then exactly `expected`, then silence,
/// except where the graph reported a loss (`GraphLosses`).
struct CaptureComparison {
    /// Where the capture slipped at a reported loss: the capture frame, and by how many frames the
    /// rest moved (positive: a hole or a repeat; negative: frames missing).
    var slips: [(captureFrame: Int, shift: Int)] = []
    /// Samples that differ from what they should be with no reported loss to explain them.
    var unexplained = 0
    var firstUnexplained: (captureFrame: Int, expectedFrame: Int)?
    /// The capture frame `expected` begins at (nil: the capture is silent or too short).
    var start: Int?

    /// `slack`: how far (capture frames) from a reported loss a slip may be seen: the report is
    /// placed within a cycle or two, and a resynchronisation within a few more.
    init(captured: [[Float]], expected: [[Float]], losses: GraphLosses, slack: Int = 2048) {
        let channels = expected.count
        guard let first = captured[0].firstIndex(where: { $0 != 0 }) else { return }
        let expectedFirst = expected[0].firstIndex(where: { $0 != 0 }) ?? 0
        start = first - expectedFirst
        // Where each non-silent value of channel 0 stands in `expected`, to find the place again
        // after a slip.
        var index: [Float: [Int]] = [:]
        for (frame, value) in expected[0].enumerated() where value != 0 { index[value, default: []].append(frame) }
        func matches(_ i: Int, _ j: Int) -> Bool {
            for channel in 0..<channels where captured[channel][i] != expected[channel][j] { return false }
            return true
        }
        func windowMatches(_ i: Int, _ j: Int, _ width: Int) -> Bool {
            guard i + width <= captured[0].count, j + width <= expected[0].count else { return false }
            for k in 0..<width where !matches(i + k, j + k) { return false }
            return true
        }
        var i = max(0, first - expectedFirst), j = i - (first - expectedFirst)
        var lastSound = i  // the last frame matched where the music was not silent
        // A candidate that matched no place at an offset never will (what it is tried against
        // depends on the offset only): after a failed search, the next one at the same offset
        // starts where it stopped. (Searching the whole range again at every unexplained frame
        // took minutes for a steady tone, whose values each stand in hundreds of places.)
        var failedOffset: Int?, failedEnd = 0
        func unexplainedAt(_ i: Int, _ j: Int) {
            unexplained += 1
            if firstUnexplained == nil { firstUnexplained = (i, j) }
        }
        while j < expected[0].count, i < captured[0].count {
            if matches(i, j) {
                if expected[0][j] != 0 { lastSound = i }
                i += 1
                j += 1
                continue
            }
            // A slip: only where the graph reported a loss since the last sound (a loss inside a
            // silent stretch shows only where the sound comes back).
            guard losses.reported(in: (lastSound - slack)...(i + slack)) else {
                unexplainedAt(i, j)
                i += 1
                j += 1
                continue
            }
            // The first frame after i that stands somewhere within reach, at the place nearest the
            // offset so far: a steady tone's values repeat every few of its periods, and the graph
            // loses a cycle or a few, not seconds (the first place in the file once made a lost
            // cycle, −256 frames, a slip of +7528: 8 × the tone's 973-frame cycle more; the pass's
            // end then showed as 7784 "unexplained" frames).
            var found: (Int, Int)?
            let searchEnd = min(captured[0].count, i + 2 * slack)
            let searchStart = failedOffset == i - j ? max(i, failedEnd) : i
            search: for candidate in searchStart..<max(searchStart, searchEnd) where captured[0][candidate] != 0 {
                var nearest = Int.max
                for place in index[captured[0][candidate]] ?? [] {
                    let distance = abs((candidate - place) - (i - j))
                    if distance <= 4 * slack, distance < nearest, windowMatches(candidate, place, 64) {
                        (found, nearest) = ((candidate, place), distance)
                    }
                }
                if found != nil { break search }
            }
            guard let (newI, newJ) = found else {
                (failedOffset, failedEnd) = (i - j, max(searchStart, searchEnd))
                unexplainedAt(i, j)
                i += 1
                j += 1
                continue
            }
            slips.append((i, (newI - newJ) - (i - j)))
            (i, j) = (newI, newJ)
            lastSound = i
        }
        // After the end: silence, but for a stretch repeated at a reported loss.
        while i < captured[0].count {
            if (0..<channels).contains(where: { captured[$0][i] != 0 }), !losses.reported(in: (lastSound - slack)...(i + slack)) {
                unexplainedAt(i, expected[0].count)
            }
            i += 1
        }
        if j < expected[0].count, start != nil {  // the capture ended before the music did
            unexplained += expected[0].count - j
            if firstUnexplained == nil { firstUnexplained = (i, j) }
        }
    }
}

/// Checks that `captured` is silence, then exactly `expected` (planar), then silence, except at the
/// graph's reported losses, which are counted and printed.
func expectExactlyOnce(_ captured: [[Float]], _ expected: [[Float]], losses: GraphLosses,
                       sourceLocation: SourceLocation = #_sourceLocation) {
    let comparison = CaptureComparison(captured: captured, expected: expected, losses: losses)
    guard comparison.start != nil else {
        Issue.record("the capture is silent", sourceLocation: sourceLocation)
        return
    }
    if !comparison.slips.isEmpty || !losses.isEmpty {
        print("capture: \(losses.summary); \(comparison.slips.count) slips at them: \(comparison.slips.map { "\($0.shift) at \($0.captureFrame)" })")
    }
    #expect(comparison.unexplained == 0,
            "\(comparison.unexplained) samples differ from the file (or are not silent outside it) where the graph reported no loss; the first at capture frame \(comparison.firstUnexplained?.captureFrame ?? -1), expected frame \(comparison.firstUnexplained?.expectedFrame ?? -1) (\(losses.summary))",
            sourceLocation: sourceLocation)
}

/// The cycles a player says it lost, from its last JSON status line: the server skipped it
/// (`missed_cycles`), or its render helper was late and silence went out (`late`).
func playerLostCycles(_ stdout: String) -> Int {
    let status = statusLines(stdout).last ?? [:]
    return (status["missed_cycles"] as? Int ?? 0) + (status["late"] as? Int ?? 0)
}

/// Checks that a captured steady tone has no hole: no run longer than `longest` frames where its
/// envelope falls below `threshold` in `range`, except where the graph reported a loss (within
/// `slack` frames: counted and printed), or one for each cycle the player itself says it lost
/// (`playerStdout`, its JSON status: the server skipped it, `missed_cycles`; its render helper was
/// late and silence went out, `late`), as `expectLoopCaptureExact` allows.
func expectNoHoles(_ samples: [Float], in range: Range<Int>, losses: GraphLosses, playerStdout: String = "", threshold: Float = 0.05,
                   longest: Int = 96, slack: Int = 2048, sourceLocation: SourceLocation = #_sourceLocation) {
    let holes = quietRuns(samples, threshold: threshold, in: range, longerThan: longest)
    let excused = holes.filter { losses.reported(in: ($0.at - slack)...($0.at + $0.length + slack)) }
    let unexplained = holes.filter { hole in !excused.contains { $0.at == hole.at } }
    let ownLosses = playerLostCycles(playerStdout)
    if !holes.isEmpty || !losses.isEmpty || ownLosses > 0 {
        print("holes: \(losses.summary); \(excused.count) holes at them (\(excused.map { "\($0.length) at \($0.at)" })); the player lost \(ownLosses) cycles")
    }
    #expect(unexplained.count <= ownLosses,
            "holes where the graph reported no loss: \(unexplained.map { "\($0.length) frames at \($0.at)" }) (\(losses.summary); the player lost \(ownLosses) cycles)",
            sourceLocation: sourceLocation)
}

/// Checks a capture of a looping ramp (`frames`: the source frame each capture frame carries, nil
/// for silence): runs of consecutive frames joined only at reported wraps (`wraps`: "from>to").
/// A jump or silence within `slack` frames of a loss the graph reported is counted in `atLosses`,
/// not as a jump or a hole: what went out meanwhile is unknown (PipeWire skips a client for a cycle
/// without reporting an xrun; the capture's log has it as a gap).
/// Returns (seams, unexplained jumps, unexplained silent frames inside and the stretches they make,
/// slips at reported losses, first problem).
func checkLoopCapture(_ frames: [Int?], wraps: Set<String>, losses: GraphLosses, slack: Int = 2048)
    -> (seams: Int, jumps: Int, holes: Int, holeRuns: Int, atLosses: Int, problem: String) {
    guard let first = frames.firstIndex(where: { $0 != nil }), let last = frames.lastIndex(where: { $0 != nil }) else { return (0, 0, 0, 0, 0, "silent") }
    var seams = 0, jumps = 0, holes = 0, holeRuns = 0, atLosses = 0, problem = ""
    var lastSound = first
    for k in (first + 1)...last {
        guard let previous = frames[k - 1], let current = frames[k] else {
            if frames[k] != nil || frames[k - 1] != nil, losses.reported(in: (lastSound - slack)...(k + slack)) {
                if frames[k - 1] != nil { atLosses += 1 }  // a stretch of silence at a loss, counted once
                continue
            }
            if frames[k - 1] == nil, losses.reported(in: (lastSound - slack)...(k + slack)) { continue }
            if holes == 0 && problem.isEmpty { problem = "silence at \(k)" }
            if frames[k - 1] != nil { holeRuns += 1 }
            holes += 1
            continue
        }
        lastSound = k
        if current == previous + 1 { continue }
        if wraps.contains("\(previous + 1)>\(current)") { seams += 1 } else if losses.reported(in: (k - slack)...(k + slack)) { atLosses += 1 } else {
            if problem.isEmpty { problem = "at \(k): \(previous) → \(current)" }
            jumps += 1
        }
    }
    return (seams, jumps, holes, holeRuns, atLosses, problem)
}

/// A player's process callback judged by windows (its JSON status lines, one per window): how many
/// windows, and in how many its worst cycle (`load_max`) took a whole period or more.
func callbackWindows(_ stdout: String) -> (count: Int, over: Int) {
    let peaks = statusLines(stdout).compactMap { $0["load_max"] as? Double }
    return (peaks.count, peaks.filter { $0 >= 1 }.count)
}

/// Checks that the player's callback overran its period in at most `share` of its status windows,
/// and prints the capture client's (idle) figure from the same run beside it. A single overrun says
/// little on this virtual machine (the hypervisor takes the CPU away now and then, from any thread);
/// a share says whether the player keeps up.
func expectCallbackKeepsUp(_ stdout: String, losses: GraphLosses, share: Double = 0.1, label: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    let player = callbackWindows(stdout)
    let idle = losses.idleWindows
    print("\(label): the player's callback overran its period in \(player.over) of \(player.count) windows; an idle client's in \(idle.over) of \(idle.count); \(losses.summary)")
    #expect(player.count > 0 && Double(player.over) <= share * Double(player.count),
            "\(label): the callback overran in \(player.over) of \(player.count) windows (idle client: \(idle.over) of \(idle.count))",
            sourceLocation: sourceLocation)
}

/// Judges a loop capture (`checkLoopCapture`): no jump anywhere but at a reported wrap or a loss the
/// graph reported; a silent stretch only at such a loss, or for a cycle the player itself says it
/// lost (the server skipped it: `missed_cycles`; its helper was late: `late`); each reported loss
/// explains at most one slip.
func expectLoopCaptureExact(_ check: (seams: Int, jumps: Int, holes: Int, holeRuns: Int, atLosses: Int, problem: String),
                            _ stdout: String, losses: GraphLosses, sourceLocation: SourceLocation = #_sourceLocation) {
    let ownLosses = playerLostCycles(stdout)
    #expect(check.jumps == 0, "jumps where the graph reported no loss: \(check.jumps): \(check.problem)", sourceLocation: sourceLocation)
    #expect(check.holeRuns <= ownLosses,
            "\(check.holeRuns) silent stretches (\(check.holes) frames) where the graph reported no loss, the player \(ownLosses) lost cycles: \(check.problem)",
            sourceLocation: sourceLocation)
    #expect(check.atLosses <= losses.frames.count, "\(check.atLosses) slips for \(losses.frames.count) reported losses", sourceLocation: sourceLocation)
}

/// A flood's effect on the audio, from the player's `REPEATER_CALLBACK_STATS`: its cost would show
/// in every cycle, so the callback's p99.9 cycle stays far from the period (a single cycle the
/// virtual machine or the kernel's packet work paused is printed by the caller, as the worst, not
/// judged), and the render helper's late periods stay a small share of the cycles (a late period is
/// silence; the machine's own stalls make one now and then: beside two busy loops a few in a
/// thousand, with or without a flood). When the machine stalled in the run more often than one
/// cycle in a thousand (xruns and cycles the server skipped this client in, in the same statistics),
/// the p99.9 cycle is one of those stalls: the mean cycle (where a flood's cost would show) is
/// judged instead, and the p99.9 printed.
func expectFloodLeavesAudioAlone(_ stats: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
    let p999 = stats["p999"] as? Double ?? 1, mean = stats["mean"] as? Double ?? 1
    let late = stats["late"] as? Int ?? 0, cycles = stats["cycles"] as? Int ?? 0
    let stalls = (stats["xruns"] as? Int ?? 0) + (stats["missed_cycles"] as? Int ?? 0)
    if Double(stalls) > 0.001 * Double(cycles) {
        print("flood: the machine stalled \(stalls) times in \(cycles) cycles: the callback's mean cycle judged (\(mean) of the period), its p99.9 \(p999)")
        #expect(mean < 0.05, "the callback's mean cycle took \(mean) of the period: \(stats)", sourceLocation: sourceLocation)
    } else {
        #expect(p999 < 0.5, "the callback's p99.9 cycle took \(p999) of the period: \(stats)", sourceLocation: sourceLocation)
    }
    #expect(cycles > 0 && Double(late) <= 0.005 * Double(cycles), "\(late) late periods in \(cycles) cycles: \(stats)", sourceLocation: sourceLocation)
}
