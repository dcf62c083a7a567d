import Foundation

/// A TCP client that writes HTTP requests and WebSocket frames byte by byte, for the practice page's
/// tests: what a browser would never send (a foreign Host, a missing Origin, a frame too long) as
/// well as what it would. It binds to a loopback address of its choice (127.0.0.2 is a second
/// "host" on Linux), blocks with a timeout, and reads what comes back. One thread uses it at a time.
public final class RawWebClient: @unchecked Sendable {
    public let fd: Int32

    /// Connects to `host:port` (an IPv4 or IPv6 literal) from `source` (an IPv4 literal, or any);
    /// `receiveBuffer` makes the kernel's buffer small (a page that stops reading fills it at once).
    public init(host: String = "127.0.0.1", port: Int, source: String? = nil, timeout: Double = 5, receiveBuffer: Int32? = nil) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        }
        let connected: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// One HTTP/1.1 request with these header lines (give `Host:` yourself, or leave it out).
    public func request(_ method: String = "GET", _ target: String, headers: [String]) {
        write(Array(("\(method) \(target) HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n").utf8))
    }

    /// Reads until the peer closes, `timeout` passes, or `enough` says the bytes so far suffice.
    public func read(enough: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !enough(received) {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return received
    }

    /// An HTTP response: its status code, its header lines (lowercased names) and its body.
    public struct Response {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Reads one response (whole, by its content-length); nil if the connection closed first.
    public func response() -> Response? {
        let bytes = read { received in
            guard let end = Self.headEnd(received) else { return false }
            let head = Self.parseHead(Array(received[..<end]))
            let length = Int(head?.headers.first { $0.name == "content-length" }?.value ?? "0") ?? 0
            return head?.status == 101 || received.count >= end + 4 + length
        }
        guard let end = Self.headEnd(bytes), var head = Self.parseHead(Array(bytes[..<end])) else { return nil }
        let length = Int(head.header("content-length") ?? "0") ?? 0
        head.body = Array(bytes[(end + 4)...].prefix(length))
        pendingFrames = head.status == 101 ? Array(bytes[(end + 4)...]) : []
        return head
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parseHead(_ bytes: [UInt8]) -> Response? {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        guard words.count >= 2, let status = Int(words[1]) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Response(status: status, headers: headers, body: [])
    }

    // MARK: WebSocket

    /// Bytes read past the upgrade's response: the first frames.
    private var pendingFrames: [UInt8] = []

    /// The upgrade request a browser sends (a fixed key: the test checks the 101, not the accept hash).
    public func upgrade(host: String, origin: String?, path: String = "/ws", cookie: String? = nil, extra: [String] = []) -> Response? {
        var headers = ["Host: \(host)", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                       "Sec-WebSocket-Version: 13"]
        if let origin { headers.append("Origin: \(origin)") }
        if let cookie { headers.append("Cookie: \(cookie)") }
        request("GET", path, headers: headers + extra)
        return response()
    }

    /// A client frame (masked, as a client must): `opcode` 1 text, 2 binary, 8 close, 9 ping.
    public static func frame(_ payload: [UInt8], opcode: UInt8 = 1, final: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
        return frame
    }

    public func sendText(_ text: String) -> Bool { write(Self.frame(Array(text.utf8))) }

    /// The next server frame (opcode, payload); nil when the connection closed or timed out.
    public func nextFrame() -> (opcode: UInt8, payload: [UInt8])? {
        func need(_ count: Int) -> Bool {
            if pendingFrames.count >= count { return true }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while pendingFrames.count < count {
                let received = recv(fd, &buffer, buffer.count, 0)
                guard received > 0 else { return false }
                pendingFrames += buffer[0..<received]
            }
            return true
        }
        guard need(2) else { return nil }
        var length = Int(pendingFrames[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard need(4) else { return nil }
            length = Int(pendingFrames[2]) << 8 | Int(pendingFrames[3])
            header = 4
        } else if length == 127 {
            guard need(10) else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(pendingFrames[$1]) }
            header = 10
        }
        guard need(header + length) else { return nil }
        let opcode = pendingFrames[0] & 0x0F
        let payload = Array(pendingFrames[header..<(header + length)])
        pendingFrames.removeFirst(header + length)
        return (opcode, payload)
    }

    /// The next text messages until one satisfies `predicate` (nil: closed or timed out first).
    public func nextText(where predicate: (String) -> Bool) -> String? {
        while let (opcode, payload) = nextFrame() {
            if opcode == 8 { return nil }
            let text = String(decoding: payload, as: UTF8.self)
            if opcode == 1, predicate(text) { return text }
        }
        return nil
    }
}
