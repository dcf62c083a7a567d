import Foundation

/// An IPv4 or IPv6 socket address (address and port) as the kernel gives it (`recvfrom`,
/// `getsockname`) and takes it (`sendto`, `bind`): kept whole, so that an answer goes back in the
/// very form the request came in (a dual-stack socket's IPv4 sender stays IPv4-mapped).
struct SocketAddress: Sendable, CustomStringConvertible {
    private(set) var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    /// Filled by `body` (given the storage and its room; it sets the length).
    init?(_ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Bool) {
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let filled = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
        }
        guard filled, family == AF_INET || family == AF_INET6 else { return nil }
    }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    init(_ address: IPAddress, port: Int) {
        if address.isIPv4 {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            v4.sin_addr.s_addr = address.ipv4Bits.bigEndian
            Self.copy(&v4, into: &storage)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeMutableBytes(of: &v6.sin6_addr) { bytes in
                for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: address.high >> (56 - 8 * UInt64(index))) }
                for index in 0..<8 { bytes[8 + index] = UInt8(truncatingIfNeeded: address.low >> (56 - 8 * UInt64(index))) }
            }
            Self.copy(&v6, into: &storage)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
    }

    private static func copy<T>(_ value: inout T, into storage: inout sockaddr_storage) {
        withUnsafeBytes(of: &value) { source in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
        }
    }

    var family: Int32 { Int32(storage.ss_family) }

    var ip: IPAddress {
        var copy = storage
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress($0) } } ?? IPAddress(high: 0, low: 0)
    }

    var port: Int {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            family == AF_INET
                ? Int(UInt16(bigEndian: pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }))
                : Int(UInt16(bigEndian: pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }))
        }
    }

    /// The same host at another port.
    func with(port: Int) -> SocketAddress {
        var copy = self
        withUnsafeMutablePointer(to: &copy.storage) { pointer in
            let value = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = value }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = value }
            }
        }
        return copy
    }

    /// Calls `body` with the address as `sockaddr` and its length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// `127.0.0.1:9000`, `[::1]:9000` (an IPv4-mapped address in its IPv4 form).
    var description: String {
        let ip = self.ip
        return ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }

    /// Same host and port.
    func sameEndpoint(as other: SocketAddress) -> Bool { ip == other.ip && port == other.port }
}
