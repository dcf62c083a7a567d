import RepeaterEngine

/// Every command and option of `repeater`: the one table that `--help`, the parser and the shell
/// completions read (docs/manual.md and the manual page are checked against it by a test).
public enum CommandTable {
    public static let version = "0.2.0"

    static let help = OptionSpec("--help", "-h", help: "show this help")

    // Options `play` and `chime` share: where the JACK ports go.
    static let server = OptionSpec("--server", value: .text("NAME"),
                                   help: "JACK server to use (default: $JACK_DEFAULT_SERVER, else \"default\")")
    static let clientName = OptionSpec("--name", value: .text("NAME"), help: "JACK client name (default: repeater)")
    static let connect = OptionSpec("--connect", value: .choice("MODE", ["auto", "none"], open: true), help: """
        auto: the first physical playback ports;
        none: leave the ports unconnected;
        REGEX: out_k to the k-th input port matching REGEX (default: auto)
        """)
    static let startServer = OptionSpec("--start-server", help: """
        start a private jackd (ALSA with a sound card, else the dummy
        backend) and stop it on exit
        """)
    static let verbose = OptionSpec("--verbose", "-v", help: "show libjack's own messages")
    static let chimeTempo = OptionSpec("--chime-tempo", value: .text("X"), help: "scale the minute repeater's intervals (default 1)")
    static let gongLow = OptionSpec("--gong-low", value: .file("FILE", .audio), help: "the minute repeater's low gong from a file instead of a synthesized one")
    static let gongHigh = OptionSpec("--gong-high", value: .file("FILE", .audio), help: "the minute repeater's high gong from a file")

    // Options that shape the sound: `play` and `render` share them (render writes what play plays).
    static let sound: [OptionSpec] = [
        OptionSpec("--from", value: .text("TIME"), help: "start at TIME (default: A when there is a loop)"),
        OptionSpec("--loop", value: .text("A-B"), help: """
            repeat A…B (B may be `end`); wraps at the exact frame; bars:17-24 loops
            bars 17 to 24 of the recording's map
            """),
        OptionSpec("--loops", value: .text("N"), help: "play N passes through the loop, then stop (default: forever)"),
        OptionSpec("--gap", value: .text("TIME"), help: "silence before each repetition (repeat after the speaker)"),
        OptionSpec("--declick", value: .text("MS"), help: "crossfade MS milliseconds across the loop seam (default 0: exact)"),
        OptionSpec("--rate", value: .text("R"), help: "speed, pitch kept: 0.25 to 4 (0.8 plays at 80 %)"),
        OptionSpec("--pitch", value: .text("S"), help: "pitch shift in semitones, -24 to 24 (fractions allowed)"),
        OptionSpec("--engine", value: .choice("E", ["finer", "faster"]), help: "finer (Rubber Band R3, the default) or faster (R2)"),
        OptionSpec("--loop-cache", value: .choice("on|off", ["on", "off"]), help: """
            on (default): a loop at a steady speed replays its stretched pass from memory
            (from the third pass); off: every pass is stretched anew (for comparing)
            """),
        OptionSpec("--volume", value: .text("V"), help: "-6dB, +3dB or a linear gain such as 0.5 (silence to +12 dB)"),
        OptionSpec("--pan", value: .text("P"), help: "-1 left … 1 right (stereo: balance; mono: equal-power pan)"),
        OptionSpec("--isolate", value: .choice("MODE", ["off", "centre", "sides", "left", "right", "bass"], open: true), help: """
            hear one part: off (default) | centre (voice, bass, lead) | sides (karaoke) |
            left | right | bass (30-400 Hz) | band:LO-HI (Hz, e.g. band:200-2000)
            """),
        OptionSpec("--eq", value: .text("L,M,H"), help: "EQ gains in dB: low shelf 150 Hz, mid 1 kHz, high shelf 6 kHz (e.g. -24,0,3)"),
    ]

