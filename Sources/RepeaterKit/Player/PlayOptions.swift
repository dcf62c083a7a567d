import RepeaterEngine

/// Everything `repeater play` is told on the command line.
public struct PlayOptions: Sendable {
    public var path: String
    public var serverName: String?
    public var clientName = "repeater"
    public var connect: ConnectMode = .auto
    public var sound = SoundOptions()
    public var chime = ChimeOptions()
    public var startServer = false
    public var verbose = false
    public var status: StatusMode = .auto
    public var statusHz = 10.0
    public var quitOnEOF = false
    /// What the meters show: the file's own level (pre) or what leaves the ports (post).
    public var meterStage: MeterStage = .post
    /// Which session to use, and `--fresh` (start over; a session file keeps its named loops).
    public var session: SessionChoice = .keyed
    public var fresh = false
    /// The sound options given on the command line (they win over the session's values).
    public var givenSoundOptions: Set<String> = []
    public var trainer: TrainerSpec?
    /// `--transport`: nil leaves it to the session (off when it says nothing).
    public var transport: TransportMode?
    /// `--midi`: a MIDI input port `control`; `--midi-connect REGEX` connects it.
    public var midi = false
    public var midiConnect: String?
    /// `--osc [HOST:]PORT`: answer OSC on this UDP port, of this computer only or of HOST.
    public var osc: ListenAddress?
    /// `--osc-allow LIST`: the senders taken (nil: this computer, and the networks listened on).
    public var oscAllow: AllowList?
    /// `--web [HOST:]PORT`: serve the practice page on this TCP port, of this computer only or of HOST.
    public var web: ListenAddress?
    /// `--web-allow LIST`: the hosts whose connections are taken (nil: this computer, and the networks listened on).
    public var webAllow: AllowList?
    /// `--render-ahead N`: render N periods ahead on a real-time helper thread (the callback only
    /// copies), or (0) in the process callback itself; nil (the default): 1 on a real-time JACK
    /// server, 0 on one without real-time scheduling (where a helper thread would have no priority).
    public var renderAhead: Int?
    /// `--reconnect`: when the JACK server goes away, wait for it to come back and play on.
    public var reconnect = false
    /// Practising with the map: nil leaves it to the session.
    public var snap: SnapMode?
    public var countIn: Int?
    public var click: Bool?
    /// Lines: a subtitle, lyrics or label file (`--subs`), or automatic phrases (`--phrases auto`).
    public var subs: String?
    public var phrases = false
    /// `--drill N[xK]`: nil leaves it to the session.
    public var drill: DrillSpec?
    /// Where the `click` port goes (`--click-connect`; auto: where out_1 goes).
    public var clickConnect: ConnectMode = .auto
    public var clickMix = false
    /// Recording yourself: input ports and where they connect (nil: no input ports), how many.
    public var record: ConnectMode?
    public var recordChannels = 1
    /// How a take is heard back, and (for `both`) how far apart the two are panned (0 … 1).
    public var compare = CompareMode.alternate
    public var comparePan = 0.0
    public var takesMax = 50

    public init(path: String) { self.path = path }
}
