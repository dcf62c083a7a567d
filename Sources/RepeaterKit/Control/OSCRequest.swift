import RepeaterEngine

/// An OSC argument as liblo decoded it, reduced to what the namespace uses.
public enum OSCArgument: Equatable, Sendable {
    case float(Double)
    case int(Int)
    case string(String)
    /// Any other OSC type (its type tag).
    case other(Character)
}

/// What one OSC message asks for, decided from its path and arguments alone (pure: fuzzed).
public enum OSCRequest: Equatable, Sendable {
    case command(ControlCommand)
    /// `/repeater/subscribe [i port]`: nil answers to the sender's own port.
    case subscribe(port: Int?)
    /// `/repeater/unsubscribe [i port]`: nil stops everything sent to the sender's host.
    case unsubscribe(port: Int?)

    /// The namespace (docs/manual.md: *Playing along*).
    public static let paths = [
        "/repeater/play", "/repeater/pause", "/repeater/toggle", "/repeater/seek f", "/repeater/a [f]", "/repeater/b [f]",
        "/repeater/loop ff", "/repeater/loop/on", "/repeater/loop/off", "/repeater/loop/select s", "/repeater/rate f",
        "/repeater/pitch f", "/repeater/volume f", "/repeater/pan f", "/repeater/chime", "/repeater/save", "/repeater/quit",
        "/repeater/loop/bars ii", "/repeater/snap s", "/repeater/count-in i", "/repeater/click i", "/repeater/tempo f",
        "/repeater/tempo/double", "/repeater/tempo/half", "/repeater/downbeat", "/repeater/beats-per-bar i",
        "/repeater/isolate s", "/repeater/eq fff", "/repeater/notes s", "/repeater/line/next", "/repeater/line/prev", "/repeater/line i",
        "/repeater/record i", "/repeater/calibrate", "/repeater/take/play [i]", "/repeater/take/stop",
        "/repeater/subscribe [i]", "/repeater/unsubscribe [i]",
    ]

