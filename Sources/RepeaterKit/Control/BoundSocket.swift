import Foundation

/// One bound, non-blocking socket: a UDP socket of the OSC server, or a listening TCP socket of the
/// practice page. It owns its descriptor: closed when the last holder lets go (the server, a
/// subscriber, a command still waiting to be answered), so a late answer can never write to a
/// descriptor number the process has since reused for something else.
public final class BoundSocket: @unchecked Sendable {
    public let fd: Int32
    /// Where it is bound (the port as bound).
    let local: SocketAddress
    /// Where it is bound: `127.0.0.1:9000`, `[::1]:9000`.
    public var endpoint: String { local.description }
    /// The address it is bound to (0.0.0.0 or :: for every interface).
    public var address: IPAddress { local.ip }

    /// What a socket is for: OSC's datagrams, or the page's TCP connections (listened for).
    public enum Kind: Sendable {
        case datagram
        case stream
    }

    private init(fd: Int32, local: SocketAddress) {
        self.fd = fd
        self.local = local
    }

    deinit { close(fd) }

    /// Sends one datagram without ever waiting (a full send buffer drops it: UDP may lose it anyway).
    @discardableResult
    func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
        destination.withSockaddr { address, length in  // (a non-blocking socket)
            sendto(fd, bytes.baseAddress, bytes.count, 0, address, length) == bytes.count
        }
    }

    /// Binds `address` (a UDP socket, or a TCP socket that listens). `[::]` takes IPv4 too
    /// (dual-stack, whatever the system default); any other IPv6 address only IPv6. The error is errno.
    static func bind(_ address: IPAddress, port: Int, kind: Kind = .datagram) -> Result<BoundSocket, SystemError> {
        let family = address.isIPv4 ? AF_INET : AF_INET6
        let type = kind == .datagram ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
        let fd = socket(family, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(SystemError(errno)) }
        if family == AF_INET6 {
            var only: Int32 = address.isUnspecified ? 0 : 1
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<Int32>.size))
        }
        if kind == .stream {
            // A restart right after a run finds the port free, though its last connections wait out TIME_WAIT.
            var reuse: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        var bound = SocketAddress(address, port: port).withSockaddr { Foundation.bind(fd, $0, $1) }
        if bound == 0, kind == .stream { bound = listen(fd, 16) }
        guard bound == 0 else {
            let error = SystemError(errno)
            close(fd)
            return .failure(error)
        }
        let local = SocketAddress { getsockname(fd, $0, $1) == 0 } ?? SocketAddress(address, port: port)
        return .success(BoundSocket(fd: fd, local: local))
    }

    /// The sockets `listen` asks for: 127.0.0.1 and ::1 for the loopback (::1 may be missing where
    /// IPv6 is off: a note says so and 127.0.0.1 serves alone), or every address HOST stands for (a
    /// literal, or a name resolved once). A port in use, an address this computer does not have,
    /// a name that does not resolve: one line, exit 2. `service` and `option` name them in messages.
    public static func open(_ listen: ListenAddress, kind: Kind = .datagram, service: String = "OSC",
                            option: String = "--osc") throws(RepeaterError) -> (sockets: [BoundSocket], notes: [String]) {
        let port = listen.port
        let inUse = RepeaterError.input("\(service) port \(port) cannot be used (in use by another program?): choose another with \(option) PORT")
        var sockets: [BoundSocket] = []
        var notes: [String] = []
        switch listen.host {
        case .loopback:
            switch bind(IPAddress(ipv4: 0x7F00_0001), port: port, kind: kind) {
            case .success(let socket): sockets.append(socket)
            case .failure(SystemError.addressInUse): throw inUse
            case .failure(let error): throw .input("\(service) port \(port) cannot be used on 127.0.0.1: \(error.text)")
            }
            switch bind(IPAddress(high: 0, low: 1), port: port, kind: kind) {
            case .success(let socket): sockets.append(socket)
            case .failure(SystemError.addressInUse): throw inUse
            case .failure(let error):
                notes.append("\(service) listens on 127.0.0.1:\(port) only: IPv6's ::1 cannot be used here (\(error.text))")
            }
        case .named(let name):
            let addresses = try resolve(name, option: option)
            for address in addresses {
                switch bind(address, port: port, kind: kind) {
                case .success(let socket): sockets.append(socket)
                case .failure(SystemError.addressInUse): throw inUse
                case .failure(SystemError.addressNotAvailable):
                    if addresses.count == 1 { throw .input("\(option) \(listen): \(address) is not an address of this computer (see `ip address`; 0.0.0.0:\(port) listens on every network)") }
                    notes.append("\(service): \(name) stands for \(address) too, which is not an address of this computer: left out")
                case .failure(let error):
                    if addresses.count == 1 { throw .input("\(option) \(listen): \(error.text)") }
                    notes.append("\(service): \(address) cannot be used (\(error.text)): left out")
                }
            }
            if sockets.isEmpty { throw .input("\(option) \(listen): none of \(name)'s addresses (\(addresses.map(\.description).joined(separator: ", "))) is an address of this computer") }
        }
        return (sockets, notes)
    }

    /// An address literal, or a host name's addresses (looked up once; at most 4 distinct).
    private static func resolve(_ name: String, option: String) throws(RepeaterError) -> [IPAddress] {
        if let literal = IPAddress(parsing: name) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw .input("\(option): the host name '\(name)' does not resolve (\(String(cString: gai_strerror(status)))); give an address, or 0.0.0.0:PORT")
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry, addresses.count < 4 {
            if let pointer = current.pointee.ai_addr, let address = IPAddress(pointer), !addresses.contains(address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// The networks of the interfaces these sockets listen on (`getifaddrs`, interfaces that are
    /// up): an address's own network(s); for 0.0.0.0 every IPv4 interface's; for [::] every
    /// interface's, IPv4 and IPv6.
    public static func networks(servedBy sockets: [BoundSocket]) -> [IPNetwork] {
        networks(servedBy: sockets.map(\.local.ip))
    }

    /// The same for sockets bound to `bound`.
    public static func networks(servedBy bound: [IPAddress]) -> [IPNetwork] {
        var networks: [IPNetwork] = []
        for (ip, network) in interfaceNetworks() where !networks.contains(network) {
            let served = bound.contains { bound in bound.isUnspecified ? (!bound.isIPv4 || ip.isIPv4) : bound == ip }
            if served { networks.append(network) }
        }
        return networks
    }

    /// Each address of an interface that is up, with its network.
    public static func interfaceNetworks() -> [(address: IPAddress, network: IPNetwork)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var found: [(IPAddress, IPNetwork)] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            entry = current.pointee.ifa_next
            guard current.pointee.ifa_flags & UInt32(IFF_UP) != 0, let address = current.pointee.ifa_addr,
                  let netmask = current.pointee.ifa_netmask, let network = IPNetwork(address: address, netmask: netmask),
                  let ip = IPAddress(address) else { continue }
            found.append((ip, network))
        }
        return found
    }
}

/// An errno value from a socket call.
struct SystemError: Error, Equatable {
    let code: Int32

    init(_ code: Int32) { self.code = code }

    static let addressInUse = SystemError(EADDRINUSE)
    static let addressNotAvailable = SystemError(EADDRNOTAVAIL)

    /// strerror's text.
    var text: String { String(cString: strerror(code)) }

    static func ~= (pattern: SystemError, value: SystemError) -> Bool { pattern == value }
}
