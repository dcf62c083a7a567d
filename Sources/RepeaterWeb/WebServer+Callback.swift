import CWebSockets
import Foundation
import RepeaterKit

/// libwebsockets' one callback (both protocols: the page's HTTP and WebSocket, and the listening
/// sockets watched as raw descriptors). lws calls it only on the web thread. A C function pointer:
/// it finds its server through the context's user pointer.
func webCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                 _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return 0 }
    return Unmanaged<WebServer>.fromOpaque(owner).takeUnretainedValue().handle(wsi, reason, input, length)
}

extension WebServer {
    /// At most this many pages at once; a ninth is answered 503.
    static let maximumClients = 8

    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(wsi)))
        switch reason {
        case LWS_CALLBACK_RAW_RX_FILE:
            acceptWaiting(on: lws_get_socket_fd(wsi))
            return 0
        case LWS_CALLBACK_RAW_ADOPT, LWS_CALLBACK_RAW_RX:
            return -1  // a CONNECT request turned raw: not served
        case LWS_CALLBACK_HTTP:
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            return serve(wsi, key: key, request(wsi, path: path))
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writeBody(wsi, key: key)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            let upgrade = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            var request = request(wsi, path: headerValue(wsi, WSI_TOKEN_GET_URI) ?? "")
            request.upgrade = upgrade
            return confirmUpgrade(wsi, request)
        case LWS_CALLBACK_ESTABLISHED:
            opened(wsi, key: key)
            return 0
        case LWS_CALLBACK_RECEIVE:
            return receive(wsi, key: key, input, length)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writeMessage(wsi, key: key)
        case LWS_CALLBACK_CLOSED:
            closed(key: key)
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            wake()
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            connections.remove(key)
            bodies.removeValue(forKey: key)
            closed(key: key)
            return 0
        default:
            return 0
        }
    }

    // MARK: connections

    /// Accepts what waits on a listening socket: a peer outside the allow list, or one beyond
    /// `maximumConnections`, is closed before a byte of it is read.
    private func acceptWaiting(on listening: Int32) {
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listening, $0, &length) }
            }
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let peer = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress($0) } }
            guard connections.count < Self.maximumConnections, let peer, handler?.accepts(peer: peer) == true else {
                refusedConnections.add(1, ordering: .relaxed)
                close(fd)
                continue
            }
            guard let adopted = lws_adopt_socket_vhost(vhost, fd) else { continue }  // (lws closed it)
            connections.insert(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(adopted))))
        }
    }

    // MARK: HTTP

    /// The request's method, path, query and the headers the checks read.
    private func request(_ wsi: OpaquePointer, path: String) -> WebRequest {
        let methods: [(lws_token_indexes, String)] = [
            (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_HEAD_URI, "HEAD"), (WSI_TOKEN_PUT_URI, "PUT"),
            (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        ]
        let method: String = methods.first(where: { lws_hdr_total_length(wsi, $0.0) > 0 }).map { $0.1 } ?? ""
        var query: [String: String] = [:]
        for index in Int32(0)..<16 {
            guard let field = fragment(wsi, WSI_TOKEN_HTTP_URI_ARGS, index) else { break }
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return WebRequest(method: method, path: path, query: query, host: headerValue(wsi, WSI_TOKEN_HOST),
                          origin: headerValue(wsi, WSI_TOKEN_ORIGIN), cookie: headerValue(wsi, WSI_TOKEN_HTTP_COOKIE))
    }

    func headerValue(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func fragment(_ wsi: OpaquePointer, _ token: lws_token_indexes, _ index: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), token, index) >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Answers a request: a success's body is written in pieces as the socket takes them; a
    /// refusal is written at once and the connection closed.
    private func serve(_ wsi: OpaquePointer, key: UInt, _ request: WebRequest) -> Int32 {
        guard let handler else { return -1 }
        let response = handler.respond(to: request)
        if response.status >= 400 {
            writeWhole(wsi, response)
            return -1
        }
        guard writeHead(wsi, response, finalize: true) else { return -1 }
        if response.body.isEmpty { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
        bodies[key] = (response.body, 0)
        lws_callback_on_writable(wsi)
        return 0
    }

    private func writeBody(_ wsi: OpaquePointer, key: UInt) -> Int32 {
        guard let (bytes, sent) = bodies[key] else { return 0 }
        let count = min(Self.chunkBytes, bytes.count - sent)
        let last = sent + count == bytes.count
        var buffer = [UInt8](repeating: 0, count: pre + count)
        buffer.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                (target.baseAddress! + pre).update(from: source.baseAddress! + sent, count: count)
            }
        }
        let written = buffer.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + pre, count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard written >= 0 else { return -1 }
        if last {
            bodies.removeValue(forKey: key)
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        bodies[key] = (bytes, sent + count)
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The status line, the content's type and length, the security headers and the response's own.
    /// `finalize`: written now; otherwise left in `buffer` (for a refusal written whole).
    @discardableResult
    private func writeHead(_ wsi: OpaquePointer, _ response: WebResponse, finalize: Bool) -> Bool {
        var storage = [UInt8](repeating: 0, count: pre + 4096)
        return storage.withUnsafeMutableBufferPointer { raw -> Bool in
            let start = raw.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let limit = raw.baseAddress! + raw.count - 1
            var ok = add(wsi, nil, "HTTP/1.1 \(response.status) \(response.reason)", &p, limit)
            ok = ok && lws_add_http_header_content_length(wsi, lws_filepos_t(response.body.count), &p, limit) == 0
            ok = ok && add(wsi, "content-type:", response.contentType, &p, limit)
            for (name, value) in WebResponse.securityHeaders + response.headers { ok = ok && add(wsi, name + ":", value, &p, limit) }
            if response.status >= 400 { ok = ok && add(wsi, "connection:", "close", &p, limit) }
            guard ok else { return false }
            if finalize { return lws_finalize_write_http_header(wsi, start, &p, limit) == 0 }
            guard lws_finalize_http_header(wsi, &p, limit) == 0, let head = p else { return false }
            // A refusal: the head and its short body in one write.
            let body = response.body.prefix(max(0, limit - head))
            body.withUnsafeBufferPointer { head.update(from: $0.baseAddress!, count: body.count) }
            return lws_write(wsi, start, head - start + body.count, LWS_WRITE_HTTP_HEADERS) >= 0
        }
    }

    /// A refusal, whole: the connection closes after it.
    private func writeWhole(_ wsi: OpaquePointer, _ response: WebResponse) {
        writeHead(wsi, response, finalize: false)
    }

    private func add(_ wsi: OpaquePointer, _ name: String?, _ value: String, _ p: inout UnsafeMutablePointer<UInt8>?,
                     _ end: UnsafeMutablePointer<UInt8>) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.withUnsafeBufferPointer { value in
            if let name {
                return lws_add_http_header_by_name(wsi, name, value.baseAddress, Int32(value.count), &p, end) == 0
            }
            return lws_add_http_header_by_name(wsi, nil, value.baseAddress, Int32(value.count), &p, end) == 0
        }
    }

    // MARK: WebSocket

    /// Only a WebSocket at the handler's terms, while fewer than `maximumClients` pages are open.
    private func confirmUpgrade(_ wsi: OpaquePointer, _ request: WebRequest) -> Int32 {
        guard let handler else { return -1 }
        var refusal = handler.refusesUpgrade(request)
        if refusal == nil, clients.count >= Self.maximumClients {
            refusal = .text(503, "Service Unavailable", "at most \(Self.maximumClients) pages at once: close one")
            refusedConnections.add(1, ordering: .relaxed)
        }
        guard let refusal else { return 0 }
        writeWhole(wsi, refusal)
        return -1
    }

    private func opened(_ wsi: OpaquePointer, key: UInt) {
        let client = WebClient(id: nextClient)
        nextClient += 1
        clients[key] = client
        wsiOfClient[client.id] = wsi
        mail.withLock { mail in mail.boxes[client.id] = Mailbox(document: mail.lastDocument, status: mail.lastStatus) }
        clientCount.store(clients.count, ordering: .relaxed)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_REASON_BASE, idleSeconds)
        handler?.opened(client: client.id)
        lws_callback_on_writable(wsi)
    }

    private func closed(key: UInt) {
        guard let client = clients.removeValue(forKey: key) else { return }
        wsiOfClient.removeValue(forKey: client.id)
        _ = mail.withLock { $0.boxes.removeValue(forKey: client.id) }
        clientCount.store(clients.count, ordering: .relaxed)
        handler?.closed(client: client.id)
    }

    /// A piece of a message: put together up to `maximumMessageBytes`, handed on when whole. A
    /// binary or longer message closes the connection (1003, 1009).
    private func receive(_ wsi: OpaquePointer, key: UInt, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let client = clients[key] else { return -1 }
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_REASON_BASE, idleSeconds)
        if lws_frame_is_binary(wsi) != 0 {
            return refuse(wsi, client, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "a binary message (the page sends JSON text)")
        }
        if client.message.count + length > Self.maximumMessageBytes {
            return refuse(wsi, client, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "a message longer than \(Self.maximumMessageBytes) bytes")
        }
        if let input, length > 0 { client.message += UnsafeRawBufferPointer(start: input, count: length) }
        if lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0 {
            let message = client.message
            client.message.removeAll(keepingCapacity: true)
            handler?.received(client: client.id, message: message)
        }
        return 0
    }

    private func refuse(_ wsi: OpaquePointer, _ client: WebClient, _ status: lws_close_status, _ reason: String) -> Int32 {
        handler?.refused(client: client.id, reason: reason)
        var text = Array(reason.prefix(100).utf8)
        lws_close_reason(wsi, status, &text, text.count)
        return -1
    }

    /// The page's socket can take more: its next message (one per call; again while any wait).
    private func writeMessage(_ wsi: OpaquePointer, key: UInt) -> Int32 {
        guard let client = clients[key] else { return 0 }
        let (next, more) = mail.withLock { mail -> ([UInt8]?, Bool) in
            let message = mail.boxes[client.id]?.take()
            return (message, mail.boxes[client.id].map { !$0.isEmpty } ?? false)
        }
        guard let next else { return 0 }
        var buffer = [UInt8](repeating: 0, count: pre + next.count)
        buffer.withUnsafeMutableBufferPointer { target in
            next.withUnsafeBufferPointer { (target.baseAddress! + pre).update(from: $0.baseAddress!, count: next.count) }
        }
        let written = buffer.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, next.count, LWS_WRITE_TEXT) }
        guard written >= 0 else { return -1 }
        if more { lws_callback_on_writable(wsi) }
        return 0
    }

    /// The control thread posted mail: the pages with something waiting are asked to be writable.
    private func wake() {
        let waiting = mail.withLock { mail -> [Int] in
            mail.woken = false
            return mail.boxes.compactMap { $0.value.isEmpty ? nil : $0.key }
        }
        for id in waiting { if let wsi = wsiOfClient[id] { lws_callback_on_writable(wsi) } }
    }
}