    /// Decodes a message; a one-line error for an unknown path, wrong arguments, or a value out of
    /// range. Integers are accepted where a float is expected.
    public static func decode(path: String, arguments: [OSCArgument]) -> Result<OSCRequest, OSCError> {
        func number(_ index: Int) -> Double? {
            switch arguments[index] {
            case .float(let value): return value.isFinite ? value : nil
            case .int(let value): return Double(value)
            default: return nil
            }
        }
        func usage(_ form: String) -> Result<OSCRequest, OSCError> {
            .failure(OSCError(message: "\(path) takes \(form)"))
        }
        func none(_ command: ControlCommand) -> Result<OSCRequest, OSCError> {
            arguments.isEmpty ? .success(.command(command)) : usage("no arguments")
        }
        func one(_ form: String, _ range: ClosedRange<Double>, _ make: (Double) -> ControlCommand) -> Result<OSCRequest, OSCError> {
            guard arguments.count == 1, let value = number(0) else { return usage(form) }
            guard range.contains(value) else {
                return .failure(OSCError(message: "\(path) \(value) is out of range (\(range.lowerBound) to \(range.upperBound))"))
            }
            return .success(.command(make(value)))
        }
        switch path {
        case "/repeater/play": return none(.play)
        case "/repeater/pause": return none(.pause)
        case "/repeater/toggle": return none(.toggle)
        case "/repeater/chime": return none(.chimeNow)
        case "/repeater/save": return none(.save)
        case "/repeater/quit": return none(.quit)
        case "/repeater/loop/on": return none(.loopOn(true))
        case "/repeater/loop/off": return none(.loopOn(false))
        case "/repeater/seek": return one("one number (seconds)", 0...1e7) { .seek(.seconds($0)) }
        case "/repeater/a", "/repeater/b":
            let isA = path.hasSuffix("a")
            if arguments.isEmpty { return .success(.command(isA ? .setA(nil) : .setB(nil))) }
            return one("no argument (here) or one number (seconds)", 0...1e7) { isA ? .setA(.seconds($0)) : .setB(.seconds($0)) }
        case "/repeater/loop":
            guard arguments.count == 2, let a = number(0), let b = number(1) else { return usage("two numbers: A and B in seconds") }
            guard a >= 0, b > a, b <= 1e7 else { return .failure(OSCError(message: "/repeater/loop \(a) \(b): A must be before B, both from 0")) }
            return .success(.command(.loop(LoopSpec(start: .seconds(a), end: .seconds(b)))))
        case "/repeater/loop/select":
            guard arguments.count == 1, case .string(let name) = arguments[0], !name.isEmpty else { return usage("one string: a named loop") }
            return .success(.command(.loopSelect(name)))
        case "/repeater/rate": return one("one number, 0.25 to 4", 0.25...4) { .rate($0) }
        case "/repeater/pitch": return one("one number of semitones, -24 to 24", -24...24) { .pitch($0) }
        case "/repeater/volume":
            guard arguments.count == 1, let decibels = number(0) else { return usage("one number: decibels, up to +12") }
            guard decibels <= 12 else { return .failure(OSCError(message: "/repeater/volume \(decibels) dB is above the +12 dB maximum")) }
            return .success(.command(.volume(decibels <= -200 ? 0 : Volume.gain(decibels: decibels))))
        case "/repeater/pan": return one("one number, -1 (left) to 1 (right)", -1...1) { .pan($0) }
        case "/repeater/loop/bars":
            guard arguments.count == 2, let first = number(0), let last = number(1), first == first.rounded(), last == last.rounded() else {
                return usage("two integers: the first and last bar")
            }
            guard first >= 1, last >= first, last <= 100_000 else { return .failure(OSCError(message: "/repeater/loop/bars \(Int(first)) \(Int(last)): bars count from 1, the first before the last")) }
            return .success(.command(.map(.loopBars(Int(first), Int(last)))))
        case "/repeater/snap":
            guard arguments.count == 1, case .string(let text) = arguments[0], let mode = SnapMode(rawValue: text) else { return usage("one string: beat, bar or off") }
            return .success(.command(.map(.snap(mode))))
        case "/repeater/count-in":
            return one("one integer: clicks before each repetition, 0 to 16", 0...16) { .map(.countIn(Int($0))) }
        case "/repeater/click": return one("one integer: 1 on, 0 off", 0...1) { .map(.click($0 != 0)) }
        case "/repeater/tempo": return one("one number: beats per minute, 20 to 400", 20...400) { .map(.tempo($0)) }
        case "/repeater/tempo/double": return none(.map(.tempoDouble))
        case "/repeater/tempo/half": return none(.map(.tempoHalve))
        case "/repeater/downbeat": return none(.map(.downbeat(nil)))
        case "/repeater/beats-per-bar": return one("one integer, 1 to 16", 1...16) { .map(.beatsPerBar(Int($0))) }
        case "/repeater/record": return one("one integer: 1 arms recording, 0 stops it", 0...1) { .take(.record($0 != 0)) }
        case "/repeater/calibrate": return none(.take(.calibrate))
        case "/repeater/take/stop": return none(.take(.stop))
        case "/repeater/take/play":
            if arguments.isEmpty { return .success(.command(.take(.play(nil)))) }
            guard arguments.count == 1, let number = number(0), number == number.rounded(), number >= 1, number <= 1_000_000 else {
                return usage("no argument (the last take) or one integer: the take's number")
            }
            return .success(.command(.take(.play(Int(number)))))
        case "/repeater/line/next": return none(.line(.next))
        case "/repeater/line/prev": return none(.line(.previous))
        case "/repeater/line":
            guard arguments.count == 1, let number = number(0), number == number.rounded(), number >= 1, number <= 1_000_000 else {
                return usage("one integer: the line's number, from 1")
            }
            return .success(.command(.line(.number(Int(number)))))
        case "/repeater/isolate":
            guard arguments.count == 1, case .string(let text) = arguments[0] else { return usage("one string: off, centre, sides, left, right, bass or band:LO-HI") }
            do { return .success(.command(.hearing(.isolate(try IsolationMode(parsing: text))))) } catch { return .failure(OSCError(message: "/repeater/isolate: " + error.message)) }
        case "/repeater/eq":
            guard arguments.count == 3, let low = number(0), let mid = number(1), let high = number(2) else { return usage("three numbers: low, mid and high gains in dB") }
            do {
                let gains = try EqualizerGains(parsing: "\(low),\(mid),\(high)")
                return .success(.command(.hearing(.equalize(lowDB: gains.lowDB, midDB: gains.midDB, highDB: gains.highDB))))
            } catch {
                return .failure(OSCError(message: "/repeater/eq: " + error.message))
            }
        case "/repeater/notes":
            guard arguments.count == 1, case .string(let text) = arguments[0], let mode = NoteViewMode(rawValue: text) else { return usage("one string: playhead or loop") }
            return .success(.command(.hearing(.notes(mode))))
        case "/repeater/subscribe", "/repeater/unsubscribe":
            let subscribe = path == "/repeater/subscribe"
            if arguments.isEmpty { return .success(subscribe ? .subscribe(port: nil) : .unsubscribe(port: nil)) }
            guard arguments.count == 1, let port = number(0), port == port.rounded(), (1...65535).contains(port) else {
                return usage("no argument, or one integer: the port status goes to")
            }
            return .success(subscribe ? .subscribe(port: Int(port)) : .unsubscribe(port: Int(port)))
        default:
            return .failure(OSCError(message: "unknown OSC path \(path); repeater answers \(paths.joined(separator: ", "))"))
        }
    }
}

/// Why an OSC message was refused: what `/repeater/error` carries back.
public struct OSCError: Error, Equatable {
    public var message: String

    public init(message: String) { self.message = message }
}
