import Foundation
import RepeaterKit

/// The material of the studio mixes (`StudioMix`), rendered or read once and cached on disk as
/// 32-bit float WAV files at 48 kHz: each synthetic part alone (mono: FluidSynth's two channels
/// averaged, high-passed at 20 Hz), the recorded voice, the recordings' excerpts, and each part's
/// reverb at a unit send.
///
/// The cache is `.build/test-cache/studio-mixes-v<version>-seed<seed>` in the package (a fresh
/// clone renders it again; a change to the generator must bump `version`). Files are written under
/// a temporary name and renamed, so concurrent test processes never read half a file.
///
/// The recorded voice is read from Warzone 2100's `base.wz` (a zip) with `unzip -p`, decoded and
/// resampled by sox (its clips are 11.025 kHz mono: speech up to 5.5 kHz).
public final class StudioSources: @unchecked Sendable {
    public static let version = 1
    public let sampleRate = 48_000
    public let seed: UInt64
    public let directory: String
    private let lock = NSLock()
    /// What was read or made in this process, by key (each mix reads the same parts).
    private var memory: [String: PlanarAudio] = [:]

    /// The real stereo recordings the suite uses (game music, chosen for a stereo image as records
    /// have one: the two channels' correlation 0.66–0.96) and where their excerpts start.
    public static let recordings: [(name: String, path: String, startSeconds: Double)] = [
        ("hedgewars Beach", "/usr/share/games/hedgewars/Data/Music/Beach.ogg", 20),
        ("neverball track6", "/usr/share/games/neverball/bgm/track6.ogg", 20),
        ("frozen-bubble 1p", "/usr/share/games/frozen-bubble/snd/frozen-mainzik-1p.ogg", 20),
    ]
    public static let recordingSeconds = 12.0
    /// The voice: two tutorial lines of one speaker, 0.4 s apart, starting 0.5 s into the mix.
    public static let voiceArchive = "/usr/share/games/warzone2100/base.wz"
    public static let voiceClips = ["audio/tutorial/tut74.ogg", "audio/tutorial/tut78.ogg"]

