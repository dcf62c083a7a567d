import Foundation
import RepeaterLines
import Testing

@Suite("Files")
struct LineFileReaderTests {
    let directory = NSTemporaryDirectory() + "repeater-lines-\(UUID().uuidString)"

    func message(_ path: String) -> String? {
        do {
            _ = try LineFileReader.read(path: path)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("a file on disk reads by its extension, case-insensitively, with the recording's duration")
    func reads() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/Song.LRC"
        try Data("[00:01.00]la\n[00:02.00]li\n".utf8).write(to: URL(fileURLWithPath: path))
        let file = try LineFileReader.read(path: path, recordingDurationSeconds: 5)
        expectSame(file.lines, [line(1, 2, "la"), line(2, 5, "li")])
    }

    @Test("files that cannot be read are one line naming the file and what to do")
    func unreadable() throws {
        try FileManager.default.createDirectory(atPath: directory + "/folder.srt", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(message(directory + "/missing.srt") == "'\(directory)/missing.srt' does not exist: check the path")
        #expect(message(directory + "/folder.srt") == "'\(directory)/folder.srt' is a directory, not a file of lines")
        #expect(message("talk.ass") == "'talk.ass' is not a file of lines that repeater reads: use .srt, .vtt, .lrc, .txt (Audacity labels) or .json")
        #expect(message("no-extension") == "'no-extension' is not a file of lines that repeater reads: use .srt, .vtt, .lrc, .txt (Audacity labels) or .json")
        if getuid() != 0 {  // root reads anything
            let locked = directory + "/locked.srt"
            try Data("x".utf8).write(to: URL(fileURLWithPath: locked))
            chmod(locked, 0)
            #expect(message(locked) == "'\(locked)' cannot be read: check its permissions")
        }
    }
}
