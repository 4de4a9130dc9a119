import Foundation
@testable import PageHeightCore
import Testing

/// Where addresses lead and which connections the gate lets through (no WebKit, no network).
@Suite struct NetworkBoundaryTests {
    /// Every spelling of a loopback, private or unspecified address is what it leads to.
    @Test(arguments: [
        ("127.0.0.1", NetworkAddress.Scope.loopback), ("127.255.0.9", .loopback), ("[::1]", .loopback),
        ("::ffff:127.0.0.1", .loopback), ("[::ffff:7f00:1]", .loopback), ("0:0:0:0:0:ffff:127.0.0.1", .loopback),
        ("::127.0.0.1", .loopback), ("64:ff9b::7f00:1", .loopback), ("2002:7f00:1::", .loopback),
        ("127.0.0.1.", .loopback), ("fe80::1%eth0", .linkLocal), ("169.254.169.254", .linkLocal),
        ("::ffff:169.254.169.254", .linkLocal), ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork),
        ("172.31.255.255", .privateNetwork), ("192.168.1.1", .privateNetwork), ("100.64.0.1", .privateNetwork),
        ("::ffff:10.0.0.1", .privateNetwork), ("fd00::1", .privateNetwork), ("fc12::1", .privateNetwork),
        ("0.0.0.0", .unspecified), ("::", .unspecified), ("0.1.2.3", .unspecified), ("::ffff:0.0.0.0", .unspecified),
        ("224.0.0.1", .multicast), ("ff02::1", .multicast), ("255.255.255.255", .privateNetwork),
        ("93.184.215.14", .publicNetwork), ("172.32.0.1", .publicNetwork), ("2606:4700::1111", .publicNetwork),
        ("::ffff:93.184.215.14", .publicNetwork), ("8.8.8.8", .publicNetwork),
    ])
    func anAddressLeadsWhereItsBytesDo(text: String, scope: NetworkAddress.Scope) throws {
        let address = try #require(NetworkAddress(text), "\(text) is an address")
        #expect(address.scope == scope, "\(text): \(address.scope)")
    }

    @Test func namesAndNonsenseAreNotAddresses() {
        for text in ["localhost", "example.com", "127.1.2", "", "[", "1.2.3.4.5", "::g"] {
            #expect(NetworkAddress(text) == nil, "\(text)")
        }
        #expect(NetworkAddress("::ffff:127.0.0.1")?.canonical == NetworkAddress("127.0.0.1"))
        #expect(NetworkAddress("::ffff:7f00:1")?.description == "[0:0:0:0:0:ffff:7f00:1]")
    }

    /// Public addresses pass; a name or literal that leads anywhere else does not, unless the
    /// host as written is allowed (with or without its port); a name with one bad address among
    /// good ones is refused whole; this machine's own public address is refused.
    @Test func theGateLetsPagesReachOnlyThePublicNetwork() throws {
        let own = try #require(NetworkAddress("203.0.113.7")), public1 = try #require(NetworkAddress("93.184.215.14"))
        let loopback = try #require(NetworkAddress("127.0.0.1")), mapped = try #require(NetworkAddress("::ffff:127.0.0.1"))
        var rule = DestinationRule(ownAddresses: [own])
        #expect(rule.verdict(host: "example.com", port: 443, addresses: [public1]) == .connect([public1]))
        for (host, address) in [("vm", loopback), ("LOCALHOST.", loopback), ("[::ffff:7f00:1]", mapped), ("own.example", own)] {
            guard case .refuse(let reason) = rule.verdict(host: host, port: 80, addresses: [address]) else {
                Issue.record("\(host) -> \(address) should be refused")
                continue
            }
            #expect(reason.contains(DestinationRule.normalized(host)), "\(reason)")
        }
        if case .connect = rule.verdict(host: "rebind.example", port: 80, addresses: [public1, loopback]) {
            Issue.record("a name with a loopback address among public ones must be refused")
        }
        #expect(rule.verdict(host: "nowhere.example", port: 80, addresses: []) != .connect([]))
        rule.allow("intranet.example:8080")
        rule.allow("[::ffff:7f00:1]")
        rule.allow("Router.Example")
        #expect(rule.verdict(host: "intranet.example", port: 8080, addresses: [loopback]) == .connect([loopback]))
        #expect(rule.verdict(host: "intranet.example", port: 8081, addresses: [loopback]) != .connect([loopback]))
        #expect(rule.verdict(host: "[::ffff:7f00:1]", port: 1, addresses: [mapped]) == .connect([mapped]))
        #expect(rule.verdict(host: "router.example.", port: 1, addresses: [loopback]) == .connect([loopback]))
    }

    /// A page's own host is allowed at the addresses it had when the page was loaded, not at any
    /// address: a name that resolves to a private or loopback address afterwards (DNS rebinding)
    /// is refused, public addresses still pass, and a page served from a private address reaches it.
    @Test func aPagesHostIsPinnedToTheAddressesItHadWhenItsPageWasLoaded() throws {
        let public1 = try #require(NetworkAddress("93.184.215.14")), loopback = try #require(NetworkAddress("127.0.0.1"))
        let intranet = try #require(NetworkAddress("10.1.2.3")), other = try #require(NetworkAddress("10.9.9.9"))
        var rule = DestinationRule()
        rule.pin("Evil.Example", to: [public1])
        #expect(rule.verdict(host: "evil.example", port: 80, addresses: [public1]) == .connect([public1]))
        guard case .refuse(let reason) = rule.verdict(host: "evil.example", port: 80, addresses: [loopback]) else {
            Issue.record("a page's host that now resolves to loopback must be refused")
            return
        }
        #expect(reason.contains("not the address its page was loaded from"), "\(reason)")
        rule.pin("wiki.internal", to: [intranet])
        #expect(rule.verdict(host: "wiki.internal", port: 8080, addresses: [intranet]) == .connect([intranet]))
        #expect(rule.verdict(host: "wiki.internal", port: 8080, addresses: [other]) != .connect([other]))
        #expect(rule.verdict(host: "wiki.internal.", port: 1, addresses: [intranet, public1]) == .connect([intranet, public1]))
    }

    /// The content filter's rules catch loopback and private URLs with user information, and
    /// `localhost` with a trailing dot or as a parent domain, as WebKit canonicalises them.
    @Test func theFilterCatchesUserInformationAndEveryLocalhost() throws {
        let rules = SubresourceBoundary.rules(for: .file("/site/page.html"), allowedHosts: []).network
        let data = try #require(rules.data(using: .utf8))
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: [String: String]]])
        let blocks = list.filter { $0["action"]?["type"] == "block" }.compactMap { $0["trigger"]?["url-filter"] }
        func blocked(_ url: String) -> Bool {
            blocks.contains { url.range(of: $0, options: .regularExpression) != nil }
        }
        for url in ["http://x@127.0.0.1:80/", "http://x:y@localhost/", "http://127.0.0.1:8/", "http://localhost./a",
                    "http://a.localhost:9/", "ws://b.c.localhost/", "http://user@10.0.0.1/", "http://[::1]:8/",
                    "http://u@[::1]/", "https://p@192.168.0.1/"] {
            #expect(blocked(url), "\(url) should be blocked")
        }
        for url in ["https://example.com/", "http://localhost.example.com/", "http://x@example.com/a@127.0.0.1/"] {
            #expect(!blocked(url), "\(url) should not be blocked")
        }
    }

    /// Issue 47.5: the symbolic links under a page's directory that leave it, or loop, or alias
    /// a path that does, are found; links that stay inside are not.
    @Test func linksThatLeaveThePagesDirectoryAreFound() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let page = base + "/page", manager = FileManager.default
        for directory in [page + "/sub", page + "/ok", base + "/outside"] {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        manager.createFile(atPath: page + "/ok/x.css", contents: Data())
        for (link, target) in [("out", "../outside"), ("root", "/"), ("loop", "."), ("sub/up", "../../outside"),
                               ("same", "sub"), ("okdir", "ok"), ("fine.css", "ok/x.css"), ("dangling", "nowhere"),
                               ("ok/back", "..")] {
            try manager.createSymbolicLink(atPath: page + "/" + link, withDestinationPath: target)
        }
        let walk = LinksOut.walk(page)
        #expect(walk.complete)
        #expect(walk.blockedNames == ["dangling", "loop", "ok/back", "okdir", "out", "root", "same", "sub/up"], "\(walk)")
        #expect(!LinksOut.walk(page, budget: 2).complete && LinksOut.walk(page, budget: 3).complete, "the budget counts entries below the directory")
        #expect(LinksOut.walk(base + "/missing") == .none)
    }

    /// The rules block the paths through those links and the spellings that reach them by
    /// another text, and keep the rest of the directory readable; a directory too large to walk
    /// leaves only the files directly in it.
    @Test func theFilterBlocksLinksOutAndTheirSpellings() throws {
        /// Blocked when either list blocks it: each list decides alone, its last matching rule winning.
        func decide(_ lists: SubresourceBoundary.Lists) throws -> (String) -> Bool {
            let deciders = try [lists.files, lists.network].map { rules in
                let list = try #require(try JSONSerialization.jsonObject(with: Data(rules.utf8)) as? [[String: [String: Any]]])
                let steps = try list.map { rule in
                    (try NSRegularExpression(pattern: try #require(rule["trigger"]?["url-filter"] as? String),
                                             options: rule["trigger"]?["url-filter-is-case-sensitive"] as? Bool == true ? [] : .caseInsensitive),
                     rule["action"]?["type"] as? String == "block")
                }
                return { (url: String) in
                    var blocked = false
                    for (expression, block) in steps
                    where expression.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil {
                        blocked = block
                    }
                    return blocked
                }
            }
            return { url in deciders.contains { $0(url) } }
        }
        let blocked = try decide(SubresourceBoundary.rules(for: .file("/site/a b/page.html"), allowedHosts: [],
                                                           links: { _ in LinksOut(blockedPaths: ["out", "sub/up"], complete: true) }))
        for url in ["out", "out/x.js", "%6Fut/x.js", "%6f%75%74/x.js", "out//x.js", "sub/up", "sub/up/x.css", "sub//up/x.css",
                    "sub%2Fup/x.css", "out?x", "out#x", "out%00", "out%00.png", "OUT/x.js", "out%2fx.js", "//out/x.js",
                    "page.html%00", "img/a.png%00.css"] {
            #expect(blocked("file:///site/a%20b/" + url), "\(url) should be blocked")
        }
        for url in ["page.html", "outer.css", "out.css", "sub/x.css", "sub/upper.css", "img/%C3%A9t%C3%A9%20(1).png"] {
            #expect(!blocked("file:///site/a%20b/" + url), "\(url) should be readable")
        }
        #expect(blocked("file:///etc/passwd") && blocked("http://127.0.0.1/") && !blocked("https://example.com/"))
        let allowing = try decide(SubresourceBoundary.rules(for: .file("/site/page.html"), allowedHosts: ["localhost"],
                                                            links: { _ in LinksOut.none }))
        #expect(allowing("file://localhost/etc/passwd") && !allowing("http://localhost:8/"), "an allowed host opens no file")
        let flat = try decide(SubresourceBoundary.rules(for: .file("/site/page.html"), allowedHosts: [],
                                                        links: { _ in LinksOut(blockedPaths: [] as [[UInt8]], complete: false) }))
        #expect(!flat("file:///site/style.css") && flat("file:///site/img/a.png"))
        let none = try decide(SubresourceBoundary.rules(for: .file("/site/page.html"), allowedHosts: [], links: { _ in .none }))
        #expect(!none("file:///site/img/%41.png") && !none("file:///site/img//a.png"))
        #expect(none("file:///site/evil.js%00") && none("file:///SITE/page.html"), "a NUL ends the path; the directory's own case only")
    }

    /// Issue 62 (BND-NUL, BND-CHARS): a blocked name is matched in every spelling the network
    /// process decodes to it, whatever bytes it holds: each printable byte as itself or escaped in
    /// either case, every other byte escaped; and its neighbours' names stay readable.
    @Test func aBlockedNameIsBlockedInEverySpelling() throws {
        for byte in UInt8(1)...UInt8(0x7f) where byte != 0x2f {
            let name: [UInt8] = [0x72, byte]  // "r" and the byte
            let expression = try NSRegularExpression(pattern: "^" + SubresourceBoundary.anySpelling(of: name) + "$",
                                                     options: .caseInsensitive)
            func matches(_ text: String) -> Bool {
                expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
            let escaped = String(format: "%%%02X", byte), lower = String(format: "%%%02x", byte)
            #expect(matches("r" + escaped) && matches("r" + lower) && matches("%72" + escaped), "byte \(byte)")
            if (0x21...0x7e).contains(byte) { #expect(matches("r" + String(UnicodeScalar(byte))), "byte \(byte) as itself") }
            #expect(!matches("s" + escaped) && !matches("r") && !matches("r" + escaped + "x"), "byte \(byte): other names")
        }
        let utf8 = try NSRegularExpression(pattern: "^" + SubresourceBoundary.anySpelling(of: Array("é".utf8)) + "$", options: .caseInsensitive)
        #expect(utf8.firstMatch(in: "%c3%A9", range: NSRange(location: 0, length: 6)) != nil)
    }
}
