import Foundation

/// An IPv4 or IPv6 address as 128 bits (two big-endian halves). An IPv4 address is held in its
/// IPv4-mapped form (::ffff:a.b.c.d), so that one comparison serves both families, and the IPv4
/// senders a dual-stack socket sees (mapped by the kernel) compare equal to their plain form. A
/// value type with no storage of its own: the OSC thread checks every packet's sender with it
/// before anything else, without allocating.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An IPv4 address from its 32 bits in host order (127.0.0.1 is 0x7F00_0001).
    public init(ipv4 bits: UInt32) {
        high = 0
        low = 0xFFFF_0000_0000 | UInt64(bits)
    }

    /// From 16 bytes in network order.
    init(bytes: UnsafeRawBufferPointer) {
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        self.init(high: high, low: low)
    }

    /// An address literal: `192.168.1.7`, `fd00::2`, `::1` (no host names, no brackets).
    public init?(parsing text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self = withUnsafeBytes(of: &v6) { IPAddress(bytes: $0) }
    }

    /// The address of an `AF_INET` or `AF_INET6` socket address; nil for other families.
    public init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let bits = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self.init(ipv4: UInt32(bigEndian: bits))
        case AF_INET6:
            var bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self = withUnsafeBytes(of: &bytes) { IPAddress(bytes: $0) }
        default:
            return nil
        }
    }

    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }
    /// The 32 bits of an IPv4 address (host order).
    var ipv4Bits: UInt32 { UInt32(truncatingIfNeeded: low) }
    /// 0.0.0.0 or ::, the "every interface" of a bind.
    public var isUnspecified: Bool { (high == 0 && low == 0) || (isIPv4 && ipv4Bits == 0) }
    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool { IPNetwork.loopback.contains { $0.contains(self) } }

    /// `192.168.1.7` or `fd00::2` (the IPv4 form for a mapped address).
    public var description: String {
        if isIPv4 {
            let bits = ipv4Bits
            return "\(bits >> 24).\(bits >> 16 & 0xFF).\(bits >> 8 & 0xFF).\(bits & 0xFF)"
        }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { bytes in
            for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index))) }
            for index in 0..<8 { bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index))) }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An IPv4 or IPv6 network: an address and a prefix length, on the 128-bit form (an IPv4 /24 is a
/// /120 of the mapped space, so that an IPv4 network never takes an IPv6 sender, and back).
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The network's address (the bits past the prefix are zero).
    public let address: IPAddress
    /// Prefix length on 128 bits.
    public let prefixLength: Int
    private let mask: IPAddress

    public init(_ address: IPAddress, prefixLength: Int) {
        let length = min(128, max(0, prefixLength))
        let highMask: UInt64 = length >= 64 ? ~0 : (length == 0 ? 0 : ~0 << UInt64(64 - length))
        let lowMask: UInt64 = length <= 64 ? 0 : (length == 128 ? ~0 : ~0 << UInt64(128 - length))
        mask = IPAddress(high: highMask, low: lowMask)
        self.address = IPAddress(high: address.high & highMask, low: address.low & lowMask)
        self.prefixLength = length
    }

    /// One address alone (/32 or /128).
    public init(_ address: IPAddress) { self.init(address, prefixLength: 128) }

    /// The network of an interface: its address and netmask (as `getifaddrs` gives them).
    init?(address: UnsafePointer<sockaddr>, netmask: UnsafePointer<sockaddr>) {
        guard let ip = IPAddress(address), let bits = IPAddress(netmask) else { return nil }
        // The mask's leading one bits.
        let ones = bits.isIPv4 ? 96 + (~bits.ipv4Bits).leadingZeroBitCount
            : (~bits.high).leadingZeroBitCount + (bits.high == ~0 ? (~bits.low).leadingZeroBitCount : 0)
        self.init(ip, prefixLength: ones)
    }

    /// `192.168.1.0/24`, `10.0.0.7` (one address), `fd00::/8`, `::1`. Bits past the prefix are
    /// ignored (`192.168.1.5/24` is `192.168.1.0/24`). The error is a short phrase, for the
    /// caller's message.
    public init(parsing text: String) throws(IPNetworkError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parsing: String(parts[0])) else { throw IPNetworkError("'\(parts[0])' is not an IPv4 or IPv6 address") }
        let bits = address.isIPv4 ? 32 : 128
        guard parts.count == 2 else {
            self.init(address)
            return
        }
        guard let length = Int(parts[1]), (0...bits).contains(length), parts[1].allSatisfy(\.isASCII) else {
            throw IPNetworkError("the prefix of '\(text)' must be 0 to \(bits)")
        }
        self.init(address, prefixLength: (address.isIPv4 ? 96 : 0) + length)
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        candidate.high & mask.high == address.high && candidate.low & mask.low == address.low
    }

    /// 127.0.0.0/8 and ::1: this computer.
    public static let loopback = [IPNetwork(IPAddress(ipv4: 0x7F00_0000), prefixLength: 104), IPNetwork(IPAddress(high: 0, low: 1))]

    /// `192.168.1.0/24`, or the address alone for a single one.
    public var description: String {
        let length = address.isIPv4 && prefixLength >= 96 ? prefixLength - 96 : prefixLength
        return prefixLength == 128 ? address.description : "\(address)/\(length)"
    }
}

/// Why a network could not be read (a phrase: the caller names the option).
public struct IPNetworkError: Error, Equatable {
    public var message: String

    init(_ message: String) { self.message = message }
}
