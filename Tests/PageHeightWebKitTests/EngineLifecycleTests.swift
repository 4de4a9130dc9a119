import Foundation
import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// A library user's engine: created, used, shut down (awaited), and not usable afterwards.
@Suite struct EngineLifecycleTests {
    static func page(_ name: String) -> PageSource {
        .file(FixtureCase.pagesDirectory.appendingPathComponent(name).path)
    }

    /// `shutdown()` waits for the page being measured, then closes every view of the engine; the
    /// shared engine (the runtime's other user) measures on.
    @Test func anEngineShutsDownOnceItsPagesAreMeasured() async throws {
        let engine = try PageHeightEngine()
        let measuring = Task { await engine.measure(Self.page("grow-2.5.html")) }
        try await Task.sleep(for: .milliseconds(300))
        await engine.shutdown()
        let report = await measuring.value
        #expect(report.status == .ok && report.height == 1300, "\(report.status) \(report.height ?? -1)")
        let live = await engine.pools.liveViews
        #expect(live == 0)
        let shared = try await PageHeightEngine.shared().measure(Self.page("static.html"))
        #expect(shared.status == .ok && shared.height == 1234)
    }

    /// Measuring with an engine that was shut down stops the process (a precondition).
    @Test func measuringAfterShutdownIsAProgrammingError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = try PageHeightEngine()
            await engine.shutdown()
            _ = await engine.measure(.url("about:blank"))
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("PageHeightEngine.measure called after shutdown()"), "\(said.suffix(500))")
    }
}
