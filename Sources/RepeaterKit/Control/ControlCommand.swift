import Foundation
import RepeaterEngine
/// A command from the keyboard or from a line on stdin.
public enum ControlCommand: Equatable, Sendable {
    case play, pause, toggle
    case seek(TimeSpec)
    /// Seek relative to the audible position, in seconds.
    case seekBy(Double)
    case jumpToA
    /// Set A or B at a time, or (nil) at the frame heard now.
    case setA(TimeSpec?)
    case setB(TimeSpec?)
    /// Move A or B by this many seconds.
    case nudgeA(Double)
    case nudgeB(Double)
    case loop(LoopSpec)
    case loopOn(Bool)
    case toggleLoop
    case gap(TimeSpec)
    /// Strike the minute repeater for a time of day, or for the local time now.
    case chime(hour: Int, minute: Int)
    case chimeNow
    /// Speed (0.25 … 4), pitch (semitones, −24 … 24), relative changes, reset to 1 / 0.
    case rate(Double)
    case pitch(Double)
    case rateBy(Double)
    case pitchBy(Double)
    case resetRatePitch
    /// Volume as a linear gain; a step in dB (keys); pan −1 … 1; a pan step (keys).
    case volume(Double)
    case volumeBy(Double)
    case pan(Double)
    case panBy(Double)
    /// Sessions: save now; save the current A/B under a name; make a named loop the loop; delete one;
    /// list them; select the n-th (keys 1–9, 0-based here).
    case save
    case loopSave(String)
    /// Save the current A/B as a new loop named "loop N" (the `n` key).
    case loopSaveNew
    case loopSelect(String)
    case loopSelectIndex(Int)
    case loopDelete(String)
    case listLoops
    /// The speed trainer: start one, or stop it (nil).
    case trainer(TrainerSpec?)
    /// How to treat the JACK transport.
    case transport(TransportMode)
    /// MIDI learn: bind the next MIDI message to this action (nil: stop learning).
    case learn(MIDIAction?)
    /// MIDI learn from the keyboard: learn the next action in turn (`m`), or stop (`M`).
    case learnNext
    /// "A/B here" in turn, as the pedal does it.
    case abHere
    /// The recording's map and practising with it (Dispatcher+Map.swift).
    case map(MapCommand)
    /// Hearing the part: isolation, equalizer, note view (Dispatcher+Hearing.swift).
    case hearing(HearingCommand)
    /// Lines (subtitles, lyrics, phrases) and drills (Dispatcher+Lines.swift).
    case line(LineCommand)
    case take(TakeCommand)
    case status
    case quit
    case help

    /// The commands of the stdin protocol, for error messages and the manual.
    public static let protocolSummary = "play, pause, toggle, seek TIME, a [TIME], b [TIME], loop A-B, loop on, loop off, gap TIME, rate R, pitch S, volume V, pan P, chime [HH:MM], save, loop save NAME, loop NAME, loop delete NAME, loops, trainer FROM:STEP:EVERY:TO | off, transport off|follow|drive, learn ACTION | off, loop bars FIRST LAST, snap beat|bar|off, count-in N, click on|off, click-mix on|off, tempo BPM|double|half|detected, grid MS, downbeat [TIME], beats-per-bar N, map [reset], isolate off|centre|sides|left|right|bass|band:LO-HI, eq LOW,MID,HIGH, notes playhead|loop, line next|prev|N|again|loop on|loop off, drill N[xK] | off, record on|off, calibrate, take play [N]|stop|keep N|delete N, compare alternate|both|take, status, quit"

