// FixtureServer.swift - a minimal loopback HTTP/1.1 server for the fixture
// pages, so that pages can load subresources late (/delay/<ms>/...).
//
//   GET /<path>             serves <root>/<path>
//   GET /delay/<ms>/<path>  waits <ms> milliseconds, then serves <root>/<path>
//
// Routes for the hostile cases (any method):
//
//   /hang                   reads the request and never answers (until the client hangs up
//                           or the server stops)
//   /status/<code>          that HTTP status with a small HTML body
//   /redirect-loop          302 to itself, for ever
//   /count/<name>           counts the request under <name> (see `counts`), answers 204
//   /attachment/<name>      a small text file with Content-Disposition: attachment; filename=<name>
//   /cookie/<name>          counts the request under "<name> with cookie" when it carries the cookie
//                           session=s3cret, else "<name> without cookie" (see `counts`), answers 204
//   /redirect?<url>         302 to <url> (percent-decoded)
//
// Listens on 127.0.0.1 (or, with `allInterfaces`, on 0.0.0.0) on an ephemeral port (bind to port 0, read it back with
// getsockname). One background thread accepts; each connection gets its own
// thread, so a delayed request never holds up another one. Every response is
// "Connection: close" and "Cache-Control: no-store" (nothing cached between
// runs). Writes use MSG_NOSIGNAL, so a client that hangs up early cannot kill
// the test process with SIGPIPE.
//
// Glibc + Foundation only (Linux).

import Foundation
import Glibc

enum FixtureServerError: Error, CustomStringConvertible {
    case socket(String, Int32)

    var description: String {
        switch self {
        case .socket(let call, let code):
            return "FixtureServer: \(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

final class FixtureServer: @unchecked Sendable {
    /// The directory that is served (Pages/).
    let root: URL
    /// The port it listens on, on 127.0.0.1.
    let port: UInt16

    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var requests: [String] = []
    private var counted: [String: Int] = [:]
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// Longest delay /delay/<ms>/ honours, so a typo cannot hang a test.
    static let maximumDelayMilliseconds = 60_000

    /// - Parameter allInterfaces: listen on 0.0.0.0 instead of 127.0.0.1, so that the machine's
    ///   other addresses reach it too (`url(for:)` still names 127.0.0.1).
    init(root: URL, allInterfaces: Bool = false) throws {
        self.root = root.standardizedFileURL

        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureServerError.socket("socket", errno) }

        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // ephemeral
        address.sin_addr.s_addr = allInterfaces ? in_addr_t(0) : in_addr_t(0x7f00_0001).bigEndian  // 0.0.0.0 or 127.0.0.1
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw FixtureServerError.socket("bind", code)
        }
        guard listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw FixtureServerError.socket("listen", code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(fd, $0, &length)
            }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw FixtureServerError.socket("getsockname", code)
        }
        self.listener = fd
        self.port = UInt16(bigEndian: actual.sin_port)

        let thread = Thread { [self] in
            self.acceptLoop()
        }
        thread.name = "FixtureServer.accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// The http://127.0.0.1:<port>/<page> URL of a page (or any path below
    /// root, e.g. "delay/800/img/block-390x600.png").
    func url(for page: String) -> URL {
        var path = page
        while path.hasPrefix("/") { path.removeFirst() }
        return URL(string: "http://127.0.0.1:\(port)/\(path)")!
    }

    /// Request targets received so far, in arrival order (e.g.
    /// "/delay/1000/fonts/DejaVuSansMono-Bold.ttf").
    var requestedPaths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }

