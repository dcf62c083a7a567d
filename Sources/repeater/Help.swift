let version = "0.1.0"

let mainHelp = """
repeater \(version): a practice player for the JACK audio graph.

USAGE
  repeater play FILE [options]          play FILE to JACK ports out_1 … out_N
  repeater play SESSION.json [options]  resume a practice session
  repeater info FILE                    print format, rate, channels, frames, duration
  repeater render FILE -o OUT [options] run the same engine offline and write a file
  repeater chime [--at HH:MM] [options] strike the time on the minute repeater
  repeater --help | --version

Run `repeater COMMAND --help` for a command's options.
TIME is 83.5 (seconds), 1:23.5, 1:02:03.25, or a frame count such as 3984000f.
"""

let playHelp = """
USAGE: repeater play FILE [options]
       repeater play SESSION.json [options]

A mono FILE plays to two ports (out_1, out_2). Without --session, FILE's session is kept under
$XDG_STATE_HOME/repeater/sessions (default ~/.local/state/…) and resumed next time.

OPTIONS
  --server NAME     JACK server to use (default: $JACK_DEFAULT_SERVER, else "default")
  --name NAME       JACK client name (default: repeater)
  --connect MODE    auto: the first physical playback ports;
                    none: leave the ports unconnected;
                    REGEX: out_k to the k-th input port matching REGEX (default: auto)
  --from TIME       start at TIME (default: A when there is a loop)
  --loop A-B        repeat A…B (B may be `end`); wraps at the exact frame
  --loops N         play N passes through the loop, then exit (default: forever)
  --gap TIME        silence before each repetition (repeat after the speaker)
  --declick MS      crossfade MS milliseconds across the loop seam (default 0: exact)
  --rate R          speed, pitch kept: 0.25 to 4 (0.8 plays at 80 %)
  --pitch S         pitch shift in semitones, -24 to 24 (fractions allowed)
  --engine E        finer (Rubber Band R3, the default) or faster (R2)
  --volume V        -6dB, +3dB or a linear gain such as 0.5 (silence to +12 dB)
  --pan P           -1 left … 1 right (stereo: balance; mono: equal-power pan)
  --meter pre|post  meters show the file (pre) or the ports after volume and pan (post, default)
  --session PATH    keep the session in PATH (created or resumed)
  --no-session      read and write no session
  --fresh           start over (a session file keeps its named loops)
  --trainer F:S:E:T speed trainer: start at F, add S every E passes of the loop, stop at T
                    (0.6:0.05:3:1.0)
  --transport MODE  off (default) | follow: play while the JACK transport rolls |
                    drive: space/play/pause start and stop the transport, and follow it
  --midi            a MIDI input port `control` for a foot pedal (CC 64 play/pause, 65 A/B
                    here, 66 loop, 67 back to A; `learn ACTION` rebinds)
  --midi-connect RE connect the MIDI output ports matching RE to `control` (implies --midi)
  --osc PORT        answer OSC on UDP PORT (/repeater/play, /repeater/a, … see the README)
  --render-ahead N  render N periods ahead on a real-time helper thread (0: in the
                    process callback; auto, the default: 2 on a real-time server, else 0)
  --reconnect       when the JACK server goes away, wait for it and play on where it stopped
  --start-server    start a private jackd (ALSA with a sound card, else the dummy
                    backend) and stop it on exit
  --chime-tempo X   scale the minute repeater's intervals (t key, `chime` command)
  --gong-low FILE, --gong-high FILE
                    the minute repeater's sounds from files instead of synthesized gongs
  --status MODE     auto (the screen on a terminal) | json | lines | none
  --status-hz HZ    status updates per second (default: 10)
  --quit-on-eof     quit when stdin reaches its end (for scripts)
  --verbose         show libjack's own messages

KEYS (on a terminal): space play/pause · a / b set A / B here · l loop on/off
  ←/→ seek 5 s · Home jump to A · , / . move A ∓10 ms · < / > move B ∓10 ms
  [ ] speed · { } pitch · = reset · ↑/↓ volume · ( ) pan · t chime · s save · n name the loop
  1…9 named loops · m MIDI learn · M stop learning · ? keys · q quit
STDIN (otherwise), one command per line: play, pause, toggle, seek TIME, a [TIME], b [TIME],
  loop A-B, loop on, loop off, gap TIME, rate R, pitch S, volume V, pan P, chime [HH:MM],
  save, loop save NAME, loop NAME, loop delete NAME, loops, trainer F:S:E:T | off,
  transport off|follow|drive, learn ACTION | off, status, quit
EXIT: 0 done · 2 bad input (a session that cannot be read included) or no JACK server
  · 3 the JACK server went away (the session is saved on every way out)
"""

let infoHelp = """
USAGE: repeater info FILE

Prints the container, encoding, sample rate, channels, frames and duration. A file cut short
reports the frames really present and what its header promised.
"""

let renderHelp = """
USAGE: repeater render FILE -o OUT [options]

OPTIONS
  -o, --output OUT  the file to write (required)
  --format F        wav (32-bit float; the default for .wav) | wav16 | wav24 | aiff | flac | ogg;
                    without it the extension of OUT decides
  --from TIME       start at TIME
  --duration TIME   stop after TIME of output (default: to the end of the file)
  --loop A-B, --loops N, --gap TIME, --declick MS, --rate R, --pitch S, --engine E, --volume V, --pan P
                    as for play; a loop needs --loops or --duration
"""

let chimeHelp = """
USAGE: repeater chime [--at HH:MM] [options]

Strikes the time on a minute repeater: low gongs for the hours (12 at 0:xx and 12:xx), high-low
pairs for the quarters, high gongs for the minutes past the quarter. Plays through JACK ports
out_1 and out_2 and exits when the last gong has died away.

OPTIONS
  --at HH:MM        the time to strike (default: the local time now)
  --render OUT      write the chime to a file instead of JACK
  --chime-tempo X   scale every interval (default 1)
  --gong-low FILE, --gong-high FILE
                    use these sounds (any format and rate) instead of synthesized gongs
  --server NAME, --name NAME, --connect MODE, --start-server, --verbose
                    as for play
"""
