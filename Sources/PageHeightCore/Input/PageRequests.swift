import Foundation

/// What the page's own requests carry besides the engine's defaults: header fields sent with the
/// main document's request (`--request-header`), and cookies (`--cookie`, `--cookies FILE`), for
/// articles behind a login.
///
/// These are secrets: a report, a log or an HTML report names them, never their values. Encoded
/// (in a report's options), a header is its name and a cookie its name and domain; decoded, the
/// values are empty. Pure.
public struct PageRequests: Codable, Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) { (self.name, self.value) = (name, value) }
    }

    public struct Cookie: Sendable, Equatable {
        public var name: String
        public var value: String
        /// The host it is sent to; nil: the page's own host (`--cookie`). A leading dot, or
        /// `includeSubdomains`, sends it to subdomains too.
        public var domain: String?
        public var includeSubdomains = false
        public var path = "/"
        public var secure = false
        public var httpOnly = false
        /// Seconds since 1970; nil: a session cookie.
        public var expires: Double?

        public init(name: String, value: String, domain: String? = nil, includeSubdomains: Bool = false, path: String = "/",
                    secure: Bool = false, httpOnly: Bool = false, expires: Double? = nil) {
            (self.name, self.value, self.domain, self.includeSubdomains) = (name, value, domain, includeSubdomains)
            (self.path, self.secure, self.httpOnly, self.expires) = (path, secure, httpOnly, expires)
        }
    }

    public var headers: [Header] = []
    public var cookies: [Cookie] = []

    public init(headers: [Header] = [], cookies: [Cookie] = []) {
        (self.headers, self.cookies) = (headers, cookies)
    }

    public var isEmpty: Bool { headers.isEmpty && cookies.isEmpty }

    func adding(header: Header) -> PageRequests {
        var copy = self
        copy.headers.append(header)
        return copy
    }

    func adding(cookies more: [Cookie]) -> PageRequests {
        var copy = self
        copy.cookies += more
        return copy
    }

    // MARK: - Which cookies a page gets

    /// The cookies that go with a page on `host` (nil for a page without one: a file, data:):
    /// a `--cookie` (no domain), and each cookie whose domain matches the host as a browser
    /// matches it (RFC 6265, 5.1.3: the host itself, or, for a cookie that covers subdomains, a
    /// host name under its domain). Only these go into the page's view, so a page cannot send
    /// the user's cookies for another site with its own requests there (a credentialed fetch
    /// or an image from site A on a page of site B). The view's store is emptied after each page.
    public func cookies(forHost host: String?) -> [Cookie] {
        guard let host = host?.lowercased(), !host.isEmpty else { return [] }
        return cookies.filter { cookie in
            guard let given = cookie.domain?.lowercased() else { return true }
            let domain = given.hasPrefix(".") ? String(given.dropFirst()) : given
            if host == domain { return true }
            let coversSubdomains = cookie.includeSubdomains || given.hasPrefix(".")
            return coversSubdomains && !domain.isEmpty && host.hasSuffix("." + domain) && !Self.isAddress(host)
        }
    }

    /// Whether `host` is an IPv4 or IPv6 address (no cookie domain covers one by suffix).
    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.hasPrefix("[") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    // MARK: - Parsing

    /// The most cookies a cookies file may hold: what a browser keeps in all (RFC 6265 asks a
    /// browser for at least 3000; Firefox keeps 3000).
    public static let cookiesFileLimit = 3000
    /// The most bytes a cookies file may have: 3000 cookies of the largest size a browser keeps
    /// (4 KiB each), and room for comments.
    public static let cookiesFileByteLimit = 16 << 20

    /// Header fields a page may not set: the engine's own, or ones that change what a request is.
    static let refusedHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection", "upgrade",
                                              "cookie", "te", "trailer", "keep-alive", "proxy-authorization"]

    /// `Name: value`, as curl's `-H` takes it.
    public static func header(_ text: String) throws(UsageError) -> Header {
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError("'--request-header' takes 'Name: value', e.g. 'Authorization: Bearer abc'; got '\(redacted(text))'")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && token.contains($0) }) else {
            throw UsageError("'--request-header': '\(name.prefix(80))' is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
        }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
            throw UsageError("'--request-header': the value of \(name) has a control character")
        }
        guard !refusedHeaders.contains(name.lowercased()) else {
            throw UsageError("'--request-header' cannot set \(name)" + (name.lowercased() == "cookie" ? ": use --cookie" : ""))
        }
        return Header(name: name, value: value)
    }

    /// `NAME=VALUE`, sent to the page's own host.
    public static func cookie(_ text: String) throws(UsageError) -> Cookie {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("'--cookie' takes NAME=VALUE, e.g. session=abc123; got '\(redacted(text))'")
        }
        let name = String(text[..<equals]), value = String(text[text.index(after: equals)...])
        try checkCookie(name: name, value: value, option: "--cookie")
        return Cookie(name: name, value: value)
    }

    /// The cookies of a Netscape cookies.txt file (what curl's `-c` and browsers' exporters
    /// write): one a line, seven fields separated by tabs (domain, include subdomains, path,
    /// secure, expiry, name, value); `#` lines are comments, but `#HttpOnly_` starts an HttpOnly
    /// cookie's domain. Expired cookies are left out (`now`, seconds since 1970).
    public static func cookiesFile(_ text: String, name file: String, now: Double = Date().timeIntervalSince1970) throws(UsageError) -> [Cookie] {
        var cookies: [Cookie] = []
        var read = 0
        // "\r\n" is one Character: split on both ends of line (exporters on Windows write CRLF).
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line.removeFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty {
                continue
            }
            guard read < cookiesFileLimit else {
                throw UsageError("'--cookies' \(file) holds more than \(cookiesFileLimit) cookies (line \(number + 1) is the next), "
                    + "the most pageheight takes: keep the sites you measure")
            }
            read += 1
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 7 else {
                throw UsageError("'--cookies' \(file), line \(number + 1): \(fields.count) tab-separated fields, "
                    + "a Netscape cookies.txt line has 7 (domain, subdomains, path, secure, expiry, name, value)")
            }
            let flag = { (value: String, what: String) throws(UsageError) -> Bool in
                switch value.uppercased() {
                case "TRUE": return true
                case "FALSE": return false
                default: throw UsageError("'--cookies' \(file), line \(number + 1): \(what) is '\(value.prefix(20))', not TRUE or FALSE")
                }
            }
            guard let expiry = Double(fields[4]) else {
                throw UsageError("'--cookies' \(file), line \(number + 1): the expiry '\(fields[4].prefix(20))' is not a number")
            }
            let domain = fields[0].lowercased()
            guard !domain.isEmpty, domain.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-".contains($0)) }) else {
                throw UsageError("'--cookies' \(file), line \(number + 1): '\(domain.prefix(80))' is not a domain")
            }
            try checkCookie(name: fields[5], value: fields[6], option: "--cookies \(file), line \(number + 1)")
            if expiry > 0 && expiry < now { continue } // expired: a browser would not send it
            cookies.append(Cookie(name: fields[5], value: fields[6], domain: domain,
                                  includeSubdomains: try flag(fields[1], "the subdomains flag"),
                                  path: fields[2].isEmpty ? "/" : fields[2], secure: try flag(fields[3], "the secure flag"),
                                  httpOnly: httpOnly, expires: expiry > 0 ? expiry : nil))
        }
        return cookies
    }

    private static func checkCookie(name: String, value: String, option: String) throws(UsageError) {
        let separators = CharacterSet(charactersIn: "()<>@,;:\\\"/[]?={} \t")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && !separators.contains($0) }) else {
            throw UsageError("'\(option)': '\(name.prefix(80))' is not a cookie name")
        }
        guard value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != ";" }) else {
            throw UsageError("'\(option)': the value of cookie \(name) has a control character or ';'")
        }
    }

    /// A value as an error message may show it: its first characters only.
    static func redacted(_ text: String) -> String {
        let name = text.prefix { $0 != ":" && $0 != "=" }
        return name.count < text.count ? name + String(text[name.endIndex]) + "…" : String(text.prefix(40))
    }

    // MARK: - Codable, without the values

    private struct Named: Codable {
        var name: String
        var domain: String?
    }

    private enum CodingKeys: String, CodingKey { case headers, cookies }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !headers.isEmpty { try container.encode(headers.map(\.name), forKey: .headers) }
        if !cookies.isEmpty { try container.encode(cookies.map { Named(name: $0.name, domain: $0.domain) }, forKey: .cookies) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        headers = (try container.decodeIfPresent([String].self, forKey: .headers) ?? []).map { Header(name: $0, value: "") }
        cookies = (try container.decodeIfPresent([Named].self, forKey: .cookies) ?? []).map {
            Cookie(name: $0.name, value: "", domain: $0.domain)
        }
    }
}
