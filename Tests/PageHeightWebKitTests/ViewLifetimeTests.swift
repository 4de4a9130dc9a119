import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// A view the engine gives up on is freed: nothing of the measuring flow (signal handlers, waits,
/// evaluations) keeps it alive once its owner lets it go.
@Suite(.serialized)
struct ViewLifetimeTests {
    /// A page whose script never yields holds its web process: the blank page that would make
    /// the view clean never finishes, `blank` gives up after its second, and the view, retired
    /// and closed, is freed (its deinit runs, which releases the WebKitWebView).
    @Test func aViewRetiredAfterABlankTimeoutIsFreed() async throws {
        let engine = try PageHeightEngine.shared()
        let page = FixtureCase.pagesDirectory.appendingPathComponent("hostile/busy-before-load.html").path
        let (clean, freed) = try await Self.blankTimesOut(engine, page: page)
        #expect(!clean, "the blank page came back from a web process that never yields")
        #expect(freed, "the view outlived its owner")
    }

    @GLibActor
    static func blankTimesOut(_ engine: PageHeightEngine, page: String) async throws -> (clean: Bool, freed: Bool) {
        let options = MeasureOptions()
        let pool = try await engine.pools.pool(for: options)
        var view: PageView? = await pool.checkout(options, boundary: nil, fresh: true)
        weak let watched = view
        view?.load(.file(page))
        await GLibClock.sleep(0.5) // the page's script is spinning by now
        let clean = await view?.blank(height: 844) ?? true
        view?.terminateWebProcess()
        view?.retire()
        if let retired = view { pool.checkin(retired, options: options) } // closes it
        view = nil
        // Late answers and timers of the gone view get a moment to arrive.
        await GLibClock.sleep(0.2)
        return (clean, watched == nil)
    }
}
