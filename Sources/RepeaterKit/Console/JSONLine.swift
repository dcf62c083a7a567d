import Foundation

/// Builds one JSON object as a line, keys in the order they are added.
public struct JSONLine: Sendable {
    private var fields: [String] = []

    public init() {}

    public mutating func add(_ key: String, _ value: String) { fields.append("\(Self.quote(key)):\(Self.quote(value))") }
    public mutating func add(_ key: String, _ value: Int) { fields.append("\(Self.quote(key)):\(value)") }
    public mutating func add(_ key: String, _ value: Bool) { fields.append("\(Self.quote(key)):\(value)") }
    public mutating func add(_ key: String, _ value: Double) {
        fields.append("\(Self.quote(key)):" + (value.isFinite ? Self.number(value) : "null"))
    }

    /// A number with `digits` decimals (small figures such as the audio thread's load).
    public mutating func add(_ key: String, _ value: Double, digits: Int) {
        let scale = pow(10, Double(digits))
        fields.append("\(Self.quote(key)):" + (value.isFinite ? String((value * scale).rounded() / scale) : "null"))
    }

    /// Adds an already-encoded JSON value (an array or object built by the caller).
    public mutating func addRaw(_ key: String, _ json: String) { fields.append("\(Self.quote(key)):\(json)") }

    /// Adds the fields of `other`, in order.
    public mutating func append(_ other: JSONLine) { fields += other.fields }

    public var isEmpty: Bool { fields.isEmpty }

    public var text: String { "{" + fields.joined(separator: ",") + "}" }

    static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
