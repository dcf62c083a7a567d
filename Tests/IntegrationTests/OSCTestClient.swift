import Foundation

/// A minimal OSC client over a UDP socket of its own (so that replies come back to it): encodes
/// messages by the OSC 1.0 rules, sends raw bytes for garbage, and decodes the string replies.
final class OSCTestClient {
    enum Value {
        case float(Float)
        case int(Int32)
        case string(String)
    }

    private let fd: Int32

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if fd < 0 || bound != 0 { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(fd) }

    /// An OSC string: the bytes, a NUL, padded with NULs to a multiple of 4.
    static func padded(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    func send(to port: Int, path: String, types: String, arguments: [Value]) {
        var packet = Self.padded(path) + Self.padded("," + types)
        for argument in arguments {
            switch argument {
            case .float(let value): packet += withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) }
            case .int(let value): packet += withUnsafeBytes(of: value.bigEndian) { Array($0) }
            case .string(let text): packet += Self.padded(text)
            }
        }
        sendRaw(to: port, packet)
    }

    func sendRaw(to port: Int, _ bytes: [UInt8]) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Waits for up to `count` messages; returns each one's path and its first string argument.
    func receive(count: Int, timeout: Double) -> [(path: String, text: String)] {
        var replies: [(String, String)] = []
        let deadline = Date().addingTimeInterval(timeout)
        while replies.count < count, Date() < deadline {
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&probe, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { continue }
            let bytes = Array(buffer[0..<n])
            func string(at offset: Int) -> (String, Int) {
                let end = bytes[offset...].firstIndex(of: 0) ?? bytes.count
                return (String(decoding: bytes[offset..<end], as: UTF8.self), (end + 4) & ~3)
            }
            let (path, afterPath) = string(at: 0)
            let (types, afterTypes) = string(at: afterPath)
            let text = types.hasPrefix(",s") ? string(at: afterTypes).0 : ""
            replies.append((path, text))
        }
        return replies
    }
}
