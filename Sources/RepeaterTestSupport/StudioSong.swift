import Foundation

/// The synthetic accompaniment of the studio mixes (`StudioMix`), and its lead: six bars at 100 bpm
/// in C (C, Am, F, G, Dm, C), six parts, each meant to be rendered alone (FluidSynth, Debian's
/// TimGM6mb SoundFont) and panned by the mix:
/// - bass (finger bass): eighths around the root;
/// - drums: kick on 1 and 3, snare on 2 and 4, closed hi-hat in eighths;
/// - piano: the chord arpeggiated in eighths, around C5;
/// - guitar (steel string): a strum on every beat, around C3–C4;
/// - strings: the chord held for the bar, around C4;
/// - electric piano: the chord on the off-beats, around C4.
/// The lead is a trumpet tune over the changes, in quarters to half notes (C4–A4).
public enum StudioSong {
    public static let bpm = 100.0
    public static let barCount = 6
    /// The chords, bar by bar: name, and its tones (MIDI keys of the middle voicing).
    public static let chords: [(name: String, keys: [Int])] = [
        ("C", [60, 64, 67]), ("Am", [57, 60, 64]), ("F", [53, 57, 60]), ("G", [55, 59, 62]), ("Dm", [50, 53, 57]), ("C", [60, 64, 67]),
    ]
    static let roots = [36, 33, 29, 31, 38, 36]

    /// The accompaniment's parts: name, MIDI channel, General MIDI program (nil: drums), and the pan
    /// of the `spread` layout (the other layouts keep its side).
    public static let parts: [(name: String, channel: Int, program: Int?, spreadPan: Double)] = [
        ("guitar", 1, GM.steelGuitar, -0.7), ("strings", 2, GM.strings, 0.7),
        ("piano", 0, GM.piano, -0.4), ("e-piano", 3, GM.electricPiano, 0.4),
        ("bass", 4, GM.fingerBass, -0.2), ("drums", 9, nil, 0.2),
    ]
    /// Each part's share of the accompaniment's level (RMS, relative).
    public static let partLevels: [String: Double] = ["guitar": 0.7, "strings": 0.5, "piano": 0.7, "e-piano": 0.5, "bass": 1, "drums": 0.9]
    public static let leadChannel = 5

    /// The lead's notes: (key, start beat, length in beats).
    public static let melody: [(key: Int, startBeat: Double, lengthBeats: Double)] = [
        (67, 0, 1.5), (64, 1.5, 0.5), (60, 2, 1), (64, 3, 1),
        (69, 4, 2), (67, 6, 1), (64, 7, 1),
        (65, 8, 1.5), (69, 9.5, 0.5), (72, 10, 2),
        (71, 12, 1), (67, 13, 1), (62, 14, 2),
        (65, 16, 1), (69, 17, 1), (65, 18, 1), (62, 19, 1),
        (64, 20, 3),
    ]

    public static func seconds(beat: Double) -> Double { beat * 60 / bpm }

    /// The song with every part (and the lead on `leadChannel`); `only` keeps one channel's notes.
    public static func song(only channel: Int? = nil) -> SynthSong {
        var song = SynthSong()
        song.tempo = [(0, bpm)]
        song.programs = [1: GM.steelGuitar, 2: GM.strings, 0: GM.piano, 3: GM.electricPiano, 4: GM.fingerBass, leadChannel: GM.trumpet]
        song.tailBeats = 3
        var notes: [SynthNote] = []
        for (bar, chord) in chords.enumerated() {
            let start = Double(bar * 4), keys = chord.keys
            for beat in 0..<4 {
                for (k, key) in [keys[0] - 12, keys[1] - 12, keys[2] - 12, keys[0]].enumerated() {
                    notes.append(SynthNote(channel: 1, key: key, velocity: beat == 0 ? 92 : 76,
                                           startBeat: start + Double(beat) + 0.02 * Double(k), lengthBeats: 0.85 - 0.02 * Double(k)))
                }
            }
            for key in keys { notes.append(SynthNote(channel: 2, key: key, velocity: 80, startBeat: start, lengthBeats: 3.95)) }
            for (k, key) in [keys[0], keys[1], keys[2], keys[0] + 12, keys[2], keys[1], keys[2], keys[0] + 12].enumerated() {
                notes.append(SynthNote(channel: 0, key: key + 12, velocity: 90, startBeat: start + 0.5 * Double(k), lengthBeats: 0.5))
            }
            for beat in 0..<4 {
                for key in keys { notes.append(SynthNote(channel: 3, key: key, velocity: 84, startBeat: start + Double(beat) + 0.5, lengthBeats: 0.35)) }
            }
            for (k, step) in [0, 0, 12, 0, 7, 0, 12, 7].enumerated() {
                notes.append(SynthNote(channel: 4, key: roots[bar] + step, velocity: 100, startBeat: start + 0.5 * Double(k), lengthBeats: 0.45))
            }
            for beat in 0..<4 {
                notes.append(SynthNote(channel: 9, key: beat % 2 == 0 ? GM.kick : GM.snare, velocity: 100, startBeat: start + Double(beat), lengthBeats: 0.25))
            }
            for eighth in 0..<8 {
                notes.append(SynthNote(channel: 9, key: GM.closedHat, velocity: eighth % 2 == 0 ? 80 : 60, startBeat: start + 0.5 * Double(eighth), lengthBeats: 0.2))
            }
        }
        for note in melody {
            notes.append(SynthNote(channel: leadChannel, key: note.key, velocity: 100, startBeat: note.startBeat, lengthBeats: note.lengthBeats * 0.95))
        }
        song.notes = channel.map { channel in notes.filter { $0.channel == channel } } ?? notes
        return song
    }
}