    /// Whether every tool and file the mixes need is installed.
    public static var available: Bool {
        let files = [voiceArchive, "/usr/bin/unzip", "/usr/bin/sox"] + recordings.map(\.path)
        return FluidSynth.isAvailable && files.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    public init(seed: UInt64 = 29, packageRoot: String = StudioSources.packageRoot()) throws {
        self.seed = seed
        directory = packageRoot + "/.build/test-cache/studio-mixes-v\(Self.version)-seed\(seed)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The package's root, from this file's place in it.
    public static func packageRoot(file: String = #filePath) -> String {
        URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Frames of every synthetic part (the longest rendering).
    public var songFrameCount: Int { Int((StudioSong.seconds(beat: Double(4 * StudioSong.barCount)) + 2) * Double(sampleRate)) }

    /// One synthetic part alone, mono (`StudioSong.parts`' names, or "trumpet" for the lead).
    public func songPart(_ name: String) throws -> [Float] {
        try cached("part-\(name)") {
            let channel = name == "trumpet" ? StudioSong.leadChannel : StudioSong.parts.first { $0.name == name }!.channel
            let path = directory + "/render-\(name)-\(UUID().uuidString).wav"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try FluidSynth.render(StudioSong.song(only: channel), to: path, sampleRate: sampleRate)
            let stereo = try readPlanar(path)
            let mono = zip(stereo.channels[0], stereo.channels[1]).map { ($0 + $1) / 2 }
            let fitted = Array((mono + [Float](repeating: 0, count: max(0, songFrameCount - mono.count))).prefix(songFrameCount))
            return PlanarAudio(channels: [Spectrum.highPassed(fitted, cornerHz: 20, sampleRate: sampleRate)], sampleRate: sampleRate)
        }.channels[0]
    }

    /// The recorded voice, mono: `voiceClips` one after the other.
    public func voice() throws -> [Float] {
        try cached("voice") {
            var mono = [Float](repeating: 0, count: sampleRate / 2)
            for clip in Self.voiceClips {
                let compressed = directory + "/clip-\(UUID().uuidString).ogg", decoded = compressed + ".wav"
                defer { for path in [compressed, decoded] { try? FileManager.default.removeItem(atPath: path) } }
                let bytes = try Self.run("/usr/bin/unzip", ["-p", Self.voiceArchive, clip])
                try bytes.write(to: URL(fileURLWithPath: compressed))
                _ = try Self.run("/usr/bin/sox", ["-V1", compressed, "-e", "floating-point", "-b", "32", "-c", "1", decoded, "rate", "-v", "\(sampleRate)"])
                mono += try readPlanar(decoded).channels[0] + [Float](repeating: 0, count: sampleRate * 2 / 5)
            }
            return PlanarAudio(channels: [Spectrum.highPassed(mono, cornerHz: 20, sampleRate: sampleRate)], sampleRate: sampleRate)
        }.channels[0]
    }

    /// A recording's excerpt (`recordings`), stereo.
    public func recording(_ name: String) throws -> PlanarAudio {
        try cached("recording-\(name)") {
            let source = Self.recordings.first { $0.name == name }!
            let path = directory + "/excerpt-\(UUID().uuidString).wav"
            defer { try? FileManager.default.removeItem(atPath: path) }
            _ = try Self.run("/usr/bin/sox", ["-V1", source.path, "-e", "floating-point", "-b", "32", path,
                                              "trim", "\(source.startSeconds)", "\(Self.recordingSeconds)", "rate", "-v", "\(sampleRate)"])
            let audio = try readPlanar(path)
            return PlanarAudio(channels: audio.channels.map { Spectrum.highPassed($0, cornerHz: 20, sampleRate: sampleRate) }, sampleRate: sampleRate)
        }
    }

    /// The reverb of the part `name` (whose dry mono is `mono`) at a unit send. Each part has its
    /// own seeded reverb noise (the same room, as one reverb unit would be, is not needed: any
    /// decorrelated tail of the right length tests the same thing).
    public func wet(of name: String, mono: [Float]) throws -> PlanarAudio {
        try cached("wet-\(name)") {
            let reverb = StereoReverb(rt60Seconds: StudioMix.rt60Seconds, sampleRate: sampleRate, seed: seed &+ UInt64(truncatingIfNeeded: name.hashValueStable))
            return PlanarAudio(channels: reverb.apply(mono), sampleRate: sampleRate)
        }
    }

    /// The file `key` from the cache, or `make()`'s result written there first.
    private func cached(_ key: String, make: () throws -> PlanarAudio) throws -> PlanarAudio {
        let path = directory + "/" + key.replacingOccurrences(of: " ", with: "_") + ".wav"
        lock.lock()
        defer { lock.unlock() }
        if let audio = memory[key] { return audio }
        if FileManager.default.fileExists(atPath: path) {
            let audio = try readPlanar(path)
            memory[key] = audio
            return audio
        }
        let audio = try make()
        memory[key] = audio
        let temporary = path + ".\(UUID().uuidString).partial"
        let writer = try AudioFileWriter(path: temporary, format: .wav, sampleRate: audio.sampleRate, channelCount: audio.channelCount)
        var interleaved = [Float](repeating: 0, count: audio.frameCount * audio.channelCount)
        for (channel, samples) in audio.channels.enumerated() {
            for frame in samples.indices { interleaved[frame * audio.channelCount + channel] = samples[frame] }
        }
        try interleaved.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: audio.frameCount) }
        writer.close()
        _ = rename(temporary, path)
        return audio
    }

    private func readPlanar(_ path: String) throws -> PlanarAudio {
        let (info, samples) = try readAll(path)
        let channels = (0..<info.channelCount).map { channel in
            stride(from: channel, to: samples.count, by: info.channelCount).map { samples[$0] }
        }
        return PlanarAudio(channels: channels, sampleRate: info.sampleRate)
    }

    /// Runs a tool; its standard output, or an error naming the tool and what to install.
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "\(executable) \(arguments.first ?? "") failed with status \(process.terminationStatus): scripts/setup installs it")
        }
        return data
    }
}

extension String {
    /// A hash that stays the same from run to run (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}
