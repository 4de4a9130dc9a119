import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// A rotation is one step (issue 61.6): `size=844x390` sets the width and the height at once, and
/// the page lays out for its new width (step-resize.html: 1300 px narrow, 980 px wide).
@Suite(.serialized)
struct RotationStepTests {
    @Test func sizeRotatesInOneStepAndBack() async throws {
        var options = MeasureOptions()
        options.steps = [try PageStep(parsing: "size=844x390"), try PageStep(parsing: "size=390x844")]
        let page = PageSource.file(FixtureCase.pagesDirectory.appendingPathComponent("step-resize.html").path)
        let report = try await PageHeightEngine.shared().measure(page, options: options)
        #expect(report.status == .ok && report.height == 1300, "\(report.message ?? "")")
        let steps = try #require(report.steps)
        #expect(steps.map(\.step) == ["size=844x390", "size=390x844"])
        #expect(steps.map(\.status) == [.ok, .ok] && steps.map(\.height) == [980, 1300], "\(steps.map(\.message))")
    }
}