    public static let play = CommandSpec(
        name: "play", summary: "play FILE to JACK ports out_1 … out_N (also: repeater FILE)",
        usage: ["repeater play FILE [options]", "repeater play SESSION.json [options]"],
        usageSummaries: ["repeater play SESSION.json [options]": "resume a practice session"],
        description: """
        A mono FILE plays to two ports (out_1, out_2). Without --session, FILE's session is kept under
        $XDG_STATE_HOME/repeater/sessions (default ~/.local/state/…) and resumed next time.
        The map's tempo wrong by an octave (the screen asks "120.0 BPM (or 240? * doubles)" when
        unsure)? The keys * and / double and halve it; the session keeps the correction.
        """,
        options: [server, clientName, connect] + sound + [
            OptionSpec("--subs", value: .file("FILE", .subtitles), help: """
                lines to practise from subtitles, lyrics or labels (.srt .vtt .lrc .txt);
                without it, a file of the recording's name with one of those is used
                """),
            OptionSpec("--phrases", value: .choice("MODE", ["auto"]), help: "auto: lines found at the pauses of the speech (no subtitles needed)"),
            OptionSpec("--drill", value: .text("N[xK]"), help: """
                each line N times, each pass followed by a gap of K × the line (default 1.2)
                to say it back, then the next line; resumes where it stopped
                """),
            OptionSpec("--record", value: .choice("PORTS", ["auto", "none"], open: true), help: """
                input ports in_1… to record yourself on: auto (the first physical capture
                ports), none (connect them yourself) or a regular expression of output ports;
                R arms recording: every pass of the loop (in a drill, every answer) is a take
                """),
            OptionSpec("--record-channels", value: .choice("N", ["1", "2"]), help: "input ports to record (default 1)"),
            OptionSpec("--compare", value: .choice("MODE", CompareMode.allCases.map(\.rawValue)), help: """
                how t plays a take: alternate (the original pass, then yours; the default),
                both (together), take (yours alone)
                """),
            OptionSpec("--compare-pan", value: .text("P"), help: "with --compare both: 0 mixes (default), 1 puts the original left and the take right"),
            OptionSpec("--takes-max", value: .text("N"), help: "takes kept per session (default 50; the oldest not kept goes first)"),
            OptionSpec("--snap", value: .choice("MODE", SnapMode.allCases.map(\.rawValue)),
                       help: "A/B here snaps to the nearest beat or bar of the map (default: off)"),
            OptionSpec("--count-in", value: .text("N"), help: "N clicks before each repetition, at the loop's tempo at the current speed"),
            OptionSpec("--click", help: "a metronome on the map's beats, accented on each bar's first"),
            OptionSpec("--click-connect", value: .choice("MODE", ["auto", "none"], open: true), help: """
                where the `click` port goes: auto (where out_1 goes), none, or the
                input ports matching REGEX (default: auto)
                """),
            OptionSpec("--click-mix", help: "mix the clicks into out_1/out_2 as well"),
            OptionSpec("--meter", value: .choice("STAGE", ["pre", "post"]),
                       help: "meters show the file (pre) or the ports after volume and pan (post, default)"),
            OptionSpec("--session", value: .file("PATH", .session), help: "keep the session in PATH (created or resumed)"),
            OptionSpec("--no-session", help: "read and write no session"),
            OptionSpec("--fresh", help: "start over (a session file keeps its named loops)"),
            OptionSpec("--trainer", value: .text("F:S:E:T"), help: """
                speed trainer: start at F, add S every E passes of the loop, stop at T
                (0.6:0.05:3:1.0)
                """),
            OptionSpec("--transport", value: .choice("MODE", ["off", "follow", "drive"]), help: """
                off (default) | follow: play while the JACK transport rolls |
                drive: space/play/pause start and stop the transport, and follow it
                """),
            OptionSpec("--midi", help: """
                a MIDI input port `control` for a foot pedal (CC 64 play/pause, 65 A/B
                here, 66 loop, 67 back to A; `learn ACTION` rebinds)
                """),
            OptionSpec("--midi-connect", value: .text("RE"), help: "connect the MIDI output ports matching RE to `control` (implies --midi)"),
            OptionSpec("--osc", value: .text("[HOST:]PORT"), help: """
                answer OSC on UDP PORT of this computer only (127.0.0.1, ::1), or on
                HOST:PORT: 0.0.0.0:9000 takes the network too (a phone; see the manual)
                """),
            OptionSpec("--osc-allow", value: .text("LIST"), help: """
                take OSC only from these addresses or networks: 192.168.1.0/24,10.0.0.7,
                loopback, lan (default: loopback,lan: the networks listened on)
                """),
            OptionSpec("--web", value: .text("[HOST:]PORT"), help: """
                serve the practice page (waveform, loop handles, lines, takes) on TCP PORT of
                this computer only, or on HOST:PORT: 0.0.0.0:8765 for a phone (a token guards it)
                """),
            OptionSpec("--web-allow", value: .text("LIST"), help: """
                take page connections only from these addresses or networks: 192.168.1.0/24,
                loopback, lan (default: loopback,lan: the networks listened on)
                """),
            OptionSpec("--render-ahead", value: .choice("N", ["auto", "0", "1", "2", "3", "4"]), help: """
                render N periods ahead on a real-time helper thread (0: in the
                process callback; auto, the default: 2 on a real-time server while
                Rubber Band runs, else in the callback; 0 without real-time scheduling)
                """),
            OptionSpec("--reconnect", help: "when the JACK server goes away, wait for it and play on where it stopped"),
            startServer,
            chimeTempo, gongLow, gongHigh,
            OptionSpec("--status", value: .choice("MODE", ["auto", "json", "lines", "none"]),
                       help: "auto (the screen on a terminal) | json | lines | none"),
            OptionSpec("--status-hz", value: .text("HZ"), help: "status updates per second (default: 10)"),
            OptionSpec("--quit-on-eof", help: "quit when stdin reaches its end (for scripts)"),
            verbose, help,
        ],
        operand: .file("FILE", .audioOrSession),
        footer: """
        KEYS (on a terminal):
        \(KeyMap.help.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        STDIN (otherwise), one command per line:
          \(wrapWords(ControlCommand.protocolSummary, width: 94).joined(separator: "\n  "))
        EXIT: 0 done · 2 bad input (a session that cannot be read included) or no JACK server
          · 3 the JACK server went away (the session is saved on every way out)
        """)

