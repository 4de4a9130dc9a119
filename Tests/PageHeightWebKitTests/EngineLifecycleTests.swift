import Foundation
import PageHeightCore
@testable import PageHeightWebKit
import PageHeightTestSupport
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

    /// A program that runs an engine and starts `pageheight` (this test process; a server's
    /// helper) passes on its environment, whose engine variables name files in its private
    /// directory, out of the new engine's file jail. The new engine starts from the values the
    /// program was given. Without that, `PAGEHEIGHT_WEBGL=1` found no EGL (the web process
    /// aborted) and `--fonts system` no fonts configuration (Fontconfig errors on stderr).
    @Test func aPageheightStartedBesideAnEngineMeasuresAsWithoutIt() async throws {
        let here = try await PageHeightEngine.shared().measure(Self.page("static.html"))
        #expect(here.status == .ok && here.height == 1234)
        let record = ProcessInfo.processInfo.environment[EngineEnvironment.record] ?? ""
        #expect(EngineEnvironment.decode(record).keys.contains("FONTCONFIG_FILE"), "\(record)")
        let pages = FixtureCase.pagesDirectory.path
        let webGL = try PageHeightBinary.run(["--until", "quick", pages + "/webgl.html"], environment: ["PAGEHEIGHT_WEBGL": "1"])
        #expect(webGL.status == 0 && webGL.stdout.hasPrefix("1800 px"), "\(webGL.stdout)\(webGL.stderr)")
        // A value the program sets for its child is the child's: the machine's fonts made wide.
        let machine = try MachineFonts.wide()
        defer { try? FileManager.default.removeItem(at: machine.directory) }
        let wide = try PageHeightBinary.run(["--fonts", "system", pages + "/fonts-generic.html"], environment: machine.environment)
        #expect(wide.status == 0 && (Int(wide.stdout.prefix { $0 != " " }) ?? 0) > 2424 + 100, "\(wide.stdout)\(wide.stderr)")
        let system = try PageHeightBinary.run(["--fonts", "system", "--until", "quick", pages + "/static.html"])
        #expect(system.status == 0 && system.stdout.hasPrefix("1234 px") && system.stderr.isEmpty,
                "\(system.stdout)\(system.stderr)")
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
