import Foundation

/// What a page may load besides itself, as the rules of two WebKit content filters (`Lists`)
/// that every view carries for its page (`PageView.adopt`), whatever the network mode:
///
/// - local files only from the page's own directory and below (for HTML given with a base URL,
///   a template's or standard input's: the base's directory, and the directories it names as
///   also readable: a template's fragment's), and not through a symbolic link that leads out
///   of it (`LinksOut`): those links' paths are blocked, and with them every spelling that could
///   reach them by another text (a percent-escaped ASCII character, an empty path segment);
///   only the files directly in a directory too large to walk;
/// - nothing on loopback (`localhost`, `127.0.0.0/8`, `[::1]`) unless the page itself is served
///   from loopback, nothing on private addresses (`10/8`, `172.16/12`, `192.168/16`,
///   `169.254/16`, `[fc00::/7]`, `[fe80::/10]`, `0.0.0.0`) or on this machine's own addresses
///   unless the page is served from one;
/// - a host the user allows (`--allow-host HOST[:PORT]`) in any case, over the network (its name
///   opens no `file://` URL).
///
/// Filters match URLs as WebKit canonicalises them (every IPv4 spelling becomes dotted decimal,
/// hosts lower case), with or without user information. They decide the requests that go to
/// literal loopback addresses, which reach the network directly; every other request of an
/// online page passes the connection gate, which decides on the address it resolves to
/// (`DestinationRule`), and offline ones go nowhere. Content-blocker expressions have no
/// alternation: one rule per pattern. Pure.
package enum SubresourceBoundary {
    /// `localhost` with its subdomains and a trailing dot: GLib resolves them all to loopback, and
    /// the proxy settings send them there directly.
    static let loopback = [#"localhost\.?"#, #"[-_a-z0-9.]*\.localhost\.?"#, #"127\.[0-9]+\.[0-9]+\.[0-9]+"#, #"\[::1\]"#]
    static let privateNetworks = [#"10\.[0-9]+\.[0-9]+\.[0-9]+"#, #"192\.168\.[0-9]+\.[0-9]+"#,
                                  #"172\.1[6-9]\.[0-9]+\.[0-9]+"#, #"172\.2[0-9]\.[0-9]+\.[0-9]+"#,
                                  #"172\.3[01]\.[0-9]+\.[0-9]+"#, #"169\.254\.[0-9]+\.[0-9]+"#,
                                  #"0\.0\.0\.0"#, #"\[f[cd][0-9a-f]*:"#, #"\[fe[89ab][0-9a-f]*:"#]

    /// The two content filters of a page: each blocks what its own rules block, and a request
    /// either blocks does not leave. Kept apart because they change at different rates: the
    /// network list is the same for every page of a batch of files (compiled once), the file list
    /// is a page directory's (a few prefixes, cheap to compile for every directory).
    package struct Lists: Equatable, Sendable {
        /// Local files: `file:///` and `file://localhost/` blocked, but for the readable
        /// directories, and there the paths of links that lead out of them.
        package var files: String
        /// Loopback, private networks and this machine's addresses blocked, unless the page is
        /// served from there, but for the hosts the user allows.
        package var network: String
    }

    /// The filters' rules (content-blocker JSON) for a page loaded from `source`.
    /// - Parameter localAddresses: this machine's own addresses (IPv6 without brackets).
    /// - Parameter links: what leaves a readable directory (a path), `LinksOut.walk` by default.
    package static func rules(for source: PageSource, allowedHosts: [String], localAddresses: [String] = [],
                              links: (String) -> LinksOut = { LinksOut.walk($0) }) -> Lists {
        Lists(files: fileRules(for: source, links: links),
              network: networkRules(for: source, allowedHosts: allowedHosts, localAddresses: localAddresses))
    }

    /// Local files. A saved page's `//host/` links become `file://host/…` from a file page:
    /// another machine's file, which never loads here; they fail as they always did (stopped at
    /// once, they made some pages lay out differently from run to run in `--offline=refuse`).
    /// No allowed host reopens `file://localhost/`: the list has no exception for hosts.
    private static func fileRules(for source: PageSource, links: (String) -> LinksOut) -> String {
        let blocks = [#"^file:///"#, #"^file://localhost/"#]
        var readable: [String] = []
        if let directory = fileDirectory(source) { readable.append(directory) }
        if case .html(_, _, let alsoReadable, _) = source {
            readable += alsoReadable.filter { $0.hasPrefix("file:///") && $0.hasSuffix("/") }
        }
        let exceptions = readable.map { "^" + escape($0) }
        var reblocks: [String] = []
        for directory in readable {
            guard let path = URL(string: directory)?.path else { continue }
            let out = links(path)
            let prefix = "^" + escape(directory)
            // GIO's path ends at the first NUL it decodes: `evil.js%00.png` opens `evil.js`.
            reblocks.append(prefix + "[^?#]*%00")
            if !out.complete { reblocks.append(prefix + "[^?#]*/") }
            guard !out.blockedPaths.isEmpty else { continue }
            // `a//out` is `a/out` to the file system, and `//out` is `out`.
            reblocks.append(prefix + "[^?#]*//")
            for blocked in out.blockedPaths {
                let spelled = prefix + anySpelling(of: blocked)
                reblocks += [spelled + "$", spelled + "[/?#%]"]
            }
        }
        return list(blocks: blocks, exceptions: exceptions, reblocks: reblocks, exceptionsCaseSensitive: true)
    }

    /// An expression for every URL text the network process decodes to the path `bytes` (relative
    /// to a readable directory): GIO opens the bytes it percent-decodes from the URL, so each
    /// printable ASCII byte may be written as itself or escaped in either case, and every other
    /// byte only escaped (WebKit escapes what the page writes raw). No alternation in content
    /// filters: a byte is `[%c]H?L?`, which also matches a few other names, blocked with it. A
    /// separator may be repeated or escaped. Matched case-insensitively, as block rules are.
    static func anySpelling(of bytes: [UInt8]) -> String {
        var expression = ""
        for byte in bytes {
            let hex = String(byte, radix: 16, uppercase: true)
            let (high, low) = byte < 0x10 ? ("0", hex) : (String(hex.first!), String(hex.last!))
            switch byte {
            case 0x2f:
                expression += "[%/]+2?f?"
            case 0x21...0x7e:
                let character = Character(Unicode.Scalar(byte))
                let literal = character.isLetter || character.isNumber || character == "%" ? String(character) : "\\" + String(character)
                expression += "[%" + literal + "]" + high + "?" + low + "?"
            default:
                expression += "%" + high + low
            }
        }
        return expression
    }

    private static func networkRules(for source: PageSource, allowedHosts: [String], localAddresses: [String]) -> String {
        var blocks: [String] = []
        let host = pageHost(source)
        let local = localAddresses.map { $0.contains(":") ? "[\($0.lowercased())]" : $0 }
            .filter { !matchesLoopback($0) && !matchesPrivate($0) }
        if !(host.map(matchesLoopback) ?? false) { blocks += loopback.flatMap(hostPrefixes) }
        if !(host.map { matchesPrivate($0) || local.contains($0) } ?? false) {
            blocks += privateNetworks.flatMap(hostPrefixes)
            blocks += local.flatMap { hostPrefixes(escape($0)) }
        }
        var exceptions: [String] = []
        for allowed in allowedHosts {
            let (name, port) = split(allowed)
            exceptions.append("^[a-z]+://" + escape(name) + (port.map { ":" + $0 } ?? "(:[0-9]+)?") + "[/?#]")
            exceptions.append("^[a-z]+://" + escape(name) + (port.map { ":" + $0 } ?? "(:[0-9]+)?") + "$")
        }
        return list(blocks: blocks, exceptions: exceptions, reblocks: [])
    }

    /// - Parameter exceptionsCaseSensitive: whether an exception matches only its own spelling
    ///   (a readable directory's: `/Site/` is not `/site/` on this file system).
    private static func list(blocks: [String], exceptions: [String], reblocks: [String],
                             exceptionsCaseSensitive: Bool = false) -> String {
        let rules = blocks.map { rule($0, "block") }
            + exceptions.map { rule($0, "ignore-previous-rules", caseSensitive: exceptionsCaseSensitive) }
            + reblocks.map { rule($0, "block") }
        return "[" + rules.joined(separator: ",") + "]"
    }

    /// Whether `text` is a host name or address with an optional port, as `--allow-host` takes.
    static func isHost(_ text: String) -> Bool {
        let (name, port) = split(text)
        guard !name.isEmpty, port.map({ UInt16($0) != nil }) ?? true else { return false }
        if name.hasPrefix("[") { return name.hasSuffix("]") && name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" } }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// The expressions for URLs on `host`: without and with user information (`http://x@host/`,
    /// which WebKit keeps in the URL it matches).
    private static func hostPrefixes(_ host: String) -> [String] {
        ["^[a-z]+://" + host + "[:/]", "^[a-z]+://[^/?#]*@" + host + "[:/]"]
    }

    private static func rule(_ filter: String, _ action: String, caseSensitive: Bool = false) -> String {
        let json = filter.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"trigger":{"url-filter":""# + json + #"""# + (caseSensitive ? #","url-filter-is-case-sensitive":true"# : "")
            + #"},"action":{"type":""# + action + #""}}"#
    }

    /// `host[:port]` and `[v6]:port` into the host and the port.
    private static func split(_ text: String) -> (String, String?) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let name = String(text[...close])
            let rest = text[text.index(after: close)...]
            return (name, rest.hasPrefix(":") ? String(rest.dropFirst()) : nil)
        }
        guard let colon = text.lastIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The directory (as a file URL ending in `/`) a file page may load from.
    private static func fileDirectory(_ source: PageSource) -> String? {
        switch source {
        case .file(let path):
            return URL(fileURLWithPath: (path as NSString).deletingLastPathComponent, isDirectory: true).absoluteString
        case .html(_, let base, _, _):
            guard let url = URL(string: base), url.isFileURL else { return nil }
            return URL(fileURLWithPath: base.hasSuffix("/") ? url.path : url.deletingLastPathComponent().path,
                       isDirectory: true).absoluteString
        case .url(let text):
            guard let url = URL(string: text), url.isFileURL else { return nil }
            return url.deletingLastPathComponent().absoluteString
        }
    }

    /// The host the page is served from, lower-cased, with brackets for IPv6.
    private static func pageHost(_ source: PageSource) -> String? {
        guard case .url(let text) = source, let components = URLComponents(string: text), let host = components.host,
              ["http", "https", "ws", "wss"].contains(components.scheme?.lowercased() ?? "") else { return nil }
        let lower = host.lowercased()
        return lower.contains(":") && !lower.hasPrefix("[") ? "[\(lower)]" : lower
    }

    private static func matchesLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host == "[::1]" || host.hasPrefix("127.")
    }

    /// Whether `host` is a dotted IPv4 address in one of `privateNetworks`' IPv4 ranges, matched
    /// by hand: compiling those expressions for every page was a cost of its own (BENCHMARKS.md).
    private static func matchesPrivate(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { "0123456789".contains($0) } }) else { return false }
        switch (parts[0], parts[1]) {
        case ("10", _), ("192", "168"), ("169", "254"): return true
        case ("172", let second): return second.count == 2 && (16...31).contains(Int(second) ?? 0)
        default: return parts.allSatisfy { $0 == "0" }
        }
    }

    /// A literal for a content-blocker expression.
    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
