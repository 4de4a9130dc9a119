// CancellationTests.swift - issue 56: a caller's cancellation is its own end, not a timeout; it
// comes at once and leaves a healthy view to the next page.

import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

@Suite(.serialized)
struct CancellationTests {
    /// A page measured on the real clock (its schedule alone takes seconds), cancelled half a
    /// second in: the report says `cancelled` within 100 ms of the cancellation, and the next page
    /// is measured in the same view, reused, not in a new one.
    @Test func aCancelledMeasurementEndsCancelledAtOnceAndItsViewIsReused() async throws {
        let engine = try PageHeightEngine.shared()
        var options = MeasureOptions()
        options.clock = .real
        let page = PageSource.file(FixtureCase.pagesDirectory.appendingPathComponent("timer-10s.html").path)
        let measuring = Task { await engine.measure(page, options: options) }
        try await Task.sleep(nanoseconds: 500_000_000)
        let cancelledAt = Date()
        measuring.cancel()
        let report = await measuring.value
        let seconds = Date().timeIntervalSince(cancelledAt)
        #expect(report.status == .cancelled, "\(report.status.rawValue): \(report.message ?? "")")
        #expect(seconds < 0.1, "the report came \(seconds) s after the cancellation")
        let lines = LockedLines()
        let next = await engine.measure(.file(FixtureCase.pagesDirectory.appendingPathComponent("static.html").path),
                                        options: options, log: { lines.append($0) })
        #expect(next.status == .ok && next.height == 1234)
        #expect(lines.all.contains { $0.contains("in a view reused after") }, "\(lines.all.filter { $0.contains("loading") })")
    }
}
