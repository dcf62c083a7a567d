import Foundation

// Music whose notes, beats and parts are known exactly: a Standard MIDI File written by the tests
// and rendered by FluidSynth with Debian's General MIDI SoundFont. (Foundation only: analysis
// packages copy this file as it is.)

/// One note: a General MIDI channel (9 is the drum kit), a key, a velocity, and where it sits in
/// beats (quarter notes) from the start of the song.
public struct SynthNote: Sendable, Equatable {
    public var channel: Int
    public var key: Int
    public var velocity: Int
    public var startBeat: Double
    public var lengthBeats: Double

    public init(channel: Int, key: Int, velocity: Int = 100, startBeat: Double, lengthBeats: Double) {
        self.channel = channel
        self.key = key
        self.velocity = velocity
        self.startBeat = startBeat
        self.lengthBeats = lengthBeats
    }
}

/// A song as MIDI: a tempo map, a time signature, instruments, pans, notes. `seconds(atBeat:)` is
/// the exact time of any beat, so the true beats of a rendering are known.
public struct SynthSong: Sendable {
    /// Tempo changes: from `beat` on, `bpm` quarter notes a minute. The first must be at beat 0.
    public var tempo: [(beat: Double, bpm: Double)] = [(0, 120)]
    /// Beats (quarter notes) per bar, written as a time signature n/4.
    public var beatsPerBar = 4
    /// General MIDI program (0-based) per channel.
    public var programs: [Int: Int] = [:]
    /// Pan per channel: -1 left … 1 right (CC 10).
    public var pans: [Int: Double] = [:]
    /// Channel volume per channel, 0…127 (CC 7).
    public var volumes: [Int: Int] = [:]
    public var notes: [SynthNote] = []
    /// Silence after the last note ends, in beats (so that its release is rendered).
    public var tailBeats = 2.0
    public let ticksPerBeat = 960

    public init() {}

    /// The time of `beat` in seconds, from the tempo map.
    public func seconds(atBeat beat: Double) -> Double {
        var time = 0.0
        var position = 0.0
        var bpm = tempo.first?.bpm ?? 120
        for change in tempo.dropFirst() where change.beat < beat {
            time += (change.beat - position) * 60 / bpm
            position = change.beat
            bpm = change.bpm
        }
        return time + (beat - position) * 60 / bpm
    }

    /// The last beat anything sounds at, plus the tail.
    public var endBeat: Double { (notes.map { $0.startBeat + $0.lengthBeats }.max() ?? 0) + tailBeats }

    /// The song as a Standard MIDI File (format 0, one track).
    public func smf() -> Data {
        var events: [(tick: Int, order: Int, bytes: [UInt8])] = []
        func tick(_ beat: Double) -> Int { Int((beat * Double(ticksPerBeat)).rounded()) }
        for change in tempo {
            let micros = Int((60_000_000 / change.bpm).rounded())
            events.append((tick(change.beat), 0, [0xFF, 0x51, 3, UInt8(micros >> 16 & 0xFF), UInt8(micros >> 8 & 0xFF), UInt8(micros & 0xFF)]))
        }
        events.append((0, 0, [0xFF, 0x58, 4, UInt8(beatsPerBar), 2, 24, 8]))
        for (channel, program) in programs { events.append((0, 1, [UInt8(0xC0 | channel), UInt8(program)])) }
        for (channel, pan) in pans {
            let value = min(127, max(0, Int(((pan + 1) * 63.5).rounded())))
            events.append((0, 1, [UInt8(0xB0 | channel), 10, UInt8(value)]))
        }
        for (channel, volume) in volumes { events.append((0, 1, [UInt8(0xB0 | channel), 7, UInt8(min(127, max(0, volume)))])) }
        for note in notes {
            events.append((tick(note.startBeat), 3, [UInt8(0x90 | note.channel), UInt8(note.key), UInt8(max(1, min(127, note.velocity)))]))
            events.append((tick(note.startBeat + note.lengthBeats), 2, [UInt8(0x80 | note.channel), UInt8(note.key), 0]))
        }
        events.append((tick(endBeat), 9, [0xFF, 0x2F, 0]))
        events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        var track: [UInt8] = []
        var last = 0
        for event in events {
            track += variableLength(event.tick - last)
            track += event.bytes
            last = event.tick
        }
        var file: [UInt8] = Array("MThd".utf8) + be32(6) + be16(0) + be16(1) + be16(ticksPerBeat)
        file += Array("MTrk".utf8) + be32(track.count) + track
        return Data(file)
    }

    private func variableLength(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }

    private func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
}

/// General MIDI drum keys (channel 9) and a few programs the tests use.
public enum GM {
    public static let kick = 36, snare = 38, closedHat = 42, openHat = 46, crash = 49, rideCymbal = 51
    public static let piano = 0, nylonGuitar = 24, steelGuitar = 25, fingerBass = 33, strings = 48, choirAahs = 52
    public static let trumpet = 56, altoSax = 65, flute = 73, organ = 19, electricPiano = 4
}

/// Where FluidSynth and the SoundFont are (Debian's `fluidsynth` and `timgm6mb-soundfont`).
public enum FluidSynth {
    public static let executable = "/usr/bin/fluidsynth"
    public static let soundFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: executable) && FileManager.default.fileExists(atPath: soundFont)
    }

    /// Renders `song` to a WAV file (stereo, 32-bit float) at `sampleRate`, with reverb and chorus
    /// off unless asked for, so that each part is where its notes and pan put it.
    public static func render(_ song: SynthSong, to path: String, sampleRate: Int = 48_000, gain: Double = 0.5,
                              effects: Bool = false) throws {
        let midiPath = path + ".mid"
        try song.smf().write(to: URL(fileURLWithPath: midiPath))
        defer { try? FileManager.default.removeItem(atPath: midiPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-n", "-i", "-q", "-R", effects ? "1" : "0", "-C", effects ? "1" : "0", "-g", "\(gain)",
                             "-r", "\(sampleRate)", "-O", "float", "-T", "wav", "-F", path, soundFont, midiPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, FileManager.default.fileExists(atPath: path) else {
            throw NSError(domain: "FluidSynth", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "fluidsynth could not render \(midiPath)"])
        }
    }
}
