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

    /// The hooks' list of the engine's methods that return a promise (`PROMISE_METHODS` in
    /// hooks.js: while a call of one is under way the virtual clock runs at real speed) is the
    /// engine's: every method of its interfaces that answers a call on an object of another
    /// interface with a rejected promise (WebIDL's rule for promise-returning operations), less
    /// those the hooks leave out on purpose. A WebKit that adds one fails here.
    @Test func theHooksKnowEveryMethodOfTheEngineThatReturnsAPromise() async throws {
        let discovery = """
            (() => {
              const skip = new Set(['Object', 'Function', 'Array', 'Promise', 'Window']);
              const found = [];
              for (const name of Object.getOwnPropertyNames(window)) {
                if (!/^[A-Z]/.test(name) || skip.has(name)) continue;
                let type; try { type = window[name]; } catch (e) { continue; }
                if (typeof type !== 'function' || !type.prototype || !/\\[native code\\]/.test(Function.prototype.toString.call(type))) continue;
                for (const key of Object.getOwnPropertyNames(type.prototype)) {
                  const d = key === 'constructor' ? null : Object.getOwnPropertyDescriptor(type.prototype, key);
                  if (!d || typeof d.value !== 'function') continue;
                  let result; try { result = Reflect.apply(d.value, {}, []); } catch (e) { continue; }
                  if (result instanceof Promise) { result.catch(() => {}); found.push(name + '.' + key); }
                }
              }
              return JSON.stringify(found);
            })()
            """
        // A secure context (localhost), where the engine exposes all of them (service workers too).
        let page = try await ProbePage.open(.html("<!DOCTYPE html><body>methods</body>", baseURL: "http://localhost/"), clock: .real)
        let json = try await page.evaluate(discovery)
        await page.close()
        let found = Set(try JSONDecoder().decode([String].self, from: Data(json.utf8)))
        #expect(found.contains("SubtleCrypto.digest") && found.contains("CacheStorage.open"), "\(found.sorted())")
        let hooks = ProbeScript.hooks(virtualClock: true)
        let table = try #require(hooks.components(separatedBy: "const PROMISE_METHODS = ").dropFirst().first?
            .components(separatedBy: ";").first)
        let listed = Set(table.matches(of: #/'([^']*)'/#).map { String($0.output.1) }.joined().split(separator: " ").map(String.init))
        // Left out: a promise that waits on the page's own script, the probe's channel, font
        // loads (the fonts rule's), and `Image`, whose prototype is `HTMLImageElement`'s.
        let leftOut: Set = ["CustomElementRegistry.whenDefined", "UserMessageHandler.postMessage", "FontFace.load", "FontFaceSet.load",
                            "Image.decode"]
        let missing = found.subtracting(leftOut).subtracting(listed).sorted(), extra = listed.subtracting(found).sorted()
        #expect(missing.isEmpty && extra.isEmpty, "missing: \(missing), not the engine's: \(extra)")
    }
}
