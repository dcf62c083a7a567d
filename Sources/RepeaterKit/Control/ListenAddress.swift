/// Where `--osc` (UDP) or `--web` (TCP) listens: `PORT` alone is this computer only (127.0.0.1 and
/// ::1); `HOST:PORT` opens it to a network: an address of one interface, `0.0.0.0` (every IPv4
/// interface), `[::]` (every interface, IPv4 too), an IPv6 address in brackets, or a host name
/// (resolved once, at the start).
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public enum Host: Equatable, Sendable {
        /// 127.0.0.1 and ::1.
        case loopback
        /// An address literal (IPv6 without its brackets) or a host name.
        case named(String)
    }

    public var host: Host
    public var port: Int

    public init(host: Host = .loopback, port: Int) {
        self.host = host
        self.port = port
    }

    /// `9000`, `0.0.0.0:9000`, `192.168.1.5:9000`, `[::]:9000`, `[fd00::2]:9000`, `studio.local:9000`.
    /// Errors name `option`, and the port's `transport` (UDP, TCP).
    public init(parsing text: String, option: String = "--osc", transport: String = "UDP") throws(RepeaterError) {
        func bad() -> RepeaterError {
            .input("\(option) takes PORT (this computer only) or HOST:PORT (0.0.0.0:\(Self.examplePort(option)) for every network, [::]:\(Self.examplePort(option)), an address of this computer), not '\(text)'")
        }
        func port(_ digits: Substring) throws(RepeaterError) -> Int {
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw bad() }
            guard let port = Int(digits), (1...65535).contains(port) else { throw .input("\(option): a \(transport) port is 1 to 65535, not '\(digits)'") }
            return port
        }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { throw bad() }
            let address = String(text[text.index(after: text.startIndex)..<close])
            guard let parsed = IPAddress(parsing: address), !parsed.isIPv4 || address.contains(":") else {
                throw .input("\(option): '\(address)' in brackets must be an IPv6 address")
            }
            self.init(host: .named(address), port: try port(text[text.index(close, offsetBy: 2)...]))
            return
        }
        guard let colon = text.lastIndex(of: ":") else {
            self.init(port: try port(Substring(text)))
            return
        }
        let host = text[..<colon]
        guard !host.contains(":") else { throw .input("\(option): write an IPv6 address in brackets, as [\(host)]:PORT") }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { throw bad() }
        self.init(host: .named(String(host)), port: try port(text[text.index(after: colon)...]))
    }

    /// The port the messages' examples use.
    private static func examplePort(_ option: String) -> Int { option == "--web" ? 8765 : 9000 }

    /// As written back: `9000` or `HOST:PORT` (an IPv6 address in brackets).
    public var description: String {
        switch host {
        case .loopback: return String(port)
        case .named(let name): return (name.contains(":") ? "[\(name)]" : name) + ":\(port)"
        }
    }
}
