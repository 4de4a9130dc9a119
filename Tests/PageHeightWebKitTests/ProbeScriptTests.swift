// ProbeScriptTests.swift - the probe's JavaScript (Sources/PageHeightWebKit/Measuring/Probe/*.js, compiled
// into the binary) run against fixture pages in the real engine, without a measurement around it.

import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

@Suite(.serialized)
struct ProbeScriptTests {
    static let pages = FixtureCase.pagesDirectory

    /// The scripts are the files, with their prologues.
    @Test func theScriptsAreTheResourceFiles() {
        let probe = ProbeScript.source(metric: .bodyScroll)
        #expect(probe.hasPrefix("(function(){const METRIC=\"body-scroll\";const STATE_EVENT=\"pageheight-probe-state\";"))
        #expect(probe.contains("function measure(all)") && probe.hasSuffix("\n})();"))
        #expect(ProbeScript.hooks(virtualClock: false).contains("const VIRTUAL_CLOCK=false;"))
        #expect(ProbeScript.hooks(virtualClock: true).contains("const VIRTUAL_CLOCK=true;"))
        #expect(ProbeScript.advance(toMs: 12500.5).script == "window.__pageheight ? window.__pageheight.advance(12500.5) : 'null'")
    }

    /// `measure(true)` on margins.html gives every metric its comment derives (collapsing margins:
    /// body 550, the root 620, the document's scroll height the view's 844).
    @Test func theProbeMeasuresAFixturePage() async throws {
        let page = try await ProbePage.open(.file(Self.pages.appendingPathComponent("margins.html").path), clock: .real)
        let reading = try await page.measure()
        await page.close()
        #expect(reading.value == 550)
        #expect(reading.metrics == HeightMetrics(bodyScroll: 550, documentScroll: 844, bodyOffset: 550, documentOffset: 620,
                                                 bodyRect: 550, lowestElement: 620, max: 844))
        #expect(reading.compatMode == "CSS1Compat")
        #expect(reading.pending.map { !$0.document && $0.images == 0 && $0.timers.isEmpty } == true)
        let clock = try #require(reading.clock)
        #expect(clock.offset == 0 && clock.next == nil && clock.now > 0)
    }
}
