import CPageHeightShim
import CWebKit
import Foundation

/// `--offline=block`: a WebKit content filter that stops, before it is sent, every request that
/// is not for a local file, loopback, or an inline `data:`/`blob:`/`about:` URL.
///
/// The block happens in the web process at the moment the page asks, so the page's scripts see
/// the same failures at the same point of their work every run. Compiled once per process into
/// the context directory (removed at exit).
@GLibActor
enum OfflineBlocker {
    private static var compiled: OpaquePointer?
    private static var compilations = 0

    /// The filter, compiled on first use.
    static func filter() async throws -> OpaquePointer {
        if let compiled { return compiled }
        compilations += 1
        let identifier = "offline-block-\(compilations)" // another page's compilation must not write over this one
        let filter = try await ContentFilterStore.compile(rules, identifier: identifier, purpose: "the blocker of --offline=block")
        // Another page may have asked while this one was compiled, and compiled its own: keep one.
        if let compiled {
            webkit_user_content_filter_unref(filter)
            return compiled
        }
        compiled = filter
        return filter
    }

    /// Block everything, then let the allowed prefixes through. Content-blocker regular
    /// expressions have no alternation: one rule per prefix.
    ///
    /// A local file is `file:///…` or `file://localhost/…`. A saved page links much of what it
    /// loads as `//host/path`, which from a file page is `file://host/path`: another machine's
    /// file, which cannot load here. Let through, it fails a moment later, at a different point
    /// of the page's work each run, and WebKit draws a broken image differently by when it
    /// failed (readability/heise gave 6785, 7136 or 9574 px); blocked, it fails the same way
    /// every run.
    nonisolated static let rules: String = {
        let loopbackHosts = [#"127\.[0-9]+\.[0-9]+\.[0-9]+"#, "localhost", #"\[::1\]"#]
        var allowed = ["^file:///", "^file://localhost/", "^data:", "^blob:", "^about:"]
        for host in loopbackHosts {
            allowed.append("^https?://\(host)[:/]")
            allowed.append("^wss?://\(host)[:/]")
        }
        var rules = [#"{"trigger":{"url-filter":".*"},"action":{"type":"block"}}"#]
        for prefix in allowed {
            let json = prefix.replacingOccurrences(of: "\\", with: "\\\\")
            rules.append(#"{"trigger":{"url-filter":""# + json + #""},"action":{"type":"ignore-previous-rules"}}"#)
        }
        return "[" + rules.joined(separator: ",") + "]"
    }()
}
