import RepeaterEngine

/// What a source asks of the recording's map (beats, bars, key) and of practising with it: loops by
/// bars, snapping, the count-in and the metronome, and the user's corrections.
public enum MapCommand: Equatable, Sendable {
    /// Bars `first` … `last`, inclusive: from the downbeat of `first` to the downbeat after `last`.
    case loopBars(Int, Int)
    case snap(SnapMode)
    /// The next snap mode: off → beat → bar → off (a key).
    case snapNext
    /// Clicks before each repetition (0: none).
    case countIn(Int)
    /// The next count-in: none → one bar → two bars → none (a key).
    case countInNext
    /// The metronome on (true), off (false), or the other way (nil, a key).
    case click(Bool?)
    /// Clicks mixed into the outputs too (not only the click port).
    case clickMix(Bool)
    /// A steady tempo: the beats become an even grid.
    case tempo(Double)
    case tempoDouble, tempoHalve
    /// Forget the tempo corrections (the analysis's beats again).
    case tempoDetected
    /// Move the grid by this many seconds.
    case gridNudge(Double)
    /// The beat nearest the frame heard now (nil) or at a time starts a bar.
    case downbeat(TimeSpec?)
    case beatsPerBar(Int)
    /// Forget every correction.
    case reset
    /// Report the map (an event).
    case show

    /// Parses the words after a map verb of the stdin protocol (`tempo 120`, `snap bar`, …).
    static func parse(verb: String, _ arguments: [String]) throws(RepeaterError) -> MapCommand {
        func one(_ usage: String) throws(RepeaterError) -> String {
            guard arguments.count == 1 else { throw .input("usage: \(usage)") }
            return arguments[0].lowercased()
        }
        func onOff(_ usage: String) throws(RepeaterError) -> Bool {
            switch try one(usage) {
            case "on": return true
            case "off": return false
            default: throw .input("usage: \(usage)")
            }
        }
        switch verb {
        case "snap":
            let text = try one("snap beat|bar|off")
            guard let mode = SnapMode(rawValue: text) else { throw .input("snap takes beat, bar or off, not '\(text)'") }
            return .snap(mode)
        case "count-in":
            let text = try one("count-in N (clicks before each repetition; 0: none)")
            guard let beats = Int(text), (0...16).contains(beats) else { throw .input("count-in takes 0 to 16 clicks, not '\(text)'") }
            return .countIn(beats)
        case "click": return .click(try onOff("click on|off"))
        case "click-mix": return .clickMix(try onOff("click-mix on|off (clicks in out_1/out_2 too)"))
        case "tempo":
            let text = try one("tempo BPM | tempo double | tempo half | tempo detected")
            switch text {
            case "double": return .tempoDouble
            case "half": return .tempoHalve
            case "detected": return .tempoDetected
            default:
                guard let bpm = Double(text), (20...400).contains(bpm) else { throw .input("tempo takes 20 to 400 BPM, double, half or detected; not '\(text)'") }
                return .tempo(bpm)
            }
        case "grid":
            let text = try one("grid MS (move the beats, e.g. grid +10 or grid -5)")
            guard let milliseconds = Double(text), milliseconds.isFinite, abs(milliseconds) <= 10_000 else {
                throw .input("grid takes milliseconds (-10000 to 10000), not '\(text)'")
            }
            return .gridNudge(milliseconds / 1000)
        case "downbeat":
            guard arguments.count <= 1 else { throw .input("usage: downbeat [TIME] (no TIME: the beat heard now starts a bar)") }
            return .downbeat(try arguments.first.map { (text: String) throws(RepeaterError) in try TimeSpec(parsing: text) })
        case "beats-per-bar":
            let text = try one("beats-per-bar N")
            guard let beats = Int(text), (1...16).contains(beats) else { throw .input("beats-per-bar takes 1 to 16, not '\(text)'") }
            return .beatsPerBar(beats)
        case "map":
            if arguments.isEmpty { return .show }
            guard try one("map | map reset") == "reset" else { throw .input("usage: map | map reset") }
            return .reset
        default:
            throw .input("unknown map command '\(verb)'")
        }
    }

    /// The verbs `parse` takes.
    static let verbs: Set<String> = ["snap", "count-in", "click", "click-mix", "tempo", "grid", "downbeat", "beats-per-bar", "map"]

    /// Parses `bars 17 24` or `bars 17-24` after `loop`.
    static func parseBars(_ arguments: [String]) throws(RepeaterError) -> MapCommand {
        let usage = "usage: loop bars FIRST LAST (e.g. loop bars 17 24)"
        let numbers: [Int]
        if arguments.count == 2 {
            numbers = arguments.compactMap { Int($0) }
        } else if arguments.count == 1 {
            numbers = arguments[0].split(separator: "-").compactMap { Int($0) }
        } else {
            throw .input(usage)
        }
        guard numbers.count == 2 else { throw .input(usage) }
        return .loopBars(numbers[0], numbers[1])
    }
}
