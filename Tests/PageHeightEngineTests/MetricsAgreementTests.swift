import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// Content the engine lays out but does not show is no content (issue 61.8): a closed
/// <details>'s hidden box does not make lowest-element disagree with body-scroll.
@Suite(.serialized)
struct MetricsAgreementTests {
    @Test func aClosedDetailsHiddenContentIsNotTheLowestElement() async throws {
        let page = PageSource.file(FixtureCase.pagesDirectory.appendingPathComponent("details-closed.html").path)
        let report = try await PageHeightEngine.shared().measure(page, options: MeasureOptions())
        #expect(report.status == .ok && report.height == 120, "\(report.message ?? "")")
        let metrics = try #require(report.metrics)
        #expect(metrics.lowestElement == 120 && metrics.max == 120, "\(metrics)")
        #expect(report.metricsDisagree == nil, "\(report.metricsDisagree ?? "")")
        // Opened, it is content: 420 px on every metric.
        var options = MeasureOptions()
        options.steps = [try PageStep(parsing: "click=summary")]
        let opened = try await PageHeightEngine.shared().measure(page, options: options)
        #expect(opened.steps?.first?.height == 420, "\(opened.steps?.first?.message ?? "")")
    }
}
