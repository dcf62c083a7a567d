import Foundation
import RepeaterEngine

/// The pedal's bindings in `$XDG_CONFIG_HOME/repeater/midi.json` (default `~/.config/…`): they
/// belong to the player, not to a recording. The file holds what MIDI learn changed; the defaults
/// apply underneath. Written atomically, as sessions are.
///
/// ```json
/// {"format": "repeater-midi", "version": 1,
///  "bindings": [{"message": "cc", "number": 20, "action": "faster"}]}
/// ```
public final class MIDIBindingStore {
    public struct Binding: Equatable {
        public var kind: MIDIMessage.Kind
        public var number: Int
        public var action: MIDIAction
    }

    public let path: String
    public private(set) var learned: [Binding] = []
    /// The engine whose table the bindings go into.
    private let engine: Engine

    /// `$XDG_CONFIG_HOME/repeater/midi.json`, or `~/.config/repeater/midi.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Folders.config(environment) + "/midi.json"
    }

    /// Reads `path` when it exists and applies it over the defaults in the engine's table. A file
    /// that cannot be read is a one-line error (and is left as it is).
    public init(path: String, engine: Engine) throws(RepeaterError) {
        self.path = path
        self.engine = engine
        engine.midiBindings.setDefaults()
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .input("MIDI bindings '\(path)' cannot be read: check its permissions")
        }
        learned = try Self.parse(data, shown: "'\(path)'")
        for binding in learned { engine.midiBindings.bind(binding.kind, UInt8(binding.number), to: binding.action) }
    }

    /// Binds `message` (its kind and number, any channel) to `action`, replacing what it did.
    public func bind(_ message: MIDIMessage, to action: MIDIAction) {
        let kind: MIDIMessage.Kind = message.kind == .noteOff ? .noteOn : message.kind
        learned.removeAll { $0.kind == kind && $0.number == Int(message.number) }
        learned.append(Binding(kind: kind, number: Int(message.number), action: action))
        engine.midiBindings.bind(kind, message.number, to: action)
    }

    /// Writes the learned bindings atomically.
    public func save() -> Result<Void, RepeaterError> {
        do {
            try SessionStore.writeAtomically(Self.text(learned), to: path, what: "MIDI bindings")
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    static func text(_ bindings: [Binding]) -> String {
        var object = JSONObject()
        object["format"] = .string("repeater-midi")
        object["version"] = .int(1)
        object["bindings"] = .array(bindings.map { binding in
            var fields = JSONObject()
            fields["message"] = .string(name(binding.kind))
            fields["number"] = .int(binding.number)
            fields["action"] = .string(binding.action.name)
            return .object(fields)
        })
        return JSONValue.object(object).formatted()
    }

    static func name(_ kind: MIDIMessage.Kind) -> String {
        switch kind {
        case .controlChange: return "cc"
        case .noteOn, .noteOff: return "note"
        case .programChange: return "program"
        }
    }

    /// Parses a bindings file; one-line errors name the file and the field.
    public static func parse(_ data: Data, shown: String) throws(RepeaterError) -> [Binding] {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch {
            throw .input("MIDI bindings \(shown) line \(error.line), column \(error.column): \(error.message)")
        }
        func fail(_ field: String, _ problem: String) -> RepeaterError { .input("MIDI bindings \(shown): \(field) \(problem)") }
        guard case .object(let object) = value else { throw fail("the file", "is not a JSON object") }
        guard case .array(let items)? = object["bindings"] else { throw fail("field \"bindings\"", "must be a list") }
        var bindings: [Binding] = []
        for (index, item) in items.enumerated() {
            let field = "bindings[\(index)]"
            guard case .object(let fields) = item else { throw fail(field, "must be an object") }
            let kind: MIDIMessage.Kind
            switch fields["message"] {
            case .string("cc")?: kind = .controlChange
            case .string("note")?: kind = .noteOn
            case .string("program")?: kind = .programChange
            default: throw fail("\(field).message", "must be \"cc\", \"note\" or \"program\"")
            }
            guard let number = fields["number"]?.number, number == number.rounded(), (0...127).contains(number) else {
                throw fail("\(field).number", "must be a whole number from 0 to 127")
            }
            guard case .string(let name)? = fields["action"], let action = MIDIAction(name: name) else {
                let names = MIDIAction.allCases.filter { $0 != .none }.map(\.name).joined(separator: ", ")
                throw fail("\(field).action", "must be one of \(names)")
            }
            bindings.append(Binding(kind: kind, number: Int(number), action: action))
        }
        return bindings
    }
}
