import Foundation
@testable import PageHeightBatch
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

/// The real engine over every fixture page in Pages/: each case the page declares must come
/// out as declared on both clocks, and the earliest stop (`--until quiet`) must give the same
/// answer as the default, which runs the whole schedule, wherever the page does not say otherwise.
@Suite(.serialized)
struct FixturePageTests {
    static let cases: [FixtureCase] = (try? FixtureCase.cases(in: FixtureCase.pagesDirectory)) ?? []
    static let server: FixtureServer? = try? FixtureServer(root: FixtureCase.pagesDirectory)

    @Test func everyPageDeclaresItsCases() throws {
        let cases = try FixtureCase.cases(in: FixtureCase.pagesDirectory)
        #expect(cases.count >= 16)
        #expect(Set(cases.map(\.pageName)).count >= 16)
    }

    /// On the real clock, in the case's mode (the default: `--clock real --until schedule`, the
    /// reference every other mode is held to).
    @Test(arguments: cases)
    func pageComesOutAsDeclared(_ fixture: FixtureCase) async throws {
        try comesOutAsDeclared(try await measure(fixture, clock: .real), fixture)
    }

    /// The page's virtual clock (`--clock virtual`, the default) gives every case the same answer:
    /// height, status and what each strategy shows.
    @Test(arguments: cases)
    func pageComesOutAsDeclaredOnTheVirtualClock(_ fixture: FixtureCase) async throws {
        let report = try await measure(fixture, clock: .virtual)
        try comesOutAsDeclared(report, fixture)
        #expect(report.options.clock == .virtual)
        if report.clockJumps != nil { #expect(report.timings.realTotal != nil) }
        if let realWithin = fixture.realWithin {
            let real = try #require(report.timings.realTotal, "\(fixture): no wall time")
            #expect(real <= realWithin, "\(fixture): \(real) s of wall time")
        }
    }

    /// Five runs of each fixture on the virtual clock: the same height and the same jumps to the
    /// page's own timers. (Not to the millisecond: the load, the network and a fit resize run in
    /// real time, and a page's timer is due counted from when its script ran; nor the jumps to the
    /// schedule's polls, whose number depends on how long that real work took.)
    @Test(arguments: cases.filter { $0.arguments.isEmpty })
    func theVirtualClockRepeats(_ fixture: FixtureCase) async throws {
        var runs: [(Double?, [String])] = []
        for _ in 0..<5 {
            let report = try await measure(fixture, clock: .virtual)
            // Jumps to one timer, and runs over periodic ones (`timers`).
            let timerJumps: [String] = (report.clockJumps ?? []).map(\.reason.rawValue).filter { $0 == "timer" || $0 == "timers" }
            runs.append((report.height, timerJumps))
        }
        #expect(Set(runs.map(\.0)).count == 1, "\(fixture): heights \(runs.map(\.0))")
        // Pages that wait on real work after the load (fonts, a fetch): whether a timer comes due
        // during that wait, in real time, or after it, by a jump, differs from run to run. So
        // does a zero-delay chain's next step, due every 4 ms of real time.
        // So does a 13 ms chain's (timer-steps-date): its steps that fall in a fit's real frame
        // run in real time, the others by jumps. Heights do not differ.
        let realWork = ["fonts-", "fetch-", "webfont", "timeout-zero-chain", "timer-steps-"].contains { fixture.pageName.hasPrefix($0) }
        #expect(realWork || Set(runs.map(\.1)).count == 1, "\(fixture): the jumps to the page's timers \(runs.map(\.1))")
    }

    /// The cases of the default stop whose page does not declare another height or schedule
    /// for the earliest stop with the same options (a page that changes after it would settle,
    /// such as ticker.html, says what that stop shows; so does quirks-shrink.html, whose
    /// content shrinks beneath the app's frame).
    /// time-raf-lines.html adds a line every tenth frame for 4 s: on the real clock the number of
    /// readings the schedule's polls take in that time depends on the frame rate the page got, so
    /// only its heights are compared (on both clocks, `pageComesOutAsDeclared`).
    static let earliestStopAgrees = cases.filter { fixture in
        // time-async-work's chains take real time, which decides how many polls land between
        // their ends, on either clock: its final height is checked on both (`pageComesOutAsDeclared`).
        !["time-raf-lines.html", "time-async-work.html"].contains(fixture.pageName) && !fixture.arguments.contains("--until")
            && !cases.contains { other in
            other.pageName == fixture.pageName && other.arguments == fixture.arguments + ["--until", "quiet"]
                && (other.height != fixture.height || other.schedule != fixture.schedule)
        }
    }

    /// The earliest stop (`--until quiet`) stops as soon as the page settled, taking the
    /// schedule's later polls to read the settled value. On a page that does not change after
    /// that, running the whole schedule (the default) must not change the answer. The whole
    /// schedule runs on the page's virtual clock, which takes its 5.3 s at the speed of layout, the
    /// earliest stop on the real clock: a difference here is the settle rule's or the virtual
    /// clock's (the fixture tables on either clock tell which).
    /// Pages on which one of the schedule's polls lands in the middle of an animation.
    static let pollsMidAnimation = ["raf-slide", "raf-frame-counted", "timer-steps-date"]

    @Test(arguments: earliestStopAgrees)
    func theEarliestStopAgreesWithTheWholeSchedule(_ fixture: FixtureCase) async throws {
        let quick = try await measure(fixture, until: .quiet, clock: .real)
        let full = try await measure(fixture, clock: .virtual)
        #expect(full.options.until == .schedule)
        #expect(quick.status == full.status, "\(fixture)")
        guard quick.status != .unstable else {
            // Still moving at the timeout: what a poll reads depends on when it lands against the
            // page's own timer, in either mode. The answer is the same within a few steps.
            #expect(abs((quick.height ?? 0) - (full.height ?? 0)) <= 60, "\(fixture)")
            return
        }
        #expect(quick.height == full.height, "\(fixture)")
        for (name, a, b) in [("once", quick.strategies.once, full.strategies.once),
                             ("schedule", quick.strategies.schedule, full.strategies.schedule),
                             ("observe", quick.strategies.observe, full.strategies.observe)] {
            #expect(a.height == b.height, "\(fixture) \(name): \(a.height ?? -1) vs \(b.height ?? -1)")
            if name == "observe" {
                // Observed jumps follow animation frames; their values are not reproducible.
            } else if Self.pollsMidAnimation.contains(where: fixture.pageName.hasPrefix) {
                // A poll lands while the page animates on frames or 13 ms steps: what it reads on
                // the real clock depends on the frame rate it got and on how late the poll ran.
                #expect(a.jumps.count == b.jumps.count, "\(fixture) \(name) jumps: \(a.jumps.map(\.height)) vs \(b.jumps.map(\.height))")
                #expect(a.jumps.first?.height == b.jumps.first?.height && a.jumps.last?.height == b.jumps.last?.height, "\(fixture) \(name) jumps")
            } else {
                #expect(a.jumps.map(\.height) == b.jumps.map(\.height), "\(fixture) \(name) jumps")
            }
        }
        // The whole schedule runs to its last poll, 5.3 s after the load finished. A page that
        // settled before then is let go before then by the earliest stop; one that moves later
        // (grow-6.5) ends at the same point in both modes, so only the first case has an earlier
        // stop to check. (A runaway stops at its proof in both modes.) Checked against the
        // schedule's own end, not against the other run's clock, which a loaded machine moves.
        // (A page whose fonts held the verdict until they were given up on, fonts-never-answer,
        // waited for pending work, not for a move.)
        let lastPoll = GrowingDelaySchedule.readerApp.duration
        if quick.status == .ok, quick.gaveUp == nil, let finished = quick.timings.finished, let moved = lastMove(quick.samples),
           moved + quick.options.quiet + 1 < finished + lastPoll {
            #expect(quick.timings.settledAt != nil, "\(fixture): the earliest stop did not stop at the settle")
            #expect(quick.timings.total < finished + lastPoll,
                    "\(fixture): last moved at \(moved) s, let go only at \(quick.timings.total) s")
        }
        if full.status == .ok, let finished = full.timings.finished, let settled = full.timings.settledAt {
            #expect(settled >= finished + lastPoll - 0.001, "\(fixture): the default settled at \(settled) s, before the last poll")
        }
    }

