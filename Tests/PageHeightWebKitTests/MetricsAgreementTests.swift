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

/// A runaway's culprit names the declaration that ties it to the view (issue 61.8), where the
/// share it follows alone would not say which property it is.
@Suite(.serialized)
struct ViewCulpritDeclarationTests {
    func culprits(_ name: String) async throws -> [String] {
        let page = PageSource.file(FixtureCase.pagesDirectory.appendingPathComponent(name).path)
        let report = try await PageHeightEngine.shared().measure(page, options: MeasureOptions())
        #expect(report.status == .runaway, "\(name): \(report.message ?? "")")
        return report.viewDependence?.culprits ?? []
    }

    @Test func aMinHeightIsNamedAndAPlainHeightIsNotRepeated() async throws {
        let minHeight = try await culprits("fit-min-height.html")
        #expect(minHeight == ["main#content: 100vh (min-height: 100vh)"], "\(minHeight)")
        let hero = try await culprits("fit-hero.html")
        #expect(hero == ["div.hero: 100vh"], "\(hero)")
    }
}
