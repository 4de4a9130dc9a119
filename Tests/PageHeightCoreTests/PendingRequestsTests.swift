import Foundation
@testable import PageHeightCore
import Testing

/// What a timeout says about the requests still in flight (issue 61.3), without a display.
struct PendingRequestNoteTests {
    @Test func hostsAreCountedMostFirstAndTheOfflineHintNeedsOnlyUnansweredNetworkRequests() {
        let urls = ["https://cdn.example.com/a.js", "https://fonts.example.net/f.woff2", "https://cdn.example.com/b.css",
                    "http://ads.example.org/x", "wss://live.example.org/socket"]
        let requests = PendingRequests(urls: urls, total: 5, answered: 0)
        #expect(requests.hosts.map(\.host) == ["cdn.example.com", "ads.example.org", "fonts.example.net", "live.example.org"])
        #expect(requests.allToNetwork && requests.suggestsOffline(offline: false) && !requests.suggestsOffline(offline: true))
        #expect(requests.note(offline: false) == "5 requests still in flight: cdn.example.com (2), ads.example.org, "
            + "fonts.example.net, 1 more hosts; every one is to the network and none of the page's requests to it had "
            + "answered: without a network, measure with --offline")
        #expect(requests.note(offline: true) == "5 requests still in flight: cdn.example.com (2), ads.example.org, fonts.example.net, 1 more hosts")
        // Some answered: the network is there, the page is slow.
        #expect(!PendingRequests(urls: urls, total: 5, answered: 3).suggestsOffline(offline: false))
        // A page from the network cannot be measured offline: no hint, whatever waits.
        #expect(!requests.suggestsOffline(offline: false, page: "https://example.com/article"))
        #expect(requests.suggestsOffline(offline: false, page: "file:///tmp/source.html"))
        // Loopback and local files are not the network.
        for local in ["http://127.0.0.1:8080/a.png", "http://localhost/a.png", "http://[::1]/a", "file:///tmp/a.css"] {
            #expect(!PendingRequests(urls: [local], total: 1, answered: 0).allToNetwork, "\(local)")
        }
        // More in flight than listed: not known to be all network.
        #expect(!PendingRequests(urls: ["https://a.example/"], total: 2, answered: 0).allToNetwork)
        #expect(PendingRequests(urls: [], total: 0, answered: 0).note(offline: false) == nil)
    }

    @Test func aReportKeepsTheFirstURLsSortedButCountsEveryHost() {
        let urls = (0..<30).map { "https://h\($0 % 3).example/\($0)" }
        let requests = PendingRequests(urls: urls, total: 30, answered: 0)
        #expect(requests.urls.count == PendingRequests.kept && requests.urls == Array(urls.sorted().prefix(PendingRequests.kept)))
        #expect(requests.hosts.map(\.count) == [10, 10, 10] && requests.allToNetwork)
    }

    @Test func onlyATimeoutNamesThemInTheMessage() {
        var options = MeasureOptions()
        options.timeout = 2
        let session = MeasurementSession(options: options)
        var builder = ReportBuilder(url: "file:///a.html", session: session, end: .timedOut(stalledSince: nil), endedAt: 2)
        builder.requestsInFlight = PendingRequests(urls: ["https://cdn.example.com/a.js"], total: 1, answered: 0)
        let report = builder.build()
        #expect(report.status == .timeout && report.waitedForNetwork)
        #expect(report.message == "the load did not finish within 2.00 s (last step: loading); 1 request still in flight: "
            + "cdn.example.com; every one is to the network and none of the page's requests to it had answered: without a network, measure with --offline")
        builder.end = .loadFailed("no such host")
        #expect(builder.build().requestsInFlight == nil)
    }
}