    public static let info = CommandSpec(
        name: "info", summary: "print format, rate, channels, frames, duration",
        usage: ["repeater info FILE"],
        description: """
        Prints the container, encoding, sample rate, channels, frames and duration. A file cut short
        reports the frames really present and what its header promised.
        """,
        options: [help], operand: .file("FILE", .audio))

    public static let render = CommandSpec(
        name: "render", summary: "run the same engine offline and write a file",
        usage: ["repeater render FILE -o OUT [options]"],
        options: [
            OptionSpec("--output", "-o", value: .file("OUT", .any), help: "the file to write (required)"),
            OptionSpec("--format", value: .choice("F", OutputFormat.allCases.map(\.rawValue)), help: """
                wav (32-bit float; the default for .wav) | wav16 | wav24 | aiff | flac | ogg;
                without it the extension of OUT decides
                """),
            OptionSpec("--duration", value: .text("TIME"), help: "stop after TIME of output (default: to the end of the file; a loop needs --loops or --duration)"),
        ] + sound + [help],
        operand: .file("FILE", .audio))

    public static let chime = CommandSpec(
        name: "chime", summary: "strike the time on the minute repeater",
        usage: ["repeater chime [--at HH:MM] [options]"],
        description: """
        Strikes the time on a minute repeater: low gongs for the hours (12 at 0:xx and 12:xx), high-low
        pairs for the quarters, high gongs for the minutes past the quarter. Plays through JACK ports
        out_1 and out_2 and exits when the last gong has died away.
        """,
        options: [
            OptionSpec("--at", value: .text("HH:MM"), help: "the time to strike (default: the local time now)"),
            OptionSpec("--render", value: .file("OUT", .any), help: "write the chime to a file instead of JACK"),
            chimeTempo, gongLow, gongHigh, server, clientName, connect, startServer, verbose, help,
        ])

