import Foundation

/// A JSON value that keeps the order of object keys and tells integers from other numbers, so that
/// a session file round-trips exactly (fields we do not know included) and reads like it was written.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value as a number (an integer counts).
    public var number: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// What a message calls this value's type.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "true/false"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

/// A JSON object with its keys in order.
public struct JSONObject: Equatable, Sendable {
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    public init() {}

    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if let newValue {
                if values[key] == nil { keys.append(key) }
                values[key] = newValue
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.keys == rhs.keys && lhs.values == rhs.values }
}

/// A syntax error with its place (1-based line and column).
public struct JSONSyntaxError: Error, Equatable {
    public var message: String
    public var line: Int
    public var column: Int
}

extension JSONValue {
    /// Parses a whole document (one value, nothing after it but white space).
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(data))
        return try parser.document()
    }

    /// The document as text: two-space indentation; objects and lists that hold no object or list
    /// and are not at the top stay on one line; a newline at the end.
    public func formatted() -> String {
        var out = ""
        write(to: &out, indent: 0)
        return out + "\n"
    }

    private var isFlat: Bool {
        switch self {
        case .array(let items): return items.allSatisfy { !$0.isContainer }
        case .object(let object): return object.keys.allSatisfy { !(object[$0]!.isContainer) }
        default: return true
        }
    }

    private var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    private func write(to out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1), closing = String(repeating: "  ", count: indent)
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? Self.number(value) : "null"
        case .string(let value): out += JSONLine.quote(value)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            if indent > 0 && isFlat {
                out += "[" + items.map { item in var text = ""; item.write(to: &text, indent: 0); return text }.joined(separator: ", ") + "]"
                return
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad
                item.write(to: &out, indent: indent + 1)
                out += index + 1 < items.count ? ",\n" : "\n"
            }
            out += closing + "]"
        case .object(let object):
            if object.keys.isEmpty { out += "{}"; return }
            if indent > 0 && isFlat {
                out += "{" + object.keys.map { key in
                    var text = JSONLine.quote(key) + ": "
                    object[key]!.write(to: &text, indent: 0)
                    return text
                }.joined(separator: ", ") + "}"
                return
            }
            out += "{\n"
            for (index, key) in object.keys.enumerated() {
                out += pad + JSONLine.quote(key) + ": "
                object[key]!.write(to: &out, indent: indent + 1)
                out += index + 1 < object.keys.count ? ",\n" : "\n"
            }
            out += closing + "}"
        }
    }

    /// The shortest text that reads back as the same double, always with a point or an exponent.
    static func number(_ value: Double) -> String {
        let text = "\(value)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        if index == bytes.count { throw error("the file is empty: expected a JSON object") }
        let value = try parseValue()
        skipSpace()
        if index < bytes.count { throw error("unexpected text after the end of the JSON value") }
        return value
    }

    func error(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
        let end = min(position ?? index, bytes.count)
        var line = 1, column = 1
        var cursor = 0
        while cursor < end {
            if bytes[cursor] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if bytes[cursor] & 0xC0 != 0x80 {
                column += 1  // count characters, not UTF-8 continuation bytes
            }
            cursor += 1
        }
        return JSONSyntaxError(message: message, line: line, column: column)
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    var current: String {
        guard index < bytes.count else { return "the end of the file" }
        let byte = bytes[index]
        return byte < 0x80 && byte >= 0x20 ? "'\(Character(UnicodeScalar(byte)))'" : String(format: "byte 0x%02x", byte)
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw error("expected a value, found the end of the file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("expected a value, found \(current)")
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<(index + utf8.count)]) == utf8 else {
            throw error("expected a value, found \(current)")
        }
        index += utf8.count
        return value
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > 200 { throw error("nested too deeply") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a field name in double quotes, found \(current)")
            }
            let keyStart = index
            let key = try parseString()
            if object[key] != nil { throw error("the field \"\(key)\" appears twice", at: keyStart) }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after \"\(key)\", found \(current)") }
            index += 1
            object[key] = try parseValue()
            skipSpace()
            guard index < bytes.count else { throw error("the object is not closed: expected ',' or '}', found the end of the file") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            throw error("expected ',' or '}' after the value of \"\(key)\", found \(current)")
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try parseValue())
            skipSpace()
            guard index < bytes.count else { throw error("the list is not closed: expected ',' or ']', found the end of the file") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw error("expected ',' or ']' in a list, found \(current)")
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) throws(JSONSyntaxError) {
            guard run < end else { return }
            guard let text = String(validating: bytes[run..<end], as: UTF8.self) else { throw error("a string is not valid UTF-8", at: run) }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush(index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character (line break?) inside a string") }
            if byte == UInt8(ascii: "\\") {
                try flush(index)
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{c}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = UnicodeScalar(code) else { throw error("a \\u escape names no character") }
                    scalars.append(scalar)
                default: throw error("unknown escape '\\\(Character(UnicodeScalar(bytes[index])))' in a string")
                }
                index += 1
                run = index
                continue
            }
            index += 1
        }
        throw error("a string is not closed (missing '\"')", at: start)
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 < bytes.count, let code = UInt32(String(decoding: bytes[(index + 1)...(index + 4)], as: UTF8.self), radix: 16) else {
            throw error("a \\u escape needs four hex digits")
        }
        index += 4
        return code
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var isInteger = true
        while index < bytes.count {
            let byte = bytes[index]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                index += 1
            } else if [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(byte) {
                isInteger = false
                index += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite, text != "-" else { throw error("'\(text)' is not a number", at: start) }
        return .double(value)
    }
}
