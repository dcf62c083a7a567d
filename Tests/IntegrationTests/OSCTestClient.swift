import Foundation

/// A minimal OSC client over a UDP socket of its own (so that replies come back to it): encodes
/// messages by the OSC 1.0 rules, sends raw bytes for garbage, and decodes the string replies. It
/// binds to 127.0.0.1, another loopback address (on Linux all of 127/8 is this computer, so a test
/// can be several senders) or ::1, and can count what arrives (packets and bytes).
final class OSCTestClient: @unchecked Sendable {
    enum Value {
        case float(Float)
        case int(Int32)
        case string(String)
    }

    private let fd: Int32
    /// The address it is bound to, and its port.
    let host: String
    let port: Int

    init(bindTo host: String = "127.0.0.1") throws {
        self.host = host
        let fd = socket(host.contains(":") ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        let bound = Self.withAddress(host, port: 0) { bind(fd, $0, $1) }
        if fd < 0 || bound != 0 { throw POSIXError(.EADDRINUSE) }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        // sin_port and sin6_port sit at the same place, after the family.
        port = withUnsafeBytes(of: &local) { Int(UInt16($0[2]) << 8 | UInt16($0[3])) }
        var size: Int32 = 4 << 20  // room for a flood's worth of replies that should never come
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// An OSC string: the bytes, a NUL, padded with NULs to a multiple of 4.
    static func padded(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    func send(to port: Int, path: String, types: String, arguments: [Value]) {
        sendRaw(to: port, Self.message(path: path, types: types, arguments: arguments))
    }

    static func message(path: String, types: String, arguments: [Value]) -> [UInt8] {
        var packet = Self.padded(path) + Self.padded("," + types)
        for argument in arguments {
            switch argument {
            case .float(let value): packet += withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) }
            case .int(let value): packet += withUnsafeBytes(of: value.bigEndian) { Array($0) }
            case .string(let text): packet += Self.padded(text)
            }
        }
        return packet
    }

    /// An IPv4 or IPv6 address literal and a port, as a `sockaddr`.
    private static func withAddress<R>(_ host: String, port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    }

    /// Sends to `port` on the loopback of the client's own family (127.0.0.1 or ::1), or on `host`;
    /// false when the kernel would not take it.
    @discardableResult
    func sendRaw(to port: Int, host: String? = nil, _ bytes: [UInt8]) -> Bool {
        let destination = host ?? (self.host.contains(":") ? "::1" : "127.0.0.1")
        return bytes.withUnsafeBytes { buffer in
            Self.withAddress(destination, port: port) { sendto(fd, buffer.baseAddress, buffer.count, 0, $0, $1) }
        } == bytes.count
    }

    /// Everything that arrives within `seconds`: packets and bytes (and the packets themselves,
    /// up to `keep`).
    func count(for seconds: Double, keep: Int = 0) -> (packets: Int, bytes: Int, kept: [[UInt8]]) {
        var packets = 0, total = 0
        var kept: [[UInt8]] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&probe, 1, min(left, 100)) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)  // (poll said there is one)
            guard n > 0 else { continue }
            packets += 1
            total += n
            if kept.count < keep { kept.append(Array(buffer[0..<n])) }
        }
        return (packets, total, kept)
    }

    /// Drops whatever is waiting.
    func drain() { _ = count(for: 0.05) }

    /// The packets each client receives over the same `seconds` (one thread polls them all).
    static func count(_ clients: [OSCTestClient], for seconds: Double) -> [Int] {
        var counts = [Int](repeating: 0, count: clients.count)
        var fds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard poll(&fds, nfds_t(fds.count), 10) > 0 else { continue }
            for index in fds.indices where fds[index].revents & Int16(POLLIN) != 0 {
                if recv(fds[index].fd, &buffer, buffer.count, 0) > 0 { counts[index] += 1 }
            }
        }
        return counts
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
