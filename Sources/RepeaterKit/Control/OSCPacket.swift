import CLiblo
import Foundation

/// One OSC message as it arrived: its address and arguments.
public struct OSCMessage: Equatable, Sendable {
    public var path: String
    public var arguments: [OSCArgument]

    public init(path: String, arguments: [OSCArgument]) {
        self.path = path
        self.arguments = arguments
    }
}

/// OSC packets in and out. In: a packet is a message or a `#bundle` of packets; bundles are split
/// here, to a bounded depth, and each message is decoded by liblo (`lo_message_deserialise`, fuzzed).
/// Time tags are not honoured: everything acts on arrival. Out: messages built with liblo,
/// serialised here, alone or in one bundle.
public enum OSCPacket {
    /// Bundles in bundles deeper than this are malformed.
    public static let maximumDepth = 4

    /// The messages of a packet, and whether any part of it was malformed (what could be read of a
    /// bundle with a bad element is still returned).
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> (messages: [OSCMessage], malformed: Bool) {
        var messages: [OSCMessage] = []
        let ok = decode(bytes, depth: 0, into: &messages)
        return (messages, !ok)
    }

    private static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]

    private static func decode(_ bytes: UnsafeRawBufferPointer, depth: Int, into messages: inout [OSCMessage]) -> Bool {
        guard bytes.count >= 4, bytes.count % 4 == 0, let base = bytes.baseAddress else { return false }
        if bytes.count >= 16, bytes.prefix(8).elementsEqual(bundleTag) {
            guard depth < maximumDepth else { return false }
            var offset = 16  // the tag and the time tag
            var ok = true
            while offset < bytes.count {
                guard offset + 4 <= bytes.count else { return false }
                let size = Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
                offset += 4
                guard size > 0, size <= bytes.count - offset else { return false }
                ok = decode(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)]), depth: depth + 1, into: &messages) && ok
                offset += size
            }
            return ok
        }
        guard let message = decodeMessage(UnsafeMutableRawPointer(mutating: base), count: bytes.count) else { return false }
        messages.append(message)
        return true
    }

    /// One message; nil when liblo cannot read it or its address does not start with `/`.
    private static func decodeMessage(_ data: UnsafeMutableRawPointer, count: Int) -> OSCMessage? {
        guard data.load(as: UInt8.self) == UInt8(ascii: "/") else { return nil }
        var result: Int32 = 0
        guard let message = lo_message_deserialise(data, count, &result) else { return nil }
        defer { lo_message_free(message) }
        guard let pathPointer = lo_get_path(data, count) else { return nil }
        let path = String(cString: pathPointer)
        let types = lo_message_get_types(message).map { String(cString: $0) } ?? ""
        let argv = lo_message_get_argv(message)
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(types.utf8.count)
        for (index, tag) in types.enumerated() {
            guard let pointer = argv?[index] else { break }
            // Each value is read at its own size: liblo stores a float in 4 bytes, and `pointee` would
            // copy the whole `lo_arg` union (8 bytes and more) past its end (AddressSanitizer found it).
            let argument = UnsafeRawPointer(pointer)
            switch tag {
            case "f": arguments.append(.float(Double(argument.loadUnaligned(as: Float.self))))
            case "d": arguments.append(.float(argument.loadUnaligned(as: Double.self)))
            case "i": arguments.append(.int(Int(argument.loadUnaligned(as: Int32.self))))
            case "h": arguments.append(.int(Int(argument.loadUnaligned(as: Int64.self))))
            case "s", "S": arguments.append(.string(String(cString: argument.assumingMemoryBound(to: CChar.self))))
            default: arguments.append(.other(tag))
            }
        }
        return OSCMessage(path: path, arguments: arguments)
    }

    /// A message built with liblo, serialised to `path`.
    static func serialise(_ message: lo_message, path: String) -> [UInt8] {
        var bytes: [UInt8] = []
        append(message, path: path, to: &bytes)
        return bytes
    }

    /// Several messages in one bundle (time tag "immediately"): one datagram.
    static func bundle(_ messages: [(path: String, message: lo_message)], into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        bytes += bundleTag
        bytes += [0, 0, 0, 0, 0, 0, 0, 1]  // OSC's "immediately"
        for (path, message) in messages {
            let sizeOffset = bytes.count
            bytes += [0, 0, 0, 0]
            append(message, path: path, to: &bytes)
            let size = UInt32(bytes.count - sizeOffset - 4)
            for index in 0..<4 { bytes[sizeOffset + index] = UInt8(truncatingIfNeeded: size >> (24 - 8 * UInt32(index))) }
        }
    }

    private static func append(_ message: lo_message, path: String, to bytes: inout [UInt8]) {
        let length = lo_message_length(message, path)
        let start = bytes.count
        bytes += repeatElement(0, count: length)
        bytes.withUnsafeMutableBytes { buffer in
            var size = length
            _ = lo_message_serialise(message, path, buffer.baseAddress! + start, &size)
        }
    }
}
