import Foundation

/// The page's requests still in flight when its measurement ended on a timeout, as the engine
/// counted them (any frame, any kind), and whether any request to an http(s) host had answered:
/// what tells "the page waits for its network" from "the page is slow". Pure.
public struct PendingRequests: Codable, Sendable, Equatable {
    /// The URLs in flight (the first `kept`, sorted).
    public var urls: [String]
    /// How many requests were in flight (`urls` may list fewer).
    public var total: Int
    /// How many http(s) requests of the page had got a response, of any status.
    public var answered: Int
    /// The hosts of the requests the engine listed (`file` for local files, the scheme for others
    /// without a host), most requests first.
    public var hosts: [HostCount]
    /// Every request in flight goes to the network (what `--offline` stops: http(s) and ws(s) to
    /// a host that is not this machine's loopback), and there is at least one.
    public var allToNetwork: Bool

    /// How many of the requests in flight go to one host.
    public struct HostCount: Codable, Sendable, Equatable {
        public var host: String
        public var count: Int
    }

    /// How many URLs a report keeps.
    public static let kept = 20

    /// - Parameters:
    ///   - urls: the URLs in flight the engine listed (perhaps fewer than `total`).
    public init(urls: [String], total: Int, answered: Int) {
        self.urls = Array(urls.sorted().prefix(Self.kept))
        self.total = max(total, urls.count)
        self.answered = answered
        var counts: [String: Int] = [:]
        for url in urls { counts[Self.host(of: url), default: 0] += 1 }
        hosts = counts.map { HostCount(host: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.host < $1.host }
        allToNetwork = !urls.isEmpty && urls.count == self.total && urls.allSatisfy(Self.goesToNetwork)
    }

    public var isEmpty: Bool { total == 0 }

    /// Whether `offline` would be worth suggesting: the page waits only for the network, and no
    /// request to it has answered (as on a machine without one); never for a page that itself
    /// comes from the network (`page`, its URL), which `--offline` could not load.
    public func suggestsOffline(offline: Bool, page: String? = nil) -> Bool {
        !offline && allToNetwork && answered == 0 && !(page.map(Self.goesToNetwork) ?? false)
    }

    /// A note for the message, e.g. `3 requests still in flight: fonts.example.com (2),
    /// cdn.example.net; none to the network had answered: is there a network? (--offline measures
    /// without it)`; nil when none was.
    public func note(offline: Bool, page: String? = nil, shownHosts: Int = 3) -> String? {
        guard total > 0 else { return nil }
        let listed = hosts
        var names = listed.prefix(shownHosts).map { $0.count > 1 ? "\($0.host) (\($0.count))" : $0.host }
        if listed.count > shownHosts { names.append("\(listed.count - shownHosts) more hosts") }
        var text = "\(total) request\(total == 1 ? "" : "s") still in flight"
        if !names.isEmpty { text += ": " + names.joined(separator: ", ") }
        if suggestsOffline(offline: offline, page: page) {
            text += "; every one is to the network and none of the page's requests to it had answered: "
                + "without a network, measure with --offline"
        }
        return text
    }

    static func host(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url.prefix { $0 != ":" }.lowercased() }
        if let host = components.host, !host.isEmpty { return host.lowercased() }
        return components.scheme?.lowercased() ?? "?"
    }

    static func goesToNetwork(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              ["http", "https", "ws", "wss"].contains(scheme), let host = components.host?.lowercased(), !host.isEmpty else {
            return false
        }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "localhost." { return false }
        if let address = NetworkAddress(host) { return address.scope != .loopback && address.scope != .unspecified }
        return true
    }
}

extension PageReport {
    /// The page timed out waiting only for requests to the network, none of which had answered:
    /// `--offline` is worth suggesting.
    public var waitedForNetwork: Bool {
        status != .ok && requestsInFlight?.suggestsOffline(offline: options.offline, page: url) == true
    }
}
