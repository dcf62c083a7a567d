import Foundation
import RepeaterKit
@testable import RepeaterWeb
import Testing

@Suite("The practice page's checks: Host, Origin, token")
struct PageAccessTests {
    let open = PageAccess(port: 8765, hostNames: ["localhost", "127.0.0.1", "::1", "192.168.1.5", "studio"], token: "0123456789abcdef0123456789abcdef")
    let local = PageAccess(port: 8765, hostNames: ["localhost", "127.0.0.1", "::1"], token: nil)

    @Test("Host: name[:port], [v6]:port, a trailing dot; lowercased; 80 without a port")
    func authority() {
        #expect(PageAccess.authority("LocalHost:8765")! == ("localhost", 8765))
        #expect(PageAccess.authority("[::1]:8765")! == ("::1", 8765))
        #expect(PageAccess.authority("studio.:8765")! == ("studio", 8765))
        #expect(PageAccess.authority("studio")! == ("studio", 80))
        for bad in ["", ":8765", "[::1", "[::1]x", "a:b", "::1:8765", "host:"] { #expect(PageAccess.authority(bad) == nil, "\(bad)") }
    }

    @Test("a Host that is not this computer's (DNS rebinding), a wrong port or none: 421")
    func host() {
        for host in ["evil.example:8765", "localhost:8766", "localhost", "127.0.0.2:8765", "192.168.1.6:8765", "[::2]:8765"] {
            guard case .refuse(let status, _, let message) = local.check(WebRequest(path: "/", host: host)) else {
                Issue.record("\(host) was taken")
                continue
            }
            #expect(status == 421 && message.contains("port 8765"), "\(host): \(status) \(message)")
        }
        guard case .refuse(421, _, let message) = local.check(WebRequest(path: "/")) else { Issue.record("no Host was taken"); return }
        #expect(message.contains("missing"))
        #expect(local.check(WebRequest(path: "/", host: "LOCALHOST:8765")) == .allow)
        #expect(local.check(WebRequest(path: "/", host: "[::1]:8765")) == .allow)
    }

    @Test("Origin: needed on the upgrade and on anything but GET, and wherever given it must be the page's own: else 403")
    func origin() {
        let host = "127.0.0.1:8765"
        #expect(local.check(WebRequest(path: "/ws", host: host, origin: "http://127.0.0.1:8765", upgrade: "websocket")) == .allow)
        let refused: [WebRequest] = [
            WebRequest(path: "/ws", host: host, upgrade: "websocket"),
            WebRequest(path: "/ws", host: host, origin: "http://evil.example", upgrade: "websocket"),
            WebRequest(path: "/ws", host: host, origin: "http://localhost:8765", upgrade: "websocket"),  // another origin, though this computer's
            WebRequest(path: "/ws", host: host, origin: "https://127.0.0.1:8765", upgrade: "websocket"),
            WebRequest(path: "/ws", host: host, origin: "null", upgrade: "websocket"),
            WebRequest(method: "POST", path: "/", host: host),
            WebRequest(method: "POST", path: "/", host: host, origin: "http://evil.example"),
            WebRequest(path: "/peaks", host: host, origin: "http://evil.example"),
        ]
        for request in refused {
            guard case .refuse(403, "Forbidden", _) = local.check(request) else {
                Issue.record("taken: \(request)")
                continue
            }
        }
        #expect(local.check(WebRequest(method: "POST", path: "/", host: host, origin: "http://127.0.0.1:8765")) == .allow)
    }

    @Test("token: the address's token becomes an HttpOnly, SameSite=Strict cookie; the cookie is taken; anything else is 403")
    func token() {
        let host = "192.168.1.5:8765", token = "0123456789abcdef0123456789abcdef"
        guard case .refuse(403, _, let message) = open.check(WebRequest(path: "/", host: host)) else { Issue.record("no token was taken"); return }
        #expect(message.contains("token"))
        let swap = open.check(WebRequest(path: "/", query: ["token": token], host: host))
        #expect(swap == .swapToken(location: "/", setCookie: "repeater_page_8765=\(token); HttpOnly; SameSite=Strict; Path=/"))
        #expect(open.check(WebRequest(path: "/", host: host, cookie: "other=1; repeater_page_8765=\(token)")) == .allow)
        #expect(open.check(WebRequest(path: "/ws", host: host, origin: "http://\(host)", cookie: "repeater_page_8765=\(token)", upgrade: "websocket")) == .allow)
        let refused: [WebRequest] = [
            WebRequest(path: "/", query: ["token": String(token.dropLast()) + "0"], host: host),
            WebRequest(path: "/", query: ["token": ""], host: host),
            WebRequest(path: "/", host: host, cookie: "repeater_page_8765=\(token.uppercased())"),
            WebRequest(path: "/", host: host, cookie: "repeater_page_9000=\(token)"),
            // The token in a WebSocket's address does not open it: only the cookie does.
            WebRequest(path: "/ws", query: ["token": token], host: host, origin: "http://\(host)", upgrade: "websocket"),
            WebRequest(path: "/peaks", host: host),
        ]
        for request in refused {
            guard case .refuse(403, _, _) = open.check(request) else {
                Issue.record("taken: \(request)")
                continue
            }
        }
        // The Host check comes first, token or not.
        guard case .refuse(421, _, _) = open.check(WebRequest(path: "/", query: ["token": token], host: "evil.example:8765")) else {
            Issue.record("a foreign Host with the token was taken")
            return
        }
    }

    @Test("tokens are 32 hex digits, different each time; comparing does not stop at the first difference")
    func tokens() {
        let tokens = (0..<100).map { _ in PageAccess.newToken() }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        #expect(PageAccess.same("abc", "abc") && !PageAccess.same("abc", "abd") && !PageAccess.same("abc", "ab"))
    }

    @Test("the names a page answers to: the loopback's, and with the loopback pair no other address of an interface")
    func names() throws {
        let (sockets, _) = try BoundSocket.open(ListenAddress(port: Int.random(in: 40_000...49_000)), kind: .stream, service: "test", option: "--web")
        let names = PageAccess.hostNames(sockets: sockets, given: nil)
        #expect(names.isSuperset(of: ["localhost", "127.0.0.1", "::1"]))
        let addresses = names.compactMap { IPAddress(parsing: $0) }
        #expect(addresses.allSatisfy { $0.isLoopback }, "\(names)")
    }
}

private func == (lhs: (String, Int), rhs: (String, Int)) -> Bool { lhs.0 == rhs.0 && lhs.1 == rhs.1 }