    public static let analyze = CommandSpec(
        name: "analyze", summary: "find the tempo, beats, bars and key of a recording (its map)",
        usage: ["repeater analyze FILE [--json]"],
        description: """
        Prints the tempo (and where it changes), the beats and the bars' first beats (seconds and
        frames), beats per bar and the key. The result is cached by the file's content under
        $XDG_CACHE_HOME/repeater/maps, where `play` finds it; a changed file is analysed again.
        When unsure whether the tempo is twice or half what it says, it says so ("or 240.0 BPM?");
        in play, * (stdin `tempo double`) and / (`tempo half`) switch, and the session keeps it.
        """,
        options: [
            OptionSpec("--json", help: "print one JSON object (sample_rate, tempo_bpm, tempo_confidence, beats, downbeats, …)"),
            OptionSpec("--no-cache", help: "analyse again, whatever the cache holds (and cache the result)"),
            help,
        ],
        operand: .file("FILE", .audio))

    public static let phrases = CommandSpec(
        name: "phrases", summary: "split speech at its pauses and write the phrases as subtitles",
        usage: ["repeater phrases FILE [--format srt|vtt|labels|json] [-o OUT]"],
        description: """
        Finds the phrases of the speech in FILE (an energy detector with hysteresis: a pause of
        0.7 s ends a phrase, 0.2 s is kept before and after, phrases of 0.5 to 8 s) and writes them
        as a file to correct and pass back with `play --subs` (default: SRT on stdout).
        """,
        options: [
            OptionSpec("--format", value: .choice("F", ["srt", "vtt", "labels", "json"]), help: "srt (default), vtt, labels (Audacity) or json; without it, -o OUT's extension decides"),
            OptionSpec("--output", "-o", value: .file("OUT", .any), help: "write to OUT instead of stdout"),
            help,
        ],
        operand: .file("FILE", .audio))

    public static let doctor = CommandSpec(
        name: "doctor", summary: "check what playback needs (JACK, real-time, folders) and say how to fix it",
        usage: ["repeater doctor [options]"],
        description: """
        Checks, one line each (ok, warn or fail, with the fix in one sentence): the JACK server and its
        rate, period and latency; real-time scheduling and this user's limits; the CPU frequency
        governor; the session, config and cache folders; midi.json; the OSC library. Exits 0 when
        playback will work, 1 otherwise.
        """,
        options: [
            server,
            OptionSpec("--json", help: "print one JSON object instead of the table (for scripts)"),
            help,
        ])

    public static let completions = CommandSpec(
        name: "completions", summary: "print the shell completion script for bash, zsh or fish",
        usage: ["repeater completions bash|zsh|fish"],
        description: """
        Prints a completion script, generated from the same table as --help. scripts/install puts them
        where each shell finds them; by hand, e.g.: repeater completions bash > ~/.local/share/bash-completion/completions/repeater
        """,
        options: [help], operand: .choice("SHELL", ["bash", "zsh", "fish"]))

    /// The subcommands, in the order the help lists them.
    public static let commands = [play, info, analyze, phrases, render, chime, doctor, completions]

    public static func command(named name: String) -> CommandSpec? { commands.first { $0.name == name } }

    public static let topLevel = CommandSpec(
        name: "", summary: "a practice player for the JACK audio graph",
        usage: [],
        options: [help, OptionSpec("--version", help: "print the version")])
}

/// Splits `text` into lines of at most `width` characters at spaces.
func wrapWords(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        if !line.isEmpty, line.count + 1 + word.count > width {
            lines.append(line)
            line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}
