import Foundation

/// A subresource the page asked for that did not load: a missing file, an HTTP error, a
/// request the subresource boundary or `--offline` stopped. The page's own load failing is
/// its `load-error`, not one of these.
public struct FailedResource: Codable, Sendable, Equatable {
    public var url: String
    /// Why, e.g. `file not found`, `HTTP 404`, or the engine's message with its domain and code.
    public var reason: String

    /// Failed resources a report lists at most (`PageReport.failedResources`); the total counts them all.
    public static let kept = 50

    public init(url: String, reason: String) {
        (self.url, self.reason) = (url, reason)
    }

    /// The engine's failed requests with the resources the page saw fail that the engine never
    /// requested (the content filter stopped them first: the subresource boundary, `--offline=block`).
    /// - Parameter offline: the run's network mode: a request `--offline=block` stopped is said
    ///   to be so, and one refused by `--offline=refuse`'s proxy too (the engine calls it a
    ///   proxy that cannot be reached).
    public static func merging(_ engine: (listed: [FailedResource], total: Int), pageSaw urls: [String],
                               offline: OfflineMode? = nil, kept: Int = FailedResource.kept) -> (listed: [FailedResource], total: Int) {
        var listed = engine.listed.map { failed in
            guard offline == .refuse, failed.reason.contains("Could not connect to proxy server") else { return failed }
            return FailedResource(url: failed.url, reason: "refused by --offline (no network)")
        }
        var total = engine.total
        for url in urls where !listed.contains(where: { $0.url == url }) && engine.total <= engine.listed.count {
            total += 1
            if listed.count < kept { listed.append(FailedResource(url: url, reason: blockedReason(url, offline: offline))) }
        }
        // In URL order: the order failures arrive in is the network's, not the page's.
        return (listed.sorted { $0.url < $1.url }, total)
    }

    /// What the page used it as, guessed from the name's extension: `stylesheet`, `script`,
    /// `font`, `image`, else `resource`.
    public var kind: String {
        let path = URLComponents(string: url)?.path ?? url
        switch (path as NSString).pathExtension.lowercased() {
        case "css": return "stylesheet"
        case "js", "mjs": return "script"
        case "woff", "woff2", "ttf", "otf", "eot": return "font"
        case "png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp", "ico": return "image"
        default: return "resource"
        }
    }

    /// The name to show: a file's name, or the URL (shortened).
    public var shortName: String {
        if let components = URLComponents(string: url), components.scheme == "file" {
            return (components.path as NSString).lastPathComponent
        }
        return url.count > 80 ? String(url.prefix(77)) + "..." : url
    }

    /// `2 resources failed to load: stylesheet site.css (file not found), image a.png (HTTP 404)`,
    /// naming at most `shown`; nil when none failed.
    /// Whether the run's offline setting stopped it (`merging`): expected, not a fault of the page.
    public var stoppedByOffline: Bool { reason.hasSuffix(": --offline") || reason.hasPrefix("refused by --offline") }

    /// Why the content filter stopped `url` before it was requested: in block mode every network
    /// request is the offline setting's; everything else is outside the page's boundary (a file
    /// outside its directory, loopback, a private address: `SubresourceBoundary`).
    static func blockedReason(_ url: String, offline: OfflineMode?) -> String {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        switch scheme {
        case "http", "https", "ws", "wss":
            return offline == .block ? "blocked before it was requested: --offline"
                : "blocked before it was requested: the subresource boundary (no loopback or private addresses) or the engine's own rules"
        case "file":
            return "blocked before it was requested: outside the page's subresource boundary (its own directory and below)"
        default:
            return "failed without a request (\(scheme): is not fetched from the network)" // an invalid data: URL, say
        }
    }

    public static func warning(_ failed: [FailedResource], total: Int, shown: Int = 3) -> String? {
        guard total > 0 else { return nil }
        let kinds = Set(failed.map(\.kind))
        let noun = kinds.count == 1 ? kinds.first! : "resource"
        var names = failed.prefix(shown).map { (kinds.count == 1 ? "" : $0.kind + " ") + "\($0.shortName) (\($0.reason))" }
        if total > names.count { names.append("and \(total - names.count) more") }
        return "\(total) \(noun)\(total == 1 ? "" : "s") failed to load: " + names.joined(separator: ", ")
    }
}
