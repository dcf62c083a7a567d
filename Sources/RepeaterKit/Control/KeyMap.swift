import RepeaterEngine

/// The keys on a terminal: the keyboard source's whole vocabulary (docs/manual.md: *Keys*).
public enum KeyMap {
    /// The keys, as `?` shows them and docs/manual.md lists them.
    public static let help = """
    space play/pause · a / b set A / B here · l loop on/off · ←/→ seek 5 s · Home jump to A
    , / . move A 10 ms earlier / later · < / > move B 10 ms earlier / later · c chime the time
    [ / ] speed −/+5 % · { / } pitch −/+1 semitone · = speed 1, pitch 0
    ↑ / ↓ volume ±1 dB · ( / ) pan left / right · s save the session · N save A–B as a named loop
    1 … 9 play a named loop · m MIDI learn (again: next action) · M stop learning · q quit · ? keys
    k click on/off · K count-in 0/1/2 bars · g snap off/beat/bar · D this beat starts a bar
    * / / tempo ×2 / ÷2 · ; / ' grid 10 ms earlier / later
    i isolate: off/centre/sides/bass/left/right · v notes at the playhead / over the loop
    n / p next / previous line · r the line again · Enter loop the line on/off
    R record on/off · C calibrate the round trip · t hear the last take / the recording
    """

    public static func command(for key: Key) -> ControlCommand? {
        switch key {
        case .character("q"), .character("Q"): return .quit
        case .character(" "): return .toggle
        case .character("?"), .character("h"): return .help
        case .character("a"): return .setA(nil)
        case .character("b"): return .setB(nil)
        case .character("l"): return .toggleLoop
        case .character("c"): return .chimeNow
        case .character("t"): return .take(.playToggle)
        case .character("R"): return .take(.record(nil))
        case .character("C"): return .take(.calibrate)
        case .character("s"): return .save
        case .character("N"): return .loopSaveNew
        case .character("n"): return .line(.next)
        case .character("p"): return .line(.previous)
        case .character("r"): return .line(.again)
        case .character("\r"), .character("\n"): return .line(.loop(nil))
        case .character("m"): return .learnNext
        case .character("M"): return .learn(nil)
        case .character(let digit) where ("1"..."9").contains(digit): return .loopSelectIndex(Int(String(digit))! - 1)
        case .character("["): return .rateBy(-0.05)
        case .character("]"): return .rateBy(0.05)
        case .character("{"): return .pitchBy(-1)
        case .character("}"): return .pitchBy(1)
        case .character("="): return .resetRatePitch
        case .character(","): return .nudgeA(-0.010)
        case .character("."): return .nudgeA(0.010)
        case .character("<"): return .nudgeB(-0.010)
        case .character(">"): return .nudgeB(0.010)
        case .up: return .volumeBy(1)
        case .down: return .volumeBy(-1)
        case .character("("): return .panBy(-0.1)
        case .character(")"): return .panBy(0.1)
        case .home: return .jumpToA
        case .character("i"): return .hearing(.isolateNext)
        case .character("v"): return .hearing(.notes(nil))
        case .character("k"): return .map(.click(nil))
        case .character("K"): return .map(.countInNext)
        case .character("g"): return .map(.snapNext)
        case .character("D"): return .map(.downbeat(nil))
        case .character("*"): return .map(.tempoDouble)
        case .character("/"): return .map(.tempoHalve)
        case .character(";"): return .map(.gridNudge(-0.010))
        case .character("'"): return .map(.gridNudge(0.010))
        case .left: return .seekBy(-5)
        case .right: return .seekBy(5)
        default: return nil
        }
    }
}
