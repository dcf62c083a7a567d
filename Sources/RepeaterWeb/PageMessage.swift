import Foundation
import RepeaterKit

/// What a page sends over its WebSocket, one JSON object a message:
///
/// - `{"key": "]"}`: a key of the terminal's (`KeyMap`): one character, or `ArrowLeft`,
///   `ArrowRight`, `ArrowUp`, `ArrowDown`, `Home`, `End`, `Enter`;
/// - `{"command": "rate 0.8"}`: a line of the stdin protocol (docs/manual.md: *Stdin protocol*);
/// - `{"ping": N}`: the page's heartbeat (every 5 s), which keeps its connection open.
///
/// Anything else is one line of error, for the page and the JSON lines; nothing of it is carried out.
public enum PageMessage: Equatable, Sendable {
    case command(ControlCommand)
    case heartbeat

    /// Keys by the names a browser gives them (`KeyboardEvent.key`).
    static let namedKeys: [String: Key] = [
        "ArrowLeft": .left, "ArrowRight": .right, "ArrowUp": .up, "ArrowDown": .down, "Home": .home, "End": .end,
        "Enter": .character("\r"), "Spacebar": .character(" "),
    ]

    public init(decoding bytes: [UInt8]) throws(RepeaterError) {
        let value: JSONValue
        do { value = try JSONValue.parse(Data(bytes)) } catch { throw .input("page: not a JSON message (\(error.message))") }
        guard case .object(let object) = value, object.keys.count == 1, let name = object.keys.first, let field = object[name] else {
            throw .input("page: a message is one of {\"key\": K}, {\"command\": LINE}, {\"ping\": N}")
        }
        switch (name, field) {
        case ("key", .string(let text)):
            guard let key = Self.key(named: text) else { throw .input("page: '\(text.prefix(20))' is not a key") }
            guard let command = KeyMap.command(for: key) else { throw .input("page: the key '\(text)' does nothing (? lists the keys)") }
            self = .command(command)
        case ("command", .string(let line)):
            self = .command(try ControlCommand(line: line))
        case ("ping", .int), ("ping", .double):
            self = .heartbeat
        default:
            throw .input("page: a message is one of {\"key\": K}, {\"command\": LINE}, {\"ping\": N}, not a '\(name.prefix(20))' with \(field.typeName)")
        }
    }

    /// One ASCII character (the terminal's keys are ASCII), or a named key.
    static func key(named text: String) -> Key? {
        if let key = namedKeys[text] { return key }
        guard text.unicodeScalars.count == 1, let scalar = text.unicodeScalars.first, scalar.isASCII, scalar.value >= 0x20 else { return nil }
        return .character(Character(scalar))
    }
}
