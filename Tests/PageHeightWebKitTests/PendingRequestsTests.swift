import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// A timeout names the requests still in flight (issue 61.3): the real engine on a served page
/// whose load waits for an image that arrives long after the timeout.
@Suite(.serialized)
struct PendingRequestsTests {
    @Test func aTimeoutNamesTheRequestStillInFlight() async throws {
        let server = try #require(FixturePageTests.server)
        var options = MeasureOptions()
        options.timeout = 1
        let page = PageSource.url(server.url(for: "load-waits-for-request.html").absoluteString)
        let lines = LockedLines()
        let report = try await PageHeightEngine.shared().measure(page, options: options, log: { lines.append($0) })
        #expect(report.status == .timeout, "\(report.status): \(report.message ?? "")")
        let requests = try #require(report.requestsInFlight, "\(report.message ?? "")")
        #expect(requests.total == 1 && requests.urls == [server.url(for: "delay/20000/img/block-390x600.png").absoluteString], "\(requests)")
        #expect(requests.hosts == [.init(host: "127.0.0.1", count: 1)])
        // The page itself answered; loopback is not the network: no --offline hint.
        #expect(requests.answered >= 1 && !requests.allToNetwork)
        #expect(report.message?.hasPrefix("the load did not finish within 1.00 s (last step: committed); 1 request still in flight: 127.0.0.1") == true,
                "\(report.message ?? "")")
        #expect(report.message?.contains("--offline") == false)
        #expect(lines.all.contains { $0.contains("1 request still in flight: 127.0.0.1") }, "the verbose log names it too")
        #expect(!report.waitedForNetwork)
    }

    /// A page that settles names nothing, even with requests of its own under way before.
    @Test func aSettledPageHasNoRequestsInFlight() async throws {
        let server = try #require(FixturePageTests.server)
        let page = PageSource.url(server.url(for: "late-image.html").absoluteString)
        let report = try await PageHeightEngine.shared().measure(page, options: MeasureOptions())
        #expect(report.status == .ok && report.requestsInFlight == nil, "\(report.message ?? "")")
    }
}
