import Foundation
import RepeaterKit

/// Who may use the practice page, request by request (docs/manual.md: *The practice page*):
///
/// - **Host** (every request): this computer's name, one of its addresses, or the name `--web`
///   was given, with the page's port. Anything else is 421: a page of another site whose name was
///   made to point at this computer (DNS rebinding) cannot read or steer it, because a browser
///   sends that site's name, and a page's script cannot change the Host header.
/// - **Origin** (the WebSocket's upgrade, any request other than GET, and any request that carries
///   one): the page's own (`http://` and the same host and port). Anything else is 403: a page of
///   another site cannot open the WebSocket (browsers let any page try) or send a form.
/// - **Token** (when the page is open to a network): a random token in the page's address, swapped
///   on the first visit for an HttpOnly, SameSite=Strict cookie that every later request carries.
///   Without it, 403.
public struct PageAccess: Sendable {
    public let port: Int
    /// Names and address literals (lowercase, IPv6 without brackets) the Host may carry.
    public let hostNames: Set<String>
    /// nil on the loopback; otherwise the token the page's address carries.
    public let token: String?

    public init(port: Int, hostNames: Set<String>, token: String?) {
        self.port = port
        self.hostNames = Set(hostNames.map { $0.lowercased() })
        self.token = token
    }

    /// The cookie the token becomes (named for the port: cookies are not kept apart by port).
    public var cookieName: String { "repeater_page_\(port)" }

    public enum Verdict: Equatable, Sendable {
        case allow
        /// The token in the address is right: set the cookie and go to `location` (without the token).
        case swapToken(location: String, setCookie: String)
        case refuse(status: Int, reason: String, message: String)
    }

    /// A new random token: 128 bits from the system's generator, as 32 hex digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    public func check(_ request: WebRequest) -> Verdict {
        guard let host = request.host, let authority = Self.authority(host), hostNames.contains(authority.name), authority.port == port else {
            return .refuse(status: 421, reason: "Misdirected Request",
                           message: "this is repeater's practice page: open it by this computer's name or address with port \(port) (Host was \(request.host.map { "'\($0)'" } ?? "missing"))")
        }
        let needsOrigin = request.upgrade != nil || request.method != "GET"
        if needsOrigin || request.origin != nil {
            guard let origin = request.origin, origin.lowercased() == "http://" + host.lowercased() else {
                return .refuse(status: 403, reason: "Forbidden",
                               message: "another site's page may not use the practice page (Origin was \(request.origin.map { "'\($0)'" } ?? "missing"))")
            }
        }
        guard let token else { return .allow }
        if let cookie = request.cookie(named: cookieName), Self.same(cookie, token) { return .allow }
        if request.method == "GET", request.upgrade == nil, let given = request.query["token"], Self.same(given, token) {
            return .swapToken(location: request.path, setCookie: "\(cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/")
        }
        return .refuse(status: 403, reason: "Forbidden",
                       message: "the practice page needs its token: open the address the player shows (…/?token=…), or scan its QR code")
    }

    /// `name:port`, `[v6]:port` or `name` (port 80), lowercased, a trailing dot dropped.
    static func authority(_ host: String) -> (name: String, port: Int)? {
        var text = Substring(host.lowercased())
        var port = 80
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
            return (String(text[text.index(after: text.startIndex)..<close]), port)
        }
        if let colon = text.lastIndex(of: ":") {
            guard let number = Int(text[text.index(after: colon)...]) else { return nil }
            port = number
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty, !text.contains(":") else { return nil }
        return (String(text), port)
    }

    /// Compares in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The names a page on `sockets` may be reached by: localhost and the loopback addresses; for a
    /// socket bound to every interface, each interface's address; for one address, that address;
    /// this computer's host name (and NAME.local); and the name `--web` was given.
    public static func hostNames(sockets: [BoundSocket], given: String?) -> Set<String> {
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        let bound = sockets.map(\.address)
        for (address, _) in BoundSocket.interfaceNetworks() {
            let served = bound.contains { $0.isUnspecified ? (!$0.isIPv4 || address.isIPv4) : $0 == address }
            if served { names.insert(address.description) }
        }
        for address in bound where !address.isUnspecified { names.insert(address.description) }
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            if !name.isEmpty {
                names.insert(name)
                if !name.contains(".") { names.insert(name + ".local") }
            }
        }
        if let given, IPAddress(parsing: given) == nil { names.insert(given.lowercased()) }
        return names
    }
}
