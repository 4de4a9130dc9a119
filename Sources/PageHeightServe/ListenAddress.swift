/// Where the server listens: an IP address and a port (`--listen HOST:PORT`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// An IPv4 or IPv6 address (without brackets).
    public var host: String
    public var port: Int

    public static let loopback = ListenAddress(host: "127.0.0.1", port: 8080)

    public init(host: String, port: Int) {
        (self.host, self.port) = (host, port)
    }

    /// Reads `HOST:PORT`, `[V6]:PORT` or `:PORT` (loopback); `localhost` is 127.0.0.1. Nil when
    /// the host is not an IP address or the port not 0-65535.
    public init?(parsing text: String) {
        var host: Substring, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            port = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host.contains(":") { return nil } // an IPv6 address takes brackets
        }
        if host.isEmpty || host == "localhost" { host = "127.0.0.1" }
        guard let number = Int(port), (0...65_535).contains(number), Self.isAddress(String(host)) else { return nil }
        self.init(host: String(host), port: number)
    }

    /// Whether only this machine can connect: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        host == "::1" || (host.hasPrefix("127.") && Self.isIPv4(host))
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The base URL clients use (`http://127.0.0.1:8080`).
    public var url: String { "http://\(description)" }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }
    }

    private static func isAddress(_ text: String) -> Bool {
        if isIPv4(text) { return true }
        return text.contains(":") && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