    private func comesOutAsDeclared(_ report: PageReport, _ fixture: FixtureCase) throws {
        #expect(report.status.rawValue == fixture.status, "\(fixture): \(report.message ?? "")")
        if let height = fixture.height {
            let actual = try #require(report.height, "\(fixture): no height")
            #expect(fixture.matches(Int(actual.rounded()), height), "\(fixture): height \(actual)")
        }
        if let once = fixture.once {
            #expect(report.strategies.once.height.map { Int($0.rounded()) } == once, "\(fixture): once")
        }
        if let schedule = fixture.schedule {
            #expect(report.strategies.schedule.height.map { Int($0.rounded()) } == schedule, "\(fixture): schedule")
        }
        if let observe = fixture.observe {
            #expect(report.strategies.observe.height.map { Int($0.rounded()) } == observe, "\(fixture): observe")
        }
        if let missed = fixture.missed {
            #expect(report.scheduleMissed == missed, "\(fixture): scheduleMissed")
            if missed { #expect(report.message?.contains("schedule would show") == true) }
        }
        if let within = fixture.within {
            let settled = try #require(report.timings.settledAt, "\(fixture): not settled: \(report.message ?? "")")
            #expect(settled <= within, "\(fixture): settled at \(settled) s")
        }
        if let gaveUp = fixture.gaveUp {
            #expect((report.gaveUp != nil) == gaveUp, "\(fixture): gaveUp \(report.gaveUp ?? "none")")
        }
        if let culprit = fixture.culprit {
            let culprits = report.viewDependence?.culprits ?? []
            #expect(culprits.contains { $0.contains(culprit) }, "\(fixture): culprits \(culprits)")
        }
        if let law = fixture.law {
            let slope = try #require(report.viewDependence?.law?.slope, "\(fixture): no view law")
            #expect(abs(slope - law) <= 0.05, "\(fixture): law slope \(slope)")
        }
        if fixture.steps != nil || fixture.stepStatus != nil {
            let steps = report.steps ?? []
            let statuses = fixture.stepStatus ?? Array(repeating: "ok", count: fixture.steps?.count ?? 0)
            #expect(steps.map(\.status.rawValue) == statuses, "\(fixture): steps \(steps.map { "\($0.step) \($0.status) \($0.message ?? "")" })")
            if let heights = fixture.steps {
                #expect(steps.map { $0.height.map { Int($0.rounded()) } } == heights.map(Optional.some), "\(fixture): step heights \(steps.map(\.height))")
            }
            for (index, step) in steps.enumerated() where step.status == .ok {
                #expect(report.samples.contains { $0.step == index + 1 }, "\(fixture): no reading of step \(index + 1)")
                #expect(step.strategies?.observe.error == 0, "\(fixture): observe after step \(index + 1)")
            }
        }
        if report.status == .ok {
            #expect(report.timings.settledAt != nil || report.message != nil)
            #expect(report.samples.contains { $0.source == .load })
            #expect(report.metrics != nil)
        }
        if report.status == .fallback {
            let estimate = try #require(report.estimate, "\(fixture): fallback without an estimate")
            #expect(report.height == estimate.height)
            #expect(!estimate.reason.isEmpty)
        }
    }

    /// When the page's height last changed, seconds since the load started.
    private func lastMove(_ samples: [HeightSample]) -> Double? {
        let readings = samples.filter { $0.height != nil }.sorted { $0.t < $1.t }
        let moves = readings.indices.dropFirst().filter { readings[$0].height != readings[$0 - 1].height }
        return moves.last.map { readings[$0].t } ?? readings.first?.t
    }

    /// The layout WebKit runs right after the load event, before it reports the load finished,
    /// is timed as the engine's work: layout-after-load.html adds 500 paragraphs in its load
    /// handler, which takes WebKit tens of milliseconds to lay out.
    @Test func theLayoutAfterTheLoadEventIsTheEnginesWork() async throws {
        let options = try CommandLineArguments.parse(["x"]).options
        let page = FixtureCase.pagesDirectory.appendingPathComponent("layout-after-load.html").path
        let report = try await PageHeightEngine.shared().measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 20000)
        let engine = try #require(report.engine)
        let loadEventEnd = try #require(engine.loadEventEnd)
        let loadLayout = try #require(engine.loadLayout)
        let loadWorkEnd = try #require(engine.loadWorkEnd)
        let finished = try #require(report.timings.finished)
        // 44-53 ms on the 2-core machine; a pass run after WebKit's own would find nothing to
        // lay out (well under a millisecond), so a few milliseconds tell the two apart on a
        // machine several times faster.
        #expect(loadLayout >= 0.004, "the pass took \(loadLayout) s")
        // The pass starts as the load event ends (page clocks tick in whole milliseconds) and
        // ends before WebKit reports the load finished.
        #expect(abs(loadWorkEnd - (loadEventEnd + loadLayout)) <= 0.002)
        #expect(loadWorkEnd <= finished + 0.002)
        #expect(report.overhead != nil)
    }

    /// Measures the fixture in its case's mode on `clock`, with the stop rule `until` in place of
    /// the case's or the default when given.
    private func measure(_ fixture: FixtureCase, until: StopRule? = nil, clock: PageClockMode) async throws -> PageReport {
        var arguments = try CommandLineArguments.parse(fixture.arguments + ["x"])
        if let until { arguments.options.until = until }
        arguments.options.clock = clock
        let source: PageSource
        if fixture.servedOverHTTP {
            let server = try #require(Self.server)
            source = .url(server.url(for: fixture.pageName).absoluteString)
        } else {
            source = .file(fixture.page.path)
        }
        return try await PageHeightEngine.shared().measure(source, options: arguments.options)
    }
}

/// Log lines collected from the engine's thread.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

final class LockedMaximum: @unchecked Sendable {
    private let lock = NSLock()
    private var maximum = 0
    func record(_ value: Int) { lock.lock(); maximum = max(maximum, value); lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return maximum }
}
