import Foundation
@testable import PageHeightCore
import Testing

@Suite struct SubresourceBoundaryTests {
    @Test func aFilePageGetsItsDirectoryAndNoLoopbackOrPrivateHost() {
        let lists = SubresourceBoundary.rules(for: .file("/site/a b/page.html"), allowedHosts: [])
        let rules = lists.files
        #expect(rules.contains(#"{"trigger":{"url-filter":"^file:///"},"action":{"type":"block"}}"#), "\(rules)")
        #expect(rules.contains(#""url-filter":"^file:\/\/\/site\/a%20b\/""#) == false)
        #expect(rules.contains(#"^file:///site/a%20b/"#), "\(rules)")
        #expect(lists.network.contains(#"127\\.[0-9]+"#) && lists.network.contains(#"192\\.168"#))
        #expect(!rules.contains("127") && !lists.network.contains("file:"), "each list keeps to its own URLs")
    }

    /// The network list is one for every file page (compiled once for a batch of files in many
    /// folders); the file list is each folder's own.
    @Test func filePagesInTwoFoldersShareTheNetworkList() {
        let one = SubresourceBoundary.rules(for: .file("/site/a/page.html"), allowedHosts: [])
        let two = SubresourceBoundary.rules(for: .file("/site/b/page.html"), allowedHosts: [])
        #expect(one.network == two.network && one.files != two.files)
        #expect(one.network == SubresourceBoundary.rules(for: .url("https://example.com/a"), allowedHosts: []).network)
    }

    @Test func aPageServedFromLoopbackMayReachLoopbackAndAnAllowedHostAnyPage() {
        let rules = SubresourceBoundary.rules(for: .url("http://127.0.0.1:8080/a.html"), allowedHosts: ["10.0.0.5:9000"]).network
        #expect(!rules.contains(#"127\\.[0-9]+"#) && rules.contains(#"192\\.168"#))
        #expect(rules.contains(#"^[a-z]+://10\\.0\\.0\\.5:9000[/?#]"#), "\(rules)")
    }

    /// A page on a private network, or on this machine's own address, may reach private
    /// networks; one on a public address (or one just outside the ranges) may not.
    @Test(arguments: [("http://10.1.2.3/a", true), ("http://192.168.0.9:8080/", true), ("http://172.16.0.1/", true),
                      ("http://172.31.255.1/", true), ("http://169.254.1.1/", true), ("http://0.0.0.0/", true),
                      ("http://172.32.0.1/", false), ("http://172.15.0.1/", false), ("http://192.169.0.1/", false),
                      ("http://11.0.0.1/", false), ("http://10.1.2/", false), ("https://example.com/", false)])
    func aPageOnAPrivateNetworkMayReachIt(page: String, reaches: Bool) {
        let rules = SubresourceBoundary.rules(for: .url(page), allowedHosts: []).network
        #expect(rules.contains(#"192\\.168"#) == !reaches, "\(page): \(rules)")
        let local = SubresourceBoundary.rules(for: .url("http://203.0.113.7/"), allowedHosts: [], localAddresses: ["203.0.113.7", "10.0.0.2"]).network
        #expect(!local.contains(#"203\\.0\\.113\\.7"#) && !local.contains(#"192\\.168"#), "a page on this machine's own address is local")
        #expect(SubresourceBoundary.rules(for: .url("https://example.com/"), allowedHosts: [], localAddresses: ["203.0.113.7", "10.0.0.2"])
            .network.contains(#"203\\.0\\.113\\.7"#), "this machine's public address is blocked; its private one is covered by the ranges")
    }

    @Test func aTemplatePageMayReadTheTemplatesDirectoryAndItsFragments() {
        let rules = SubresourceBoundary.rules(for: .html("<p>", baseURL: "file:///site/theme/", alsoReadable: ["file:///site/articles/"]),
                                              allowedHosts: []).files
        #expect(rules.contains(#"^file:///site/theme/"#) && rules.contains(#"^file:///site/articles/"#), "\(rules)")
    }

    @Test func allowHostTakesAHostWithAnOptionalPort() {
        for good in ["127.0.0.1", "127.0.0.1:8080", "localhost", "intranet.example:443", "[::1]:8080"] {
            #expect(SubresourceBoundary.isHost(good), "\(good)")
        }
        for bad in ["", "http://x", "a b", "host:port", "host:99999", "[::1"] {
            #expect(!SubresourceBoundary.isHost(bad), "\(bad)")
        }
    }
}
