// VirtualClockTests.swift - the virtual clock's page side (issue 33) in the real engine, driven
// by hand: pages are loaded with the clock's hooks, and the probe's `advance` jumps their time as
// a driver would.

import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

@Suite(.serialized)
struct VirtualClockTests {
    static let pages = FixtureCase.pagesDirectory
    /// The question by which a second run of the hooks finds them (`INSTALLED` in hooks.js).
    static let hooksInstalled = "__pageheightHooks-5d1c2a4e9b7f4e08a3c6"

    static func fixture(_ name: String) -> PageSource {
        .file(pages.appendingPathComponent(name).path)
    }

    static func html(_ body: String) -> PageSource {
        .html("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>html,body{margin:0}div{margin:0}</style></head>"
              + "<body>\(body)</body></html>", baseURL: pages.appendingPathComponent("clock-test.html").absoluteString)
    }

    /// Reads a JSON array of numbers from the page's world.
    static func numbers(_ page: ProbePage, _ expression: String) async throws -> [Double] {
        let json = try await page.evaluateInPage(expression)
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double], "\(json)")
    }

    /// A jump moves `Date.now()` and `performance.now()` in the page by its size, and only there:
    /// the probe's world keeps its real `performance.now()` (a world's wrappers are its own).
    @Test func aJumpMovesThePagesTimeOnly() async throws {
        try await ProbePage.with(Self.fixture("static.html"), clock: .virtual) { page in
            let before = try await Self.numbers(page, "[Date.now(), performance.now()]")
            let start = try await page.clock()
            #expect(start.offset == 0)
            let after = try await page.advance(to: start.now + 5000)
            #expect(after.offset > 4900 && after.offset <= 5000, "offset \(after.offset)")
            #expect(after.now >= start.now + 5000)
            let later = try await Self.numbers(page, "[Date.now(), performance.now()]")
            for (name, a, b) in [("Date.now()", before[0], later[0]), ("performance.now()", before[1], later[1])] {
                #expect(b - a >= 5000 && b - a < 5000 + 2000, "\(name) moved by \(b - a) ms")
            }
            let probeNow = Double(try await page.evaluate("String(performance.now())")) ?? -1
            let pageNow = try await Self.numbers(page, "[performance.now()]")[0]
            #expect(probeNow < pageNow - 4900, "the probe's performance.now() \(probeNow), the page's \(pageNow)")
            let probeDate = Double(try await page.evaluate("String(Date.now())")) ?? -1
            let pageDate = try await Self.numbers(page, "[new Date().getTime()]")[0]
            #expect(pageDate - probeDate >= 4900 && pageDate - probeDate < 7000, "new Date() is \(pageDate - probeDate) ms ahead")
            // Never back, and never for nothing.
            let same = try await page.advance(to: after.now - 1000)
            #expect(same.offset == after.offset)
        }
    }

    /// timer-10s.html: the 10 s timer is the clock's `next` and pending; a jump to it fires it at
    /// once and the page grows by 400 px.
    @Test func aJumpToTheNextTimerFiresIt() async throws {
        try await ProbePage.with(Self.fixture("timer-10s.html"), clock: .virtual) { page in
            let first = try await page.measure()
            #expect(first.value == 600)
            let clock = try #require(first.clock)
            let next = try #require(clock.next, "no next timer")
            #expect(next - clock.now > 9000 && next - clock.now <= 10000, "next in \(next - clock.now) ms")
            let timers = first.pending?.timers ?? []
            #expect(timers.count == 1 && timers.allSatisfy { $0 > 9 && $0 <= 10 }, "pending timers \(timers)")
            let started = Date()
            let jumped = try await page.advance(to: next)
            #expect(jumped.now >= next)
            let grown = try await page.value(within: 2) { $0 == 1000 }
            #expect(grown == 1000)
            #expect(Date().timeIntervalSince(started) < 2, "the timer fired \(Date().timeIntervalSince(started)) s after the jump")
            let after = try await page.measure()
            #expect(after.pending?.timers == [] && after.clock?.next == nil)
        }
    }

    /// `next` is the earliest due timer of any kind; periodic ones are not pending; an interval
    /// keeps firing after jumps, timers due together fire in due order, then creation order.
    @Test func intervalsAndOrder() async throws {
        try await ProbePage.with(Self.html("""
            <div style="height:100px"></div>
            <script>
              window.ticks = 0; window.order = [];
              setTimeout(() => order.push('c'), 3000);
              setInterval(() => { ticks++; }, 1500);
              setTimeout(() => { order.push('a'); Promise.resolve().then(() => order.push('a then')); }, 2000);
              setTimeout(() => order.push('b'), 2000);
              setTimeout(() => order.push('early'), 1900);
              setTimeout('order.push("string " + (1 + 1))', 2500);
              setTimeout((x, y) => order.push(x + y), 2600, 'ar', 'gs');
              const cleared = setTimeout(() => order.push('cleared'), 2700);
              clearInterval(cleared); // one id space
            </script>
            """), clock: .virtual) { page in
            let reading = try await page.measure()
            let clock = try #require(reading.clock)
            let next = try #require(clock.next)
            #expect(next - clock.now > 1000 && next - clock.now <= 1500, "next in \(next - clock.now) ms: the interval's")
            #expect(reading.pending?.timers.count == 6, "one-shot timers pending: \(reading.pending?.timers ?? [])")
            // Past every one-shot timer: they fire in due order, equal dues in creation order; the
            // interval fires once (a jump does not replay the periods it skipped).
            var last = try await page.advance(to: clock.now + 3100)
            try await Task.sleep(nanoseconds: 200_000_000)
            let order = try await page.evaluateInPage("order")
            #expect(order == #"["early","a","a then","b","string 2","args","c"]"#) // a task each: microtasks between
            #expect(try await Self.numbers(page, "[ticks]") == [1])
            for round in 1...3 {
                last = try await page.clock()
                let next = try #require(last.next, "the interval is still set")
                #expect(next - last.now > 1000 && next - last.now <= 1500, "round \(round): next in \(next - last.now) ms")
                _ = try await page.advance(to: next)
                try await Task.sleep(nanoseconds: 100_000_000)
                #expect(try await Self.numbers(page, "[ticks]") == [Double(1 + round)], "round \(round)")
            }
            #expect(try await page.measure().pending?.timers == [])
        }
    }

    /// A run (a jump with `run`, what the driver does over periodic timers): each tick due on the
    /// way runs at its own time, in one jump; a plain jump runs the interval once, late.
    @Test func aRunTicksAnIntervalAtEachOfItsTimes() async throws {
        try await ProbePage.with(Self.html("""
            <div style="height:100px"></div>
            <script>
              window.times = []; const start = Date.now();
              setInterval(() => times.push(Date.now() - start), 50);
            </script>
            """), clock: .virtual) { page in
            _ = try await page.advance(by: 1000, run: true)
            var clock = try await page.clock()
            for _ in 0..<100 where (clock.next ?? .infinity) <= clock.now {
                try await Task.sleep(nanoseconds: 2_000_000)
                clock = try await page.clock()
            }
            let ran = try await Self.numbers(page, "times")
            #expect(ran.count >= 19, "ticks in the run (1000 ms of a 50 ms interval): \(ran)")
            let gaps = zip(ran.dropFirst(), ran).map { $0 - $1 }
            #expect(gaps.allSatisfy { $0 >= 45 && $0 <= 75 }, "each tick at its own time: gaps \(gaps)")
            _ = try await page.advance(by: 1000, run: false)
            try await Task.sleep(nanoseconds: 20_000_000)
            let after = try await Self.numbers(page, "times")
            // (and perhaps one tick in real time before it)
            #expect((1...2).contains(after.count - ran.count), "a plain jump: one tick \(after.dropFirst(ran.count))")
            #expect(after.count >= 2 && after[after.count - 1] - after[after.count - 2] >= 950, "late, at the jump's end")
        }
    }

    /// transition-2s.html: a jump of 2 s moves the running transition to its end with the clock.
    @Test func aJumpMovesAFiniteTransitionToItsEnd() async throws {
        try await ProbePage.with(Self.fixture("transition-2s.html"), clock: .virtual) { page in
            // A transition that has not had its first frame yet has no current time, and a jump
            // leaves it to the next one; one still pending (its start time not yet set) takes a
            // seek only in part: wait until it has started and is past its first frame.
            let started = "document.getAnimations().map((a) => a.playState + ' ' + (a.currentTime > 0 && !a.pending))"
            var running = try await page.evaluateInPage(started)
            let deadline = Date().addingTimeInterval(1)
            while running != #"["running true"]"#, Date() < deadline {
                try await Task.sleep(nanoseconds: 10_000_000)
                running = try await page.evaluateInPage(started)
            }
            _ = try await page.advance(by: 2000, run: false) // not `to`: real time passes meanwhile
            let height = try await page.evaluateInPage("getComputedStyle(document.getElementById('grows')).height")
            // Whatever real time passed before the jump, 2 s more is the transition's end.
            #expect(running == #"["running true"]"#, "the transition before the jump: \(running)")
            #expect(height == #""600px""#, "after the jump: \(height)")
            #expect(try await page.value(within: 1) { $0 == 800 } == 800)
            #expect(try await page.measure().pending?.animations == 0)
        }
    }

    /// The page's Date keeps what pages and libraries feature-test.
    @Test func dateBehavesAsTheEnginesOwn() async throws {
        try await ProbePage.with(Self.fixture("static.html"), clock: .virtual) { page in
            _ = try await page.advance(to: try await page.clock().now + 86_400_000)
            let checks = try await page.evaluateInPage("""
                [new Date(2020, 0, 1).getFullYear() === 2020 && new Date(2020, 0, 1).getMonth() === 0,
                 new Date(0).getTime() === 0, new Date('2020-01-01T00:00:00Z').getTime() === 1577836800000,
                 new Date() instanceof Date, Object.prototype.toString.call(new Date()) === '[object Date]',
                 Date.length === 7, Date.name === 'Date', Date.UTC(2020, 0, 1) === 1577836800000,
                 Date.parse('2020-01-01T00:00:00Z') === 1577836800000, Date.prototype.constructor === Date,
                 new Date().constructor === Date, typeof Date() === 'string', typeof Date.now() === 'number',
                 Number.isInteger(Date.now()), new (class extends Date {})(5).getTime() === 5,
                 new (class extends Date {})() instanceof Date, !('prototype' in Date.now),
                 Math.abs(new Date().getTime() - Date.now()) < 1000,
                 Math.abs(Date.parse(Date()) - Date.now()) < 2000,
                 setTimeout.length === 1 && setInterval.length === 1 && clearTimeout.length === 0 && Date.now.length === 0,
                 performance.now.length === 0 && requestAnimationFrame.length === 1 && !('prototype' in setTimeout)]
                """)
            #expect(checks == "[" + Array(repeating: "true", count: 21).joined(separator: ",") + "]", "\(checks)")
        }
    }

    /// On the real clock the page's time and timers are the engine's own, and a jump does nothing.
    @Test func theRealClockIsTheEnginesOwn() async throws {
        try await ProbePage.with(Self.fixture("static.html"), clock: .real) { page in
            let natives = try await page.evaluateInPage("""
                [Date.now, performance.now, Date, setInterval, clearInterval, requestAnimationFrame]
                  .map((f) => String(f).includes('[native code]'))
                """)
            #expect(natives == "[true,true,true,true,true,true]")
            let start = try await page.clock()
            let after = try await page.advance(to: start.now + 5000)
            #expect(after.offset == 0 && after.next == nil && after.now < start.now + 1000)
            let skew = try await Self.numbers(page, "[performance.now()]")[0] - after.now
            #expect(abs(skew) < 1000)
        }
    }

    /// One view takes either clock: `PageView.setClock` swaps the hooks before the next load.
    @Test func aViewSwapsItsClockBetweenLoads() async throws {
        func titled(_ title: String) -> PageSource {
            Self.html("<title>\(title)</title><div style=\"height:100px\"></div>")
        }
        // The virtual clock's functions show the engine's text; their guard's question tells them.
        let native = "[Date.now, setInterval].map((f) => Function.prototype.toString.call(f, '\(Self.hooksInstalled)') !== '\(Self.hooksInstalled)')"
        try await ProbePage.with(titled("first"), clock: .real) { page in
            #expect(try await page.evaluateInPage(native) == "[true,true]")
            try await page.load(titled("second"), clock: .virtual, title: "second")
            #expect(try await page.evaluateInPage(native) == "[false,false]")
            let now = try await page.clock().now
            #expect(try await page.advance(to: now + 1000).offset > 900)
            try await page.load(titled("third"), clock: .real, title: "third")
            #expect(try await page.evaluateInPage(native) == "[true,true]")
            #expect(try await page.clock().offset == 0)
        }
    }

    /// A jump reaches child frames (forwarded by their parent), and a frame made after a jump
    /// asks its parent for the clock.
    @Test func framesFollowTheTopFramesClock() async throws {
        try await ProbePage.with(Self.html("""
            <iframe id="first" srcdoc="<p>child</p>"></iframe>
            """), clock: .virtual) { page in
            let start = try await page.clock()
            _ = try await page.advance(to: start.now + 60_000)
            try await Task.sleep(nanoseconds: 200_000_000)
            let skew = try await Self.numbers(page, "[Date.now() - frames[0].Date.now()]")[0]
            #expect(abs(skew) < 1000, "the child frame is \(skew) ms behind")
            _ = try await page.evaluateInPage("""
                (() => { const f = document.createElement('iframe'); f.srcdoc = '<p>late</p>'; document.body.appendChild(f); return 0; })()
                """)
            try await Task.sleep(nanoseconds: 500_000_000)
            let late = try await Self.numbers(page, "[Date.now() - frames[1].Date.now()]")[0]
            #expect(abs(late) < 1000, "the frame made after the jump is \(late) ms behind")
        }
    }

    /// The same across origins: a sandboxed frame (an opaque origin) is told by `postMessage`.
    @Test func aCrossOriginFrameFollowsTheTopFramesClock() async throws {
        let child = "<script>addEventListener('message', (e) => { if (e.data === 'now?') parent.postMessage({ now: Date.now() }, '*'); });</script>"
        let escaped = child.replacingOccurrences(of: "\"", with: "&quot;")
        try await ProbePage.with(Self.html("""
            <iframe sandbox="allow-scripts" srcdoc="\(escaped)"></iframe>
            <script>
              window.childNow = null;
              addEventListener('message', (e) => { if (e.data && typeof e.data.now === 'number') childNow = e.data.now; });
            </script>
            """), clock: .virtual) { page in
            let start = try await page.clock()
            _ = try await page.advance(to: start.now + 60_000)
            try await Task.sleep(nanoseconds: 200_000_000)
            _ = try await page.evaluateInPage("(frames[0].postMessage('now?', '*'), 0)")
            try await Task.sleep(nanoseconds: 200_000_000)
            let skew = try await Self.numbers(page, "[Date.now() - childNow]")[0]
            #expect(abs(skew) < 1000, "the cross-origin frame is \(skew) ms behind")
        }
    }

    /// A page that sends the clock's event itself can only move its own clock forward, and it
    /// never sees the probe's.
    @Test func aPageCanOnlyMoveItsOwnClockForward() async throws {
        try await ProbePage.with(Self.html("""
            <script>
              window.seen = 0;
              addEventListener('pageheight-clock', () => seen++);
              window.ask = (to) => dispatchEvent(new CustomEvent('pageheight-clock', { detail: JSON.stringify({ to: to }) }));
            </script>
            """), clock: .virtual) { page in
            let before = try await Self.numbers(page, "[performance.now()]")[0]
            _ = try await page.evaluateInPage("(ask(0), ask(-1e9), ask('x'), 0)")
            let after = try await page.clock()
            #expect(after.offset == 0)
            _ = try await page.evaluateInPage("(ask(performance.now() + 3000), 0)")
            let moved = try await page.clock()
            #expect(moved.offset > 2900 && moved.offset <= 3000, "offset \(moved.offset)")
            _ = try await page.advance(to: moved.now + 1000)
            #expect(try await Self.numbers(page, "[seen]") == [0])
            #expect(try await Self.numbers(page, "[performance.now()]")[0] - before >= 4000)
        }
    }

    /// timeout-zero-chain.html: the chain runs on under the virtual clock, is not pending, and
    /// waits 4 ms a step once nested (no faster than the engine).
    @Test func aZeroDelayChainIsPeriodic() async throws {
        try await ProbePage.with(Self.fixture("timeout-zero-chain.html"), clock: .virtual) { page in
            // The chain's first timer, set by the page's script, is pending until it runs (a
            // loaded machine can finish the load first).
            while try await Self.numbers(page, "[steps]")[0] < 2 { try await Task.sleep(nanoseconds: 10_000_000) }
            let reading = try await page.measure()
            #expect(reading.pending?.timers == [])
            let first = try await Self.numbers(page, "[steps, performance.now()]")
            try await Task.sleep(nanoseconds: 500_000_000)
            let second = try await Self.numbers(page, "[steps, performance.now()]")
            let rate = (second[0] - first[0]) / (second[1] - first[1])
            #expect(second[0] > first[0] && rate <= 0.26, "\(rate) steps a ms")
        }
    }

    /// Animation frames are the hooks' own: a frame the driver asks for moves the clock by its
    /// step and runs every callback requested before it, once, with the frame's time; the
    /// engine's own frames hold them while the driver steps; a callback that throws stops no other.
    @Test func aSteppedFrameRunsTheCallbacksOnce() async throws {
        try await ProbePage.with(Self.html("""
            <script>
              window.calls = []; window.count = 0;
              function loop(t) { count++; calls.push(t); requestAnimationFrame(loop); }
              requestAnimationFrame(() => { throw new Error('a callback that throws'); });
              requestAnimationFrame(loop);
              const cancelled = requestAnimationFrame(() => calls.push('cancelled'));
              cancelAnimationFrame(cancelled);
            </script>
            """), clock: .virtual) { page in
            // Until the driver's first step the engine's frames run the loop: one step first, so
            // that none runs between reading the count and the steps counted.
            _ = try await page.evaluate(ProbeScript.frame(ms: 1000.0 / 60).script)
            let start = try await Self.numbers(page, "[count]")[0]
            var times: [Double] = []
            for _ in 0..<30 {
                let json = try await page.evaluate(ProbeScript.frame(ms: 1000.0 / 60).script)
                let reading = try #require(ProbeReading.decode(json))
                #expect(reading.clock?.animationFrames == 1, "callbacks waiting: \(reading.clock?.animationFrames ?? -1)")
                times.append(try await Self.numbers(page, "[calls[calls.length - 1]]")[0])
            }
            let count = try await Self.numbers(page, "[count]")[0]
            #expect(count - start == 30, "\(count - start) frames for 30 steps")
            // A step is 1/60 s of the page's time plus the real time between two steps (a busy
            // machine's round trips), which stays under the engine frames' hold.
            for (a, b) in zip(times, times.dropFirst()) {
                #expect(b - a >= 1000.0 / 60 - 0.5 && b - a < 1000.0 / 60 + 500, "a step of \(b - a) ms")
            }
            #expect(try await page.evaluateInPage("calls.includes('cancelled')") == "false")
        }
    }

    /// Issue 57: a chain "a transition ends, a timer starts, the next transition" changes the
    /// page at the same page times on the virtual clock as on the real one (a jump stops at a
    /// running transition's end, so that its `transitionend` comes at its time): when the content
    /// first reached each slide's height, within a few frames.
    @Test func aTransitionChainChangesAtTheSamePageTimesOnBothClocks() async throws {
        func reached(_ clock: PageClockMode) async throws -> [Double] {
            var options = try CommandLineArguments.parse(["x"]).options
            options.clock = clock
            if clock == .real { options.until = .schedule }
            let report = try await PageHeightEngine.shared().measure(Self.fixture("time-transition-chain.html"), options: options)
            #expect(report.status == .ok && report.height == 1000, "\(clock): \(report.status.rawValue) \(report.height ?? -1)")
            return [700.0, 1000.0].compactMap { height in report.samples.first { ($0.height ?? 0) >= height - 0.5 }.map(\.t) }
        }
        let real = try await reached(.real)
        let virtual = try await reached(.virtual)
        #expect(real.count == 2 && virtual.count == 2, "real \(real), virtual \(virtual)")
        for (onReal, onVirtual) in zip(real, virtual) {
            #expect(abs(onReal - onVirtual) < 0.15, "real \(real), virtual \(virtual)")
        }
    }

    /// With the virtual clock's hooks in place and no jump taken (today's driver takes none), the
    /// page's time is real time: pages measure as on the real clock, through the whole engine.
    @Test(arguments: ["grow-2.5.html", "date-picks.html", "transition-2s.html", "spin-date.html", "timeout-zero-chain.html"])
    func withoutJumpsPagesMeasureAsOnTheRealClock(_ name: String) async throws {
        let fixture = try #require(try FixtureCase.cases(in: Self.pages).first { $0.pageName == name && $0.arguments.isEmpty })
        var options = try CommandLineArguments.parse(["x"]).options
        options.clock = .virtual
        let report = try await PageHeightEngine.shared().measure(Self.fixture(name), options: options)
        #expect(report.status.rawValue == fixture.status, "\(report.message ?? "")")
        #expect(report.height.map { Int($0.rounded()) } == fixture.height)
        #expect(report.strategies.once.height.map { Int($0.rounded()) } == fixture.once)
    }
}
