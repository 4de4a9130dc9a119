import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// Steps (`--then`) against the real engine, beyond the fixtures' declared heights: a step the
/// page stalls, a tap that navigates, and a view that steps changed measuring the next page as
/// a new one would.
@Suite(.serialized)
struct StepEngineTests {
    func page(_ name: String) -> PageSource { .file(FixtureCase.pagesDirectory.appendingPathComponent(name).path) }

    func options(_ steps: [String], timeout: Double = 15) throws -> MeasureOptions {
        var options = MeasureOptions()
        options.steps = try steps.map { text throws(UsageError) in try PageStep(parsing: text) }
        options.timeout = timeout
        return options
    }

    /// A tap whose handler never yields: the step ends `timeout`, the rest are skipped, the page's
    /// own verdict stands; the next page measures as ever.
    @Test func aStepThePageStallsEndsTimeoutAndKeepsTheVerdictBeforeIt() async throws {
        let engine = try PageHeightEngine.shared()
        let report = await engine.measure(page("steps/spin.html"), options: try options(["click=#spin", "width=844"], timeout: 4))
        #expect(report.status == .ok && report.height == 550)
        let steps = try #require(report.steps)
        #expect(steps.map(\.status) == [.timeout, .skipped], "\(steps)")
        #expect(steps[0].message?.contains("JavaScript stalled") == true, "\(steps[0].message ?? "")")
        #expect(steps[1].message == "not applied: step 1 (click=#spin) ended timeout")
        let next = await engine.measure(page("static.html"), options: MeasureOptions())
        #expect(next.status == .ok && next.height == 1234)
    }

    /// Issue 62 (STEP-HANG): a page that spins the moment a step is applied (a resize, a change
    /// of color scheme, a click) ends that step `timeout` within the step's timeout (applying is
    /// part of the step's phase), whichever step it is; the next page measures as ever.
    @Test(arguments: ["width=500", "color-scheme=dark", "click=#b"])
    func aStepThatSpinsWhileAppliedEndsWithinTheTimeout(step: String) async throws {
        let engine = try PageHeightEngine.shared()
        let started = Date()
        let report = await engine.measure(.file(HostileCase.directory.appendingPathComponent("step-spin.html").path),
                                          options: try options([step], timeout: 3))
        let seconds = Date().timeIntervalSince(started)
        #expect(report.status == .ok && report.height == 400, "\(report.status.rawValue) \(report.message ?? "")")
        #expect(report.steps?.map(\.status) == [.timeout], "\(report.steps ?? [])")
        // The load's phase (3 s at most) and the step's (3 s): no more, whatever the step.
        #expect(seconds < 3 + 3 + 1.5, "\(step): \(seconds) s")
        let next = await engine.measure(page("static.html"), options: MeasureOptions())
        #expect(next.status == .ok && next.height == 1234)
    }

    /// A tap on a link: the navigation is stopped, the step says so, the page is measured as it was.
    @Test func aTapThatNavigatesIsStoppedAndSaid() async throws {
        let engine = try PageHeightEngine.shared()
        let report = await engine.measure(page("steps/link.html"), options: try options(["click=#away"]))
        let step = try #require(report.steps?.first)
        #expect(step.status == .ok && step.height == 550, "\(step)")
        #expect(step.message?.contains("tried to navigate to") == true && step.message?.contains("spin.html") == true,
                "\(step.message ?? "")")
        #expect(report.stoppedNavigations == nil, "the page's own report is the one before its steps")
    }

    /// The view that steps widened, zoomed and gave a larger font measures the next page with the
    /// settings it was made with.
    @Test func aViewGivesBackWhatStepsChanged() async throws {
        let engine = try PageHeightEngine.shared()
        let stepped = await engine.measure(page("step-font-size.html"),
                                           options: try options(["font-size=20", "zoom=2", "width=844", "text-zoom=1", "color-scheme=dark"]))
        #expect(stepped.steps?.map(\.status) == [.ok, .ok, .ok, .ok, .ok], "\(stepped.steps ?? [])")
        for name in ["step-font-size.html", "step-resize.html", "step-color-scheme.html"] {
            let again = await engine.measure(page(name), options: MeasureOptions())
            let fresh = [660.0, 1300, 600][["step-font-size.html", "step-resize.html", "step-color-scheme.html"].firstIndex(of: name)!]
            #expect(again.height == fresh, "\(name): \(again.height ?? -1)")
        }
    }
}
