import RepeaterEngine

/// The player's state once per status window: what every sink reads (the screen, the JSON and
/// compact lines, OSC subscribers). Gathered in one place by the player, so that sinks agree.
public struct StatusSnapshot: Sendable {
    public var fileName = ""
    public var filePath = ""
    /// "playing", "paused", "ended" or "waiting for transport".
    public var state = "playing"
    public var sampleRate = 48_000
    /// The audible position (file frames) and the file's length.
    public var frame = 0
    public var duration = 0
    public var a = 0
    public var b = 0
    public var loopOn = false
    public var passes = 0
    public var rate = 1.0
    public var pitch = 0.0
    public var volume = 1.0
    public var pan = 0.0
    /// Frames the stretcher delays the output by.
    public var latency = 0
    /// The loop cache: off, keeping a pass, or replaying it.
    public var loopCache = LoopCacheState.off
    public var meterStage = MeterStage.post
    /// One per channel of the stage shown.
    public var levels: [ChannelLevel] = []
    /// The session file ("" with --no-session), the active named loop, the screen's session line.
    public var sessionPath = ""
    public var activeLoop: String?
    public var sessionLine: String?
    public var trainer: SpeedTrainer?
    public var trainerLine: String?
    public var transport = TransportMode.off
    public var transportRolling = true
    /// MIDI learn in progress: the action waiting for a message.
    public var learning: MIDIAction?
    public var midiIgnored: Int?
    /// With `--osc`: where it listens, what it refused and dropped, the subscribers.
    public var osc: OSCStatus?
    /// With `--web`: the practice page's address, clients, and what it refused, dropped or coalesced.
    public var page: PageStatus?
    public var underruns = 0
    public var xruns = 0
    /// Cycles the server ran without calling repeater (on PipeWire, where xruns are not reported).
    public var missedCycles = 0
    /// Periods the render-ahead helper had not finished in time (nil when rendering in the callback).
    public var lateCycles: Int?
    public var load = 0.0
    public var loadPeak = 0.0
    /// The process callback's own worst cycle, when the engine renders ahead on a helper thread.
    public var callbackPeak: Double?
    public var headLoads = 0
    public var headLoadMaxMilliseconds = 0.0
    public var lostMessages = 0
    /// Status lines the JSON writer had to drop since the last one that got through (back-pressure).
    public var droppedLines = 0
    /// The recording's map and where the listener is in it.
    public var map = MapSnapshot()
    /// Hearing the part: isolation, EQ, the note view.
    public var hearing = HearingSnapshot()
    /// The lines (subtitles, phrases) and a drill.
    public var lines = LinesSnapshot()
    public var takes = TakesSnapshot()

    public init() {}

    public func seconds(_ frame: Int) -> Double { Double(frame) / Double(sampleRate) }
    public func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: sampleRate) }
}

/// Where the meters measure.
public enum MeterStage: String, Sendable {
    /// The file's own level, before volume and pan (as AVAudioPlayer reports it).
    case pre
    /// What leaves the ports, after volume and pan, the chime included.
    case post
}

/// The map as the sinks show it: the analysis's state, the bar and beat heard, the grid's facts and
/// where the bars start (for the screen's ruler), and the practice settings.
public struct MapSnapshot: Sendable {
    public var state = MapState.none
    /// Bar and beat (1-based; bar 0 is a pickup) of the frame heard, when the map knows it.
    public var bar: Int?
    public var beat: Int?
    public var tempoBPM: Double?
    /// The other tempo octave, when the analysis is unsure of `tempoBPM` (the screen offers it).
    public var tempoAlternativeBPM: Double?
    public var beatsPerBar: Int?
    public var key: String?
    public var downbeatFrames: [Int] = []
    public var snap = SnapMode.off
    public var countIn = 0
    public var click = false

    public init() {}
}
