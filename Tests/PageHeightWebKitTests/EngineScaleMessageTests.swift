import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// A library user who asks the desktop engine for an iPhone is told how to start one that fits
/// (issue 61.7); nothing is loaded.
@Suite(.serialized)
struct EngineScaleMessageTests {
    @Test func aDeviceAtAnotherScaleNamesTheCallThatStartsTheRightEngine() async throws {
        let engine = try PageHeightEngine.shared()
        try #require(engine.scale == 1)
        var options = MeasureOptions()
        options.device = .iphone
        let report = await engine.measure(.file(FixtureCase.pagesDirectory.appendingPathComponent("static.html").path), options: options)
        #expect(report.status == .loadError)
        #expect(report.message?.contains("PageHeightEngine.shared(for: options), or with PageHeightEngine.shared(scale: 3)") == true,
                "\(report.message ?? "")")
        // The same options start the right engine in a process of their own: shared(for:) asks for scale 3.
        #expect(EngineSettings(options).scale == 3)
        #expect(throws: EngineError.self) { try PageHeightEngine.shared(for: options) }
    }
}