    /// How many requests each /count/<name> got, by <name> (e.g. "img": 1).
    var counts: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return counted
    }

    /// Forgets the counts so far.
    func resetCounts() {
        lock.lock()
        counted = [:]
        lock.unlock()
    }

    /// The machine's first IPv4 address that is not loopback (e.g. "192.0.2.2"), from
    /// getifaddrs; nil when it has none.
    static func nonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  (current.pointee.ifa_flags & UInt32(IFF_UP)) != 0,
                  (current.pointee.ifa_flags & UInt32(IFF_LOOPBACK)) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let done = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 -> Bool in
                var raw = ipv4.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
            }
            if done { return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        return nil
    }

    /// Stops accepting connections (idempotent). Connections already being
    /// served finish on their own threads. Call it when done (e.g. in a
    /// defer): the accept thread keeps the server alive until then.
    func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        guard !wasStopped else { return }
        // Wakes the blocked accept() (it fails with EINVAL); the accept loop
        // then closes the socket itself, so the descriptor is never closed
        // while another thread is still using it.
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = acceptLoopEnded.wait(timeout: .now() + 5)
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    // MARK: - Accepting

    private func acceptLoop() {
        defer {
            close(listener)
            acceptLoopEnded.signal()
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                let code = errno
                if isStopped { return }
                if code == EINTR || code == ECONNABORTED || code == EMFILE || code == ENFILE {
                    if code != EINTR { usleep(10_000) }
                    continue
                }
                return
            }
            if isStopped {
                close(client)
                return
            }
            let connection = Thread { [self] in
                self.serve(client)
            }
            connection.name = "FixtureServer.connection"
            connection.start()
        }
    }

    // MARK: - One connection

    private func serve(_ client: Int32) {
        defer { close(client) }
        // A client that never finishes its request must not hold a thread forever.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        guard let head = readRequestHead(client) else { return }
        let requestLine = head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false)
            .first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2 else {
            respond(client, status: "400 Bad Request", type: "text/plain; charset=utf-8",
                    body: Data("bad request\n".utf8), includeBody: true)
            return
        }
        let method = parts[0].uppercased()
        let target = parts[1]
        lock.lock()
        requests.append(target)
        lock.unlock()

        if serveCookieRoute(client, target: target, head: head) { return }
        if serveHostileRoute(client, method: method, target: target) { return }
        if serveRequestRoute(client, method: method, target: target, head: head) { return }

        guard method == "GET" || method == "HEAD" else {
            respond(client, status: "405 Method Not Allowed", type: "text/plain; charset=utf-8",
                    body: Data("only GET and HEAD\n".utf8), includeBody: true)
            return
        }
        let includeBody = method == "GET"

        // Path only: drop query and fragment, percent-decode, split.
        var path = target
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        if let scheme = path.range(of: "://"),
           let slash = path[scheme.upperBound...].firstIndex(of: "/") {
            path = String(path[slash...])  // absolute-form request target
        }
        path = path.removingPercentEncoding ?? path
        var segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)

        if segments.count >= 2, segments[0] == "delay" {
            guard let milliseconds = Int(segments[1]), milliseconds >= 0 else {
                notFound(client, includeBody: includeBody)
                return
            }
            segments.removeFirst(2)
            let delay = min(milliseconds, Self.maximumDelayMilliseconds)
            if delay > 0 { Thread.sleep(forTimeInterval: Double(delay) / 1000) }
        }

        guard !segments.isEmpty, !segments.contains(where: { $0 == ".." || $0 == "." || $0.contains("\0") }) else {
            notFound(client, includeBody: includeBody)
            return
        }
        let file = segments.reduce(root) { $0.appendingPathComponent($1) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory),
              !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: file.path) else {
            notFound(client, includeBody: includeBody)
            return
        }
        respond(client, status: "200 OK", type: Self.contentType(for: file.pathExtension),
                body: data, includeBody: includeBody)
    }

    // MARK: - Cookies

    /// Serves /cookie/<name> and /redirect?<url>; false for any other target.
    private func serveCookieRoute(_ client: Int32, target: String, head: String) -> Bool {
        let path = String(target.prefix { $0 != "?" && $0 != "#" })
        if path == "/redirect", let query = target.split(separator: "?", maxSplits: 1).dropFirst().first {
            let location = String(query).removingPercentEncoding ?? String(query)
            respond(client, status: "302 Found", type: "text/plain; charset=utf-8", body: Data(), includeBody: false,
                    extraHeaders: "Location: \(location)\r\n")
            return true
        }
        guard path.hasPrefix("/cookie/") else { return false }
        let name = String(path.dropFirst("/cookie/".count))
        let carries = head.split(separator: "\r\n").dropFirst().contains { line in
            line.lowercased().hasPrefix("cookie:")
                && line.dropFirst("cookie:".count).split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces) == "session=s3cret" }
        }
        lock.lock()
        counted["\(name) \(carries ? "with" : "without") cookie", default: 0] += 1
        lock.unlock()
        respond(client, status: "204 No Content", type: "text/plain; charset=utf-8", body: Data(), includeBody: false)
        return true
    }

    // MARK: - Hostile routes

    /// Serves /hang, /status/<code>, /redirect-loop, /count/<name> and /attachment/<name>; false
    /// for any other target.
    private func serveHostileRoute(_ client: Int32, method: String, target: String) -> Bool {
        var path = target
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        if let scheme = path.range(of: "://"),
           let slash = path[scheme.upperBound...].firstIndex(of: "/") {
            path = String(path[slash...])
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let route = segments.first else { return false }
        let includeBody = method != "HEAD"
        switch route {
        case "hang":
            // Never answers: wait until the client hangs up or the server stops.
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            while !isStopped {
                let count = recv(client, &byte, 1, 0)
                if count == 0 { break }  // the client hung up
                if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { break }
            }
            return true
        case "status":
            guard segments.count >= 2, let code = Int(segments[1]), (100...599).contains(code) else { return false }
            let body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(code)</title></head>"
                + "<body style=\"margin:0\"><div style=\"height:300px\">HTTP \(code)</div></body></html>\n"
            respond(client, status: "\(code) \(Self.reason(code))", type: "text/html; charset=utf-8",
                    body: Data(body.utf8), includeBody: includeBody)
            return true
        case "redirect-loop":
            respond(client, status: "302 Found", type: "text/html; charset=utf-8", body: Data("<p>again</p>\n".utf8),
                    includeBody: includeBody, extraHeaders: "Location: /redirect-loop\r\n")
            return true
        case "count":
            let name = segments.dropFirst().joined(separator: "/")
            lock.lock()
            counted[name, default: 0] += 1
            lock.unlock()
            respond(client, status: "204 No Content", type: "text/plain; charset=utf-8", body: Data(), includeBody: false)
            return true
        case "attachment":
            let name = (segments.dropFirst().joined(separator: "/").removingPercentEncoding ?? "file")
                .replacingOccurrences(of: "\"", with: "")
            respond(client, status: "200 OK", type: "text/plain; charset=utf-8", body: Data("pwned\n".utf8),
                    includeBody: includeBody, extraHeaders: "Content-Disposition: attachment; filename=\"\(name)\"\r\n")
            return true
        default:
            return false
        }
    }

    /// Serves /needs-cookie and /needs-header: a page 1200 px (1300 px) tall when the request
    /// carries the cookie `session=s3cret` (the header `X-Reader-Token: s3cret`), else 300 px, as
    /// an article behind a login shows its teaser. /by-device: a site that picks its document by
    /// the user agent on the server, a mobile page 600 px tall for a phone's ("Mobile" in it, as
    /// iOS Safari's and Android's say) and a desktop page 2400 px tall otherwise. /by-language:
    /// 700 px for a request whose `Accept-Language` prefers French, else 500 px. False for any
    /// other target.
    private func serveRequestRoute(_ client: Int32, method: String, target: String, head: String) -> Bool {
        let path = String(target.prefix { $0 != "?" && $0 != "#" })
        let fields = head.split(separator: "\r\n").dropFirst().map { line -> (String, String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (line[..<colon].lowercased(), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        let granted: Bool, height: Int
        switch path {
        case "/needs-cookie":
            granted = fields.contains { $0.0 == "cookie" && $0.1.split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces) == "session=s3cret" } }
            height = 1200
        case "/needs-header":
            granted = fields.contains { $0.0 == "x-reader-token" && $0.1 == "s3cret" }
            height = 1300
        case "/by-device":
            let mobile = fields.contains { $0.0 == "user-agent" && $0.1.contains("Mobile") }
            let body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(mobile ? "mobile" : "desktop")</title></head>"
                + "<body style=\"margin:0\"><div style=\"height:\(mobile ? 600 : 2400)px\"></div></body></html>\n"
            respond(client, status: "200 OK", type: "text/html; charset=utf-8", body: Data(body.utf8), includeBody: method != "HEAD")
            return true
        case "/by-language":
            let french = fields.contains { $0.0 == "accept-language" && $0.1.lowercased().hasPrefix("fr") }
            let body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(french ? "fr" : "other")</title></head>"
                + "<body style=\"margin:0\"><div style=\"height:\(french ? 700 : 500)px\"></div></body></html>\n"
            respond(client, status: "200 OK", type: "text/html; charset=utf-8", body: Data(body.utf8), includeBody: method != "HEAD")
            return true
        default:
            return false
        }
        let body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>login</title></head>"
            + "<body style=\"margin:0\"><div style=\"height:\(granted ? height : 300)px\">\(granted ? "the article" : "a teaser")</div></body></html>\n"
        respond(client, status: "200 OK", type: "text/html; charset=utf-8", body: Data(body.utf8), includeBody: method != "HEAD")
        return true
    }

    static func reason(_ code: Int) -> String {
        switch code {
        case 200: return "OK"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 410: return "Gone"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status \(code)"
        }
    }

    /// Reads up to the blank line that ends the request head (bodies are not
    /// expected: only GET/HEAD are served).
    private func readRequestHead(_ client: Int32) -> String? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = [13, 10, 13, 10]  // \r\n\r\n
        reading: while received.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            let searchFrom = max(0, received.count - 3)
            received += buffer[0..<count]
            if received.count >= 4 {
                for start in searchFrom...(received.count - 4)
                where received[start..<(start + 4)].elementsEqual(end) {
                    break reading
                }
            }
        }
        guard !received.isEmpty else { return nil }
        return String(decoding: received, as: UTF8.self)
    }

    private func notFound(_ client: Int32, includeBody: Bool) {
        respond(client, status: "404 Not Found", type: "text/plain; charset=utf-8",
                body: Data("not found\n".utf8), includeBody: includeBody)
    }

    private func respond(_ client: Int32, status: String, type: String, body: Data, includeBody: Bool,
                         extraHeaders: String = "") {
        let head = "HTTP/1.1 \(status)\r\n"
            + extraHeaders
            + "Content-Type: \(type)\r\n"
            + "Content-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\n"
            + "Access-Control-Allow-Origin: *\r\n"
            + "Connection: close\r\n"
            + "\r\n"
        var response = Data(head.utf8)
        if includeBody { response.append(body) }
        response.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let sent = send(client, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return }  // EPIPE, ECONNRESET...: the client went away
                offset += sent
            }
        }
        _ = shutdown(client, Int32(SHUT_WR))
    }

    static func contentType(for pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "svg": return "image/svg+xml"
        case "ttf": return "font/ttf"
        case "otf": return "font/otf"
        case "woff": return "font/woff"
        case "woff2": return "font/woff2"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
