import Foundation
import RepeaterKit
@testable import RepeaterWeb
import Testing

@Suite("What a page may send: the terminal's keys, the stdin protocol's lines, a heartbeat")
struct PageMessageTests {
    private func decode(_ text: String) throws(RepeaterError) -> PageMessage { try PageMessage(decoding: Array(text.utf8)) }

    @Test("a key is the terminal's key: the same command as KeyMap gives", arguments: [
        ("]", ControlCommand.rateBy(0.05)), (" ", .toggle), ("b", .setB(nil)), ("ArrowLeft", .seekBy(-5)), ("Home", .jumpToA),
        ("Enter", .line(.loop(nil))), ("ArrowUp", .volumeBy(1)), ("3", .loopSelectIndex(2)), ("q", .quit),
    ])
    func keys(key: String, command: ControlCommand) throws {
        let json = "{\"key\":\(JSONLine.quote(key))}"
        #expect(try decode(json) == .command(command))
    }

    @Test("a command is a line of the stdin protocol, parsed by the same parser")
    func commands() throws {
        #expect(try decode(#"{"command":"rate 0.8"}"#) == .command(.rate(0.8)))
        #expect(try decode(#"{"command":"b 123456f"}"#) == .command(.setB(.frames(123456))))
        #expect(try decode(#"{"command":"line 3"}"#) == .command(try ControlCommand(line: "line 3")))
        #expect(try decode(#"{"command":"loop save verse two"}"#) == .command(.loopSave("verse two")))
        #expect(try decode(#"{"ping":17}"#) == .heartbeat)
    }

    @Test("anything else is one line of error and no command", arguments: [
        ("", "not a JSON message"), ("{", "not a JSON message"), ("[1]", "a message is one of"), (#"{"key":"]","command":"play"}"#, "a message is one of"),
        (#"{"key":"F5"}"#, "is not a key"), (#"{"key":"é"}"#, "is not a key"), (#"{"key":"x"}"#, "does nothing"), (#"{"key":3}"#, "not a 'key' with a number"),
        (#"{"command":"rate 9"}"#, "rate takes 0.25 to 4"), (#"{"command":"format c:"}"#, "unknown command 'format'"), (#"{"ping":"x"}"#, "not a 'ping'"),
        (#"{"eval":"1"}"#, "a message is one of"),
    ])
    func refused(text: String, message: String) {
        do throws(RepeaterError) {
            let decoded = try decode(text)
            Issue.record("'\(text)' was taken as \(decoded)")
        } catch {
            #expect(error.message.contains(message) && !error.message.contains("\n"), "\(error.message)")
        }
    }
}
