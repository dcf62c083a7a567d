import Foundation

/// A stereo mix whose parts are known: each part rendered on its own (FluidSynth with the General
/// MIDI SoundFont, or espeak-ng), placed by its pan, and summed. The truth a separation is measured
/// against.
public struct PartMix: Sendable {
    public struct Part: Sendable {
        public var name: String
        /// Panned to the middle (the same signal on both channels).
        public var isCentred: Bool
        public var audio: PlanarAudio
    }

    public var parts: [Part]
    public var sampleRate: Int

    public var frameCount: Int { parts.first?.audio.frameCount ?? 0 }

    /// The sum of all parts.
    public var mix: PlanarAudio { parts.dropFirst().reduce(parts[0].audio) { $0 + $1.audio } }

    /// The sum of the centred parts.
    public var centred: PlanarAudio {
        let centred = parts.filter(\.isCentred)
        return centred.dropFirst().reduce(centred[0].audio) { $0 + $1.audio }
    }

    /// Pans used by the backing: guitar hard-ish left, piano hard-ish right, bass in the middle.
    public static let guitarPan = -0.8, pianoPan = 0.8

    /// The accompaniment (I–vi–IV–V–I in C, 100 bpm, five bars): steel-string guitar strumming
    /// quarters at pan −0.8, piano arpeggiating eighths at +0.8, finger bass in eighths in the
    /// middle; with `lead`, an alto saxophone melody in the middle on top.
    public static func backingSong(lead: Bool) -> SynthSong {
        var song = SynthSong()
        song.tempo = [(0, 100)]
        song.programs = [0: GM.piano, 1: GM.steelGuitar, 2: GM.fingerBass, 3: GM.altoSax]
        song.pans = [0: pianoPan, 1: guitarPan, 2: 0, 3: 0]
        song.volumes = [0: 127, 1: 100, 2: 100, 3: 100]
        song.tailBeats = 2
        // Chord tones (MIDI keys) and bass roots per bar.
        let chords: [[Int]] = [[60, 64, 67], [57, 60, 64], [53, 57, 60], [55, 59, 62], [60, 64, 67]]
        let roots = [36, 33, 29, 31, 36]
        for (bar, chord) in chords.enumerated() {
            let barStart = Double(bar * 4)
            for beat in 0..<4 {  // guitar: a strum on every beat, low to high, 12 ms apart (at 100 bpm, 0.02 beats)
                let voicing = [chord[0] - 12, chord[1] - 12, chord[2] - 12, chord[0]]
                for (k, key) in voicing.enumerated() {
                    song.notes.append(SynthNote(channel: 1, key: key, velocity: beat == 0 ? 96 : 80,
                                                startBeat: barStart + Double(beat) + 0.02 * Double(k), lengthBeats: 0.9 - 0.02 * Double(k)))
                }
            }
            let arpeggio = [chord[0], chord[1], chord[2], chord[0] + 12, chord[2], chord[1], chord[2], chord[0] + 12]
            for (k, key) in arpeggio.enumerated() {  // piano: eighths, one octave up
                song.notes.append(SynthNote(channel: 0, key: key + 12, velocity: 100, startBeat: barStart + 0.5 * Double(k), lengthBeats: 0.5))
            }
            let line = [0, 0, 12, 0, 7, 0, 12, 7]
            for (k, step) in line.enumerated() {  // bass: eighths around the root
                song.notes.append(SynthNote(channel: 2, key: roots[bar] + step, velocity: 100, startBeat: barStart + 0.5 * Double(k), lengthBeats: 0.45))
            }
        }
        if lead {
            // (key, start beat, length): a tune over the changes, in the alto's middle register.
            let melody: [(Int, Double, Double)] = [
                (72, 0, 1.5), (74, 1.5, 0.5), (76, 2, 1), (79, 3, 1),
                (76, 4, 1), (72, 5, 1), (69, 6, 2),
                (72, 8, 1), (69, 9, 0.5), (72, 9.5, 0.5), (77, 10, 2),
                (79, 12, 1.5), (77, 13.5, 0.5), (74, 14, 1), (71, 15, 1),
                (72, 16, 4),
            ]
            for (key, start, length) in melody {
                song.notes.append(SynthNote(channel: 3, key: key - 12, velocity: 100, startBeat: start, lengthBeats: length * 0.95))
            }
        }
        return song
    }

    /// The backing rendered part by part (each high-passed at 20 Hz: see `Spectrum.highPassed`);
    /// with `lead`, the saxophone too; with `voice`, a sentence
    /// spoken by espeak-ng (English, resampled to the rate by sox) in the middle, its RMS over the
    /// whole song set to `voiceLevel` times the backing's.
    public static func render(lead: Bool, voice: Bool, voiceLevel: Double = 0.8, sampleRate: Int = 48_000,
                              scratch: String) throws -> PartMix {
        let song = backingSong(lead: lead)
        var named: [(String, Int, Bool)] = [("guitar", 1, false), ("piano", 0, false), ("bass", 2, true)]
        if lead { named.append(("saxophone", 3, true)) }
        var parts: [Part] = []
        for (name, channel, centred) in named {
            var alone = song
            alone.notes = song.notes.filter { $0.channel == channel }
            let path = scratch + "/\(name).wav"
            try FluidSynth.render(alone, to: path, sampleRate: sampleRate)
            var audio = try WaveFile.read(path)
            audio.channels = audio.channels.map { Spectrum.highPassed($0, cornerHz: 20, sampleRate: sampleRate) }
            parts.append(Part(name: name, isCentred: centred, audio: audio))
        }
        let frameCount = parts.map(\.audio.frameCount).max() ?? 0
        for k in parts.indices { parts[k].audio = parts[k].audio.resized(to: frameCount) }
        if voice {
            let backing = parts.dropFirst().reduce(parts[0].audio) { $0 + $1.audio }
            let spoken = try speak("Practice makes perfect. Listen to the voice in the middle, while the guitar and the piano "
                                   + "fade away to the sides. One more time, slowly, from the top of the verse.",
                                   sampleRate: sampleRate, scratch: scratch)
            var mono = [Float](repeating: 0, count: frameCount)
            let start = sampleRate / 2
            for i in 0..<min(spoken.count, frameCount - start) { mono[start + i] = spoken[i] }
            mono = Spectrum.highPassed(mono, cornerHz: 20, sampleRate: sampleRate)
            let raw = PlanarAudio(channels: [mono, mono], sampleRate: sampleRate)
            let gain = Float(voiceLevel * backing.rms / max(1e-9, raw.rms))
            parts.append(Part(name: "voice", isCentred: true, audio: raw.scaled(by: gain)))
        }
        return PartMix(parts: parts, sampleRate: sampleRate)
    }

    /// `text` spoken by espeak-ng, mono at `sampleRate`.
    public static func speak(_ text: String, sampleRate: Int, scratch: String) throws -> [Float] {
        let raw = scratch + "/speech-raw.wav", resampled = scratch + "/speech.wav"
        try run("/usr/bin/espeak-ng", ["-v", "en", "-s", "150", "-w", raw, text])
        try run("/usr/bin/sox", ["-V1", "-q", raw, "-r", "\(sampleRate)", "-e", "floating-point", "-b", "32", resampled, "rate", "-v", "\(sampleRate)"])
        return try WaveFile.read(resampled).channels[0]
    }

    public static var toolsAvailable: Bool {
        FluidSynth.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw WaveFile.FormatError(description: "\(executable) failed with status \(process.terminationStatus): install it (espeak-ng, sox)")
        }
    }
}