    /// Parses one line of the stdin protocol. Throws a one-line error for anything unknown or malformed.
    public init(line: String) throws(RepeaterError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first?.lowercased() else { throw .input("empty command") }
        let arguments = Array(words.dropFirst())
        func noArguments(_ command: ControlCommand) throws(RepeaterError) -> ControlCommand {
            guard arguments.isEmpty else { throw .input("'\(verb)' takes no argument") }
            return command
        }
        func oneArgument(_ usage: String) throws(RepeaterError) -> String {
            guard arguments.count == 1 else { throw .input("usage: \(usage)") }
            return arguments[0]
        }
        switch verb {
        case "play": self = try noArguments(.play)
        case "pause": self = try noArguments(.pause)
        case "toggle": self = try noArguments(.toggle)
        case "status": self = try noArguments(.status)
        case "quit", "exit": self = try noArguments(.quit)
        case "help": self = try noArguments(.help)
        case "seek":
            let text = try oneArgument("seek TIME (e.g. seek 1:23.5, seek +5, seek -5)")
            if text.hasPrefix("+") || text.hasPrefix("-"), let delta = Double(text) {
                // (a huge or infinite step would overflow the frame arithmetic: fuzzing found it)
                guard delta.isFinite, abs(delta) <= TimeSpec.maximumSeconds else { throw .input("seek \(text): a step of at most 10⁹ seconds") }
                self = .seekBy(delta)
            } else {
                self = .seek(try TimeSpec(parsing: text))
            }
        case "a", "b":
            guard arguments.count <= 1 else { throw .input("usage: \(verb) [TIME] (no TIME: the frame heard now)") }
            let time = try arguments.first.map { (text: String) throws(RepeaterError) in try TimeSpec(parsing: text) }
            self = verb == "a" ? .setA(time) : .setB(time)
        case "loop":
            let usage = "usage: loop A-B | loop bars FIRST LAST | loop on | loop off | loop NAME | loop save NAME | loop delete NAME"
            guard let first = arguments.first else { throw .input(usage) }
            let rest = arguments.dropFirst().joined(separator: " ")
            switch first.lowercased() {
            case "bars": self = .map(try MapCommand.parseBars(Array(arguments.dropFirst())))
            case "on" where arguments.count == 1: self = .loopOn(true)
            case "off" where arguments.count == 1: self = .loopOn(false)
            case "save", "delete":
                guard !rest.isEmpty else { throw .input("usage: loop \(first.lowercased()) NAME") }
                self = first.lowercased() == "save" ? .loopSave(rest) : .loopDelete(rest)
            default:
                // A-B is a loop by times; anything else names a saved loop.
                if arguments.count == 1 && first.contains("-") && first.first.map({ $0.isNumber || $0 == "." }) == true {
                    self = .loop(try LoopSpec(parsing: first))
                } else {
                    self = .loopSelect(arguments.joined(separator: " "))
                }
            }
        case "loops": self = try noArguments(.listLoops)
        case "save": self = try noArguments(.save)
        case "trainer":
            let text = try oneArgument("trainer FROM:STEP:EVERY:TO (e.g. 0.6:0.05:3:1.0) | trainer off")
            self = .trainer(text.lowercased() == "off" ? nil : try TrainerSpec(parsing: text))
        case "gap": self = .gap(try TimeSpec(parsing: try oneArgument("gap TIME (0 for none)")))
        case "rate", "speed":
            let text = try oneArgument("rate R (0.25 to 4; 0.8 plays at 80 %)")
            guard let value = Double(text), (0.25...4).contains(value) else { throw .input("rate takes 0.25 to 4, not '\(text)'") }
            self = .rate(value)
        case "pitch":
            let text = try oneArgument("pitch S (semitones, -24 to 24)")
            guard let value = Double(text), (-24...24).contains(value) else { throw .input("pitch takes -24 to 24 semitones, not '\(text)'") }
            self = .pitch(value)
        case "volume", "vol":
            self = .volume(try Volume.parse(try oneArgument("volume V (-6dB, +3dB, or a linear gain such as 0.5)")))
        case "pan":
            self = .pan(try Volume.parsePan(try oneArgument("pan P (-1 left, 0 centre, 1 right)")))
        case "transport":
            let text = try oneArgument("transport off|follow|drive")
            guard let mode = TransportMode(name: text.lowercased()) else { throw .input("transport takes off, follow or drive, not '\(text)'") }
            self = .transport(mode)
        case "learn":
            let names = MIDIAction.allCases.filter { $0 != .none }.map(\.name).joined(separator: ", ")
            let text = try oneArgument("learn ACTION (\(names)) | learn off")
            if text.lowercased() == "off" {
                self = .learn(nil)
            } else {
                guard let action = MIDIAction(name: text.lowercased()) else { throw .input("learn takes one of \(names), or off; not '\(text)'") }
                self = .learn(action)
            }
        case "chime":
            guard arguments.count <= 1 else { throw .input("usage: chime [HH:MM]") }
            if let text = arguments.first {
                let time = try ChimeOptions.parseTime(text)
                self = .chime(hour: time.hour, minute: time.minute)
            } else {
                self = .chimeNow
            }
        case _ where LineCommand.verbs.contains(verb):
            self = .line(try LineCommand.parse(verb: verb, arguments))
        case _ where TakeCommand.verbs.contains(verb):
            self = .take(try TakeCommand.parse(verb: verb, arguments))
        case _ where HearingCommand.verbs.contains(verb):
            self = .hearing(try HearingCommand.parse(verb: verb, arguments))
        case _ where MapCommand.verbs.contains(verb):
            self = .map(try MapCommand.parse(verb: verb, arguments))
        default:
            throw .input("unknown command '\(verb)'; try: \(ControlCommand.protocolSummary)")
        }
    }
}

