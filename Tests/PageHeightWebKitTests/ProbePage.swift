// ProbePage.swift - one page loaded in a view of the engine's, with no measurement around it, for
// tests that call the probe directly: `window.__pageheight` in the probe's world, and expressions
// in the page's own world.

import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight

/// A page in a view of its own, isolated to the engine's GLib thread like the view.
@GLibActor
final class ProbePage {
    private let pool: ViewPool
    /// Nil once closed.
    private var view: PageView?
    private let options: MeasureOptions

    private init(pool: ViewPool, view: PageView, options: MeasureOptions) {
        self.pool = pool
        self.view = view
        self.options = options
    }

    /// Loads `source` in a new view on the chosen clock and returns once the document is
    /// complete (throws after `within` seconds). The view is made for the real clock and its hooks
    /// swapped (`PageView.setClock`) when the clock is virtual.
    /// Nonisolated: the engine, which starts the GLib thread that runs `GLibActor`, must exist
    /// before anything hops onto that actor (a test run alone would wait for it for ever).
    nonisolated static func open(_ source: PageSource, clock: PageClockMode, options: MeasureOptions = MeasureOptions(),
                                 within seconds: Double = 10) async throws -> ProbePage {
        try await open(source, clock: clock, options: options, within: seconds, engine: PageHeightEngine.shared())
    }

    private static func open(_ source: PageSource, clock: PageClockMode, options: MeasureOptions,
                             within seconds: Double, engine: PageHeightEngine) async throws -> ProbePage {
        var options = options
        options.clock = .real
        let pool = try await engine.pools.pool(for: options)
        let view = await pool.checkout(options, boundary: nil, fresh: true)
        view.setHooks(virtual: clock == .virtual, device: .desktop)
        view.load(source)
        let page = ProbePage(pool: pool, view: view, options: options)
        let deadline = Date().addingTimeInterval(seconds)
        var state = ""
        while case let now = try await page.evaluate("document.readyState + (window.__pageheight ? '' : ' (no probe)')"), now != "complete" {
            state = now
            guard Date() < deadline else {
                await page.close()
                throw ProbePageError.notLoaded(seconds: seconds, state: state)
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return page
    }

    /// Loads `source` in this view on the chosen clock and returns once the document is complete
    /// with the title `title` (throws after `within` seconds).
    func load(_ source: PageSource, clock: PageClockMode, title: String, within seconds: Double = 10) async throws {
        guard let view else { throw ProbePageError.closed }
        view.setHooks(virtual: clock == .virtual, device: .desktop)
        view.inbox.clear() // the last page's commit: else this load counts as that page navigating away
        view.load(source)
        let deadline = Date().addingTimeInterval(seconds)
        while case let state = try await evaluate("document.title + ' ' + document.readyState"), state != "\(title) complete" {
            guard Date() < deadline else { throw ProbePageError.notLoaded(seconds: seconds, state: state) }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Runs `body` on `source` loaded on the chosen clock, then closes the view.
    nonisolated static func with<T: Sendable>(_ source: PageSource, clock: PageClockMode, options: MeasureOptions = MeasureOptions(),
                                              _ body: @GLibActor (ProbePage) async throws -> T) async throws -> T {
        let page = try await open(source, clock: clock, options: options)
        do {
            let result = try await body(page)
            await page.close()
            return result
        } catch {
            await page.close()
            throw error
        }
    }

    /// Evaluates `script` in the probe's world: a string result as its text, anything else as JSON.
    func evaluate(_ script: String) async throws -> String {
        guard let view else { throw ProbePageError.closed }
        return try await view.evaluate(script).get()
    }

    /// Evaluates `expression` in the page's own world (as an inline script the probe inserts) and
    /// returns its value as JSON text.
    func evaluateInPage(_ expression: String) async throws -> String {
        let script = "document.documentElement.setAttribute('data-probe-page', JSON.stringify((\(expression))))"
        let literal = String(decoding: try JSONEncoder().encode(script), as: UTF8.self)
        return try await evaluate("""
            (() => {
              const s = document.createElement('script');
              s.textContent = \(literal);
              document.documentElement.appendChild(s);
              s.remove();
              const value = document.documentElement.getAttribute('data-probe-page');
              document.documentElement.removeAttribute('data-probe-page');
              return value === null ? 'no value' : value;
            })()
            """)
    }

    /// The probe's reading with every metric.
    func measure() async throws -> ProbeReading {
        let json = try await evaluate(ProbeScript.measureAll.script)
        return try ProbeReading.decode(json).unwrap(json)
    }

    /// The page's clock.
    func clock() async throws -> PageClock {
        let json = try await evaluate(ProbeScript.clock.script)
        return try ProbeReading.decodeClock(json).unwrap(json)
    }

    /// Jumps the page's clock to `ms` and returns it after the jump.
    func advance(to ms: Double) async throws -> PageClock {
        let json = try await evaluate(ProbeScript.advance(toMs: ms).script)
        return try ProbeReading.decodeClock(json).unwrap(json)
    }

    /// Jumps the page's clock `ms` ahead; with `run`, its timers due on the way run each at its
    /// own time (a run). The clock after the jump's dispatch.
    func advance(by ms: Double, run: Bool) async throws -> PageClock {
        let json = try await evaluate(ProbeScript.advance(byMs: ms, run: run).script)
        return try ProbeReading.decodeClock(json).unwrap(json)
    }

    /// Reads `metric` (the probe's value) until `accept` holds or `seconds` passed; the last value.
    func value(within seconds: Double, until accept: (Double) -> Bool) async throws -> Double {
        let deadline = Date().addingTimeInterval(seconds)
        var last = -1.0
        while Date() < deadline {
            last = try await measure().value ?? -1
            if accept(last) { return last }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return last
    }

    /// Closes the view (it goes back to nothing: a view whose clock was swapped is not reused).
    func close() async {
        guard let view else { return }
        self.view = nil
        view.retire()
        pool.checkin(view, options: options)
    }
}

enum ProbePageError: Error, CustomStringConvertible {
    case notLoaded(seconds: Double, state: String)
    case undecodable(String)
    case closed

    var description: String {
        switch self {
        case .notLoaded(let seconds, let state): "the page was not complete after \(seconds) s (it said: \(state))"
        case .undecodable(let json): "the probe answered \(json.prefix(200))"
        case .closed: "the page was closed"
        }
    }
}

private extension Optional {
    func unwrap(_ json: String) throws -> Wrapped {
        guard let self else { throw ProbePageError.undecodable(json) }
        return self
    }
}
