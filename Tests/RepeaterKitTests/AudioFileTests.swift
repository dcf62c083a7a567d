import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("Audio files")
struct AudioFileTests {
    @Test("a float WAV reads back exactly")
    func floatRoundTrip() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("ramp.wav")
        try writeRamp(path: path, frames: 10_000, channels: 3)
        let (info, samples) = try readAll(path)
        #expect(info.frameCount == 10_000)
        #expect(info.channelCount == 3)
        #expect(info.sampleRate == 48000)
        #expect(!info.isTruncated)
        #expect(samples[3 * 9_999 + 2] == rampSample(frame: 9_999, channel: 2, channels: 3))
        let expected = (0..<30_000).map { rampSample(frame: $0 / 3, channel: $0 % 3, channels: 3) }
        #expect(zip(samples, expected).filter { $0 != $1 }.count == 0)
    }

    @Test("real recordings from Debian packages open with their true format", arguments: [
        ("/usr/share/sounds/alsa/Front_Center.wav", 48000, 1),
        ("/usr/share/sounds/freedesktop/stereo/bell.oga", 44100, 2),
    ])
    func realRecordings(path: String, rate: Int, channels: Int) throws {
        try #require(FileManager.default.fileExists(atPath: path), "install alsa-utils and sound-theme-freedesktop")
        let (info, samples) = try readAll(path)
        #expect(info.sampleRate == rate)
        #expect(info.channelCount == channels)
        #expect(info.frameCount > 1000)
        #expect(samples.count == info.frameCount * channels)
        #expect(samples.contains { abs($0) > 0.01 })  // not silence
    }

    @Test("a WAV cut short reports the frames present and what its header promised")
    func truncatedWAV() throws {
        let scratch = ScratchDirectory()
        let full = scratch.file("full.wav"), cut = scratch.file("cut.wav")
        try writeRamp(path: full, frames: 48_000, channels: 2, format: .wav16)
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        try data.prefix(100_000).write(to: URL(fileURLWithPath: cut))
        let info = try AudioFile(path: cut).info
        #expect(info.headerFrameCount == 48_000)
        #expect(info.frameCount == (100_000 - 44) / 4)
    }

    @Test("a FLAC cut short is measured by decoding, not believed")
    func truncatedFLAC() throws {
        let scratch = ScratchDirectory()
        let full = scratch.file("full.flac"), cut = scratch.file("cut.flac")
        try writeRamp(path: full, frames: 96_000, channels: 2, format: .flac)
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let info = try AudioFile(path: cut).info
        #expect(info.headerFrameCount == 96_000)
        #expect(info.frameCount > 0 && info.frameCount < 96_000)
        let (_, samples) = try readAll(cut)
        #expect(samples.count == info.frameCount * 2)
    }

    @Test("bad files give one line naming the file and the problem", arguments: [
        ("missing.wav", nil as String?, "no such file"),
        ("empty.wav", "", "is empty"),
        ("text.wav", "hello, not audio\n", "not an audio file"),
        ("header.wav", "RIFF\u{24}\0\0\0WAVEfmt ", "broken header"),
    ])
    func badFiles(name: String, contents: String?, problem: String) {
        let scratch = ScratchDirectory()
        let path = scratch.file(name)
        if let contents { _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)) }
        #expect {
            _ = try AudioFile(path: path)
        } throws: { error in
            guard let error = error as? RepeaterError else { return false }
            return error.exitCode == 2 && error.message.contains(name) && error.message.contains(problem) && !error.message.contains("\n")
        }
    }
}
