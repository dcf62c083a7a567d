import Foundation

/// An HTTP request as the page's checks and routes see it: what the web thread read of it from
/// libwebsockets (the method, the path, the query's fields, and the headers that matter).
public struct WebRequest: Sendable, Equatable {
    /// `GET`, `POST`, …; "" for one lws names no method for.
    public var method: String
    /// The path without the query: `/`, `/ws`.
    public var path: String
    /// The query's fields (`?token=…`), URL-decoded.
    public var query: [String: String]
    public var host: String?
    public var origin: String?
    public var cookie: String?
    /// `websocket` (or another protocol) for an upgrade.
    public var upgrade: String?

    public init(method: String = "GET", path: String, query: [String: String] = [:], host: String? = nil, origin: String? = nil,
                cookie: String? = nil, upgrade: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.host = host
        self.origin = origin
        self.cookie = cookie
        self.upgrade = upgrade
    }

    /// The value of cookie `name`, if the Cookie header has it.
    public func cookie(named name: String) -> String? {
        guard let cookie else { return nil }
        for pair in cookie.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// What the server sends back: a status, headers and a body (the whole of it: the page's files and
/// the peaks are in memory).
public struct WebResponse: Sendable {
    public var status: Int
    public var reason: String
    public var contentType: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, reason: String, contentType: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.reason = reason
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A refusal or a small answer in one line of text (why, and what to do).
    public static func text(_ status: Int, _ reason: String, _ message: String) -> WebResponse {
        WebResponse(status: status, reason: reason, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }

    /// Headers every response carries: nothing is cached (the token's page, a live recording's
    /// peaks), nothing may be framed, sniffed, or told where it came from, and the page may load
    /// only its own scripts and styles and talk only to its own server. No
    /// `Access-Control-Allow-Origin`, ever: no other site may read anything.
    public static let securityHeaders: [(name: String, value: String)] = [
        ("cache-control", "no-store"),
        ("content-security-policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cross-origin-resource-policy", "same-origin"),
    ]
}
