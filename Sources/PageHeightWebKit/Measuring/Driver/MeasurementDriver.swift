import Foundation
import PageHeightCore

/// Measures one page in one view, top to bottom: load, wait for the load to finish, read, then
/// fit, poll and settle until the session says the page is done; the steps (`StepRunner`); then
/// the final metrics, the report, and the view back to its pool.
///
/// Every fact goes to the `MeasurementSession`, which decides; the driver only does what the
/// session asks of the view. The parts: `MeasuredPage` (the page's time, probe calls, readings),
/// `VirtualClock` (where a jump is decided and taken), `ViewFitting` (fit mode's resizes and
/// checks), `StepRunner` (where a step is applied). Each phase (the load and its verdict, a step
/// and its verdict) runs under one `Deadline`, `--timeout` after its start; a caller's
/// cancellation ends the measurement as `cancelled`.
@GLibActor
final class MeasurementDriver {
    private let page: MeasuredPage
    private let clock: VirtualClock
    private let fitting: ViewFitting
    private let snapshotPath: String?
    private let pool: ViewPool
    /// The content filters that keep the page inside its `SubresourceBoundary`.
    private let boundary: Boundary
    private let freshView: Bool
    /// Told the moment the page has its verdict, before its report is made.
    private let verdictReached: (@Sendable () -> Void)?

    /// The schedule poll to take next (an index into `session.pollTimes`).
    private var nextPoll = 0
    /// What kept the page from being idle when the clock last waited in real time (logged once).
    private var lastIdleBlocker: String?
    /// A load that failed and may be replaced by another (a redirect by script): its failure and
    /// until when (page time) a replacement may come.
    private var interrupted: (failure: String, deadline: Double)?
    /// The first targets of the page's stopped navigations (`PageText.listKept`), and how many.
    private(set) var stoppedNavigations: [String] = []
    private(set) var stoppedNavigationsTotal = 0

    private var view: PageView { page.view }
    private var options: MeasureOptions { page.options }
    private var session: MeasurementSession {
        get { page.session }
        set { page.session = newValue }
    }

    init(pool: ViewPool, view: PageView, source: PageSource, boundary: Boundary, options: MeasureOptions,
         snapshotPath: String?, freshView: Bool = false, log: @escaping @Sendable (String) -> Void,
         verdictReached: (@Sendable () -> Void)? = nil) {
        (self.verdictReached, self.pool, self.boundary, self.snapshotPath, self.freshView)
            = (verdictReached, pool, boundary, snapshotPath, freshView)
        page = MeasuredPage(view: view, source: source, options: options, log: log)
        clock = VirtualClock(page: page)
        fitting = ViewFitting(page: page, clock: clock, snapshots: snapshotPath != nil)
    }

    private func note(_ text: String) { page.note(text) }

    func run() async -> PageReport {
        // A filter given to a view takes effect in its web process some time later: a page loaded
        // at once would have some of its requests filtered and some not, differently each run.
        // A blank page loaded after the change comes back only once the web process has it.
        // A new view has no history yet: its blank page makes the history every page starts from.
        if view.adopt(boundary) || (options.javascript && !view.hasHistoryBase) {
            _ = await view.blank(height: Double(options.height))
        }
        view.setHooks(virtual: page.virtualClock, device: options.deviceProfile)
        view.setDrawn(snapshotPath != nil || PageView.drawsEveryPage)
        page.start()
        await addCookies()
        view.inbox.clear()
        let (reason, endedAt) = await phase(from: page.startedAt) { try await self.measure() }
        note("ended: \(reason)")
        let steps = options.steps ?? []
        if steps.isEmpty {
            pool.verdictReached(view, options: options)
            verdictReached?()
        }
        var report = await report(for: reason, endedAt: endedAt)
        var last = reason
        if !steps.isEmpty {
            let runner = StepRunner(page: page, fitting: fitting, driver: self)
            (report.steps, last) = await runner.run(steps, after: reason, base: report)
            report.samples = session.samples
            report.clockJumps = session.clockJumps.isEmpty ? nil : session.clockJumps
            view.restoreSettings(height: Double(options.height))
            pool.verdictReached(view, options: options)
            verdictReached?()
        }
        giveBack(after: last)
        return report
    }

    /// Runs one phase (`body`) under a deadline `--timeout` after `start` (monotonic seconds: the
    /// load's start, or a step's); its end and when it came (page time). The phase's waits throw
    /// when the deadline passes (a timeout) or the caller cancels (`cancelled`).
    func phase(from start: Double, _ body: @escaping @Sendable @GLibActor () async throws -> EndReason) async -> (EndReason, Double) {
        let deadline = Deadline(at: start + options.timeout)
        page.begin(deadline)
        defer { page.begin(.never) }
        do {
            let end = try await deadline.run(body)
            return (end.reached(atReal: GLibClock.now - start, timeout: options.timeout, stalledSince: page.stalledSince), page.now)
        } catch Interruption.cancelled {
            note("cancelled by the caller")
            return (.cancelled, page.now)
        } catch {
            note(page.virtualClock ? "the real-time cap passed: \(Seconds.format(options.timeout)) on the wall clock"
                : "timeout after \(Seconds.format(options.timeout))")
            return (.timedOut(stalledSince: page.stalledSince), page.now)
        }
    }

    /// Starts a phase's rules afresh: the schedule's polls from the first, fit mode's look
    /// beneath the view not yet taken.
    func startPhase() {
        nextPoll = 0
        lastIdleBlocker = nil
        fitting.lookedBeneathView = false
    }

    /// Puts the page's cookies (`--cookie`, `--cookies`) into the view's data store before its
    /// load: only those for the page's own host (`PageRequests.cookies(forHost:)`; none for a
    /// file page), a cookie without a domain for that host.
    private func addCookies() async {
        guard let requests = options.requests, !requests.cookies.isEmpty else { return }
        guard case .url(let text) = page.source, let host = URLComponents(string: text)?.host?.lowercased() else {
            note("cookies: none for a page without a host")
            return
        }
        let cookies = requests.cookies(forHost: host)
        // All at once: each add is a round trip to the network process, and thousands one after
        // the other would take a page's time.
        let failures = await withTaskGroup(of: String?.self, returning: [String].self) { [view] group in
            for cookie in cookies {
                group.addTask { [view, host, cookie] in await view.add(cookie, host: host).map { "cookie \(cookie.name) not added: \($0)" } }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        failures.forEach(note)
        let others = requests.cookies.count - cookies.count
        note("cookies " + (cookies.isEmpty ? "none" : cookies.map(\.name).joined(separator: ", ") + " (values not logged)")
            + (others == 0 ? "" : "; \(others) for other hosts left out"))
    }

    /// Load, first reading, settle.
    private func measure() async throws -> EndReason {
        let source = page.source
        note("loading \(source.url.prefix(200))\(options.offline ? " (offline, \(options.offlineMode.rawValue))" : "")"
            + (view.uses > 0 ? " in a view reused after \(view.uses) page\(view.uses == 1 ? "" : "s")"
               : view.renewed ? " in a reused view with a new web process" : " in a new view"))
        view.load(source, headers: options.requests?.headers ?? [])
        if let pid = view.webProcess {
            note("web process \(pid)")
        } else if let pid = view.startedProcess {
            note("web process starting in its sandbox, run by bubblewrap \(pid)")
        }
        if let headers = options.requests?.headers, !headers.isEmpty {
            note("request header\(headers.count == 1 ? "" : "s") " + headers.map(\.name).joined(separator: ", ") + " (values not logged)")
        }
        if case .ended(let end) = try await waitForLoad() { return end }
        guard options.javascript else { return .javascriptDisabled }
        try await page.read(.load)
        return try await settle()
    }

    // MARK: - Events

    /// Handles the view's events until the load finished, or the page ended first.
    private func waitForLoad() async throws -> Flow {
        // An interrupted load is followed by its load-finished: a replacement may still come.
        while session.finishedAt == nil || (interrupted != nil && session.committedAt == nil) {
            guard let event = try await page.nextEvent(until: interrupted.map { page.wallClock($0.deadline) }) else {
                if let interrupted, session.committedAt == nil { return .ended(.loadFailed(interrupted.failure)) }
                interrupted = nil
                continue
            }
            if case .ended(let reason) = handle(event) { return .ended(reason) }
        }
        return .goOn
    }

    /// Takes in one event of the view: the page's end, or go on.
    private func handle(_ event: ViewEvent) -> Flow {
        switch event {
        case .load(let load):
            return loadChanged(load).map(Flow.ended) ?? .goOn
        case .loadFailed(let uri, let domain, let code, let message):
            switch LoadOutcome.failure(uri: uri, domain: domain, code: code, message: message,
                                       committed: session.committedAt != nil,
                                       navigationsStopped: !stoppedNavigations.isEmpty,
                                       offline: options.offline ? options.offlineMode : nil) {
            case .ignored: return .goOn
            case .waitForReplacement(let failure):
                note("load interrupted; waiting for a load that replaces it")
                interrupted = (failure, page.now + LoadOutcome.replacementWait)
                return .goOn
            case .failed(let failure):
                note("load failed: \(message)")
                return .ended(.loadFailed(failure))
            }
        case .processTerminated(let end):
            let killed = MemoryWatchdog.shared.killed(view.webProcess)
            view.retire()
            if case .budget(let message)? = killed { return .ended(.crashed(message)) }
            return .ended(.crashed(LoadOutcome.crash(end, killedByWatchdog: killed != nil)))
        case .probeMessage(let json):
            probeMessage(json)
            return .goOn
        case .navigationLoop(let attempts):
            note("the page started \(attempts) navigations after its load: a loop, stopped")
            view.renewAfterThisPage() // what WebKit keeps of the navigations goes with the process
            return .ended(.navigationLoop(attempts: attempts))
        }
    }

    private func loadChanged(_ load: ViewEvent.Load) -> EndReason? {
        switch load {
        case .started where session.committedAt != nil:
            // The page navigating away, which the view stopped at once (`PageView.Inbox`): the
            // page is measured as it was.
            let target = view.inbox.lastNavigationTarget
            stoppedNavigationsTotal += 1
            if stoppedNavigations.count < PageText.listKept { stoppedNavigations.append(target) }
            note("the page navigated to \(target.prefix(200)): stopped")
            session.stoppedLoads(at: page.now)
        case .committed where session.committedAt == nil:
            session.loadCommitted(at: page.now)
            note("committed \(view.uri.prefix(200))")
            if let (code, reason) = view.httpStatus, code >= 400 {
                return .loadFailed("HTTP \(code) \(reason) loading \(page.source.url.prefix(200))")
            }
            if case .url(let url) = page.source, url.lowercased().hasPrefix("http"), view.uri == "about:blank" {
                // WebKit refuses some URLs without a load-failed (a restricted port such as
                // :1 or :25) and shows an empty page instead.
                return .loadFailed("WebKit refused to load \(url.prefix(200)) (a restricted port?) and showed about:blank")
            }
        case .finished where session.finishedAt == nil:
            if page.realNow > options.timeout {
                // The deadline's own wake-up is late (a busy machine): the load did not finish in time.
                note("the load finished after the timeout (\(Seconds.format(options.timeout)) on the wall clock)")
                return .timedOut(stalledSince: nil)
            }
            session.loadFinished(at: page.now)
            note("load finished")
        default:
            break
        }
        return nil
    }

    private func probeMessage(_ json: String) {
        guard session.committedAt != nil, let reading = ProbeReading.decode(json) else { return }
        if reading.notThePage == true, !page.source.url.hasPrefix("about:") {
            return note("a message from the view's blank document, not the page's: ignored")
        }
        let t = page.now
        page.noteClock(reading, at: t)
        let cause = reading.cause.map { PageText.capped($0, to: PageText.kept) }
        let sample = HeightSample(t: t, height: reading.value, source: .observer, cause: cause, real: page.real)
        let moved = session.record(sample, pending: reading.pendingWork(at: t, network: view.requestsInFlight))
        if moved { page.timers.frames.pageMoved(value: reading.value) }
        note(page.describe(sample, moved: moved, error: nil) + "; pending: \(session.pending.summary)")
    }

    // MARK: - Settling

    /// After the load or a step: handles events, takes the schedule's polls and the settle
    /// checks, fits the view, and jumps the virtual clock, until the session says the page is done.
    func settle() async throws -> EndReason {
        while true {
            // What the page told meanwhile (during a fit, a reading) comes first.
            while let event = view.inbox.take() {
                if case .ended(let reason) = handle(event) { return reason }
            }
            switch try await afterReading() {
            case .ended(let reason): return reason
            case .again: continue
            case .goOn: break
            }
            if page.virtualClock, page.now >= session.deadline { return .timedOut(stalledSince: nil) }
            let (at, precise, wake) = nextWake()
            if case .ended(let reason) = try await wait(until: at, precise: precise, wake: wake) { return reason }
        }
    }

    /// Readings the rules asked for at once, one after another, with no time between them.
    private var readingsAtOnce = 0
    /// After this many, the next waits at least a frame: no loop of readings without a wait.
    private static let readingsAtOnceAllowed = 8

    /// Waits for `at` (page time): jumps the virtual clock there, or waits for the view's events
    /// in real time, and takes the reading `wake` names when `at` came with no event first.
    private func wait(until at: Double, precise: Bool, wake: VirtualClock.Wake) async throws -> Flow {
        if at <= page.now {
            readingsAtOnce += 1
            if readingsAtOnce > Self.readingsAtOnceAllowed {
                if readingsAtOnce == Self.readingsAtOnceAllowed + 1 {
                    note("the rules asked for \(Self.readingsAtOnceAllowed) readings in a row at once: the next wait a frame each")
                }
                try await page.sleep(VirtualClock.frame)
            }
        } else {
            readingsAtOnce = 0
        }
        if page.virtualClock, let jump = clock.jumpTarget(before: at, wake: wake, nextPoll: nextPoll) {
            try await clock.take(jump)
            return .again
        }
        if clock.timerDue || clock.animationEndDue, at > page.now + VirtualClock.frame,
           session.pageIsIdle(network: view.requestsInFlight, at: page.now) {
            // A timer of the page came due and has not run yet, or an animation reached its end
            // and the engine's next frame has not finished it: nothing jumps over it, and the page
            // may tell nothing when it has run. Look again soon (2 ms of real time for a timer, a
            // frame for an animation), not at `at`: waiting for it would run the page's clock at
            // real speed.
            let look = clock.timerDue ? 0.002 : VirtualClock.frame
            if let event = try await page.nextEvent(until: GLibClock.now + look) { return handle(event) }
            try await page.refreshPending(cause: "timer")
            return .again
        }
        let blocker = page.virtualClock ? session.idleBlocker(network: view.requestsInFlight, at: page.now) : nil
        if let blocker, blocker != lastIdleBlocker { note("the clock runs at real speed: \(blocker)") }
        lastIdleBlocker = blocker
        // A child frame's grace may end before `at`: the clock jumps again from there.
        let graceEnds = page.virtualClock ? session.frameGraceEnds.flatMap { $0 > page.now && $0 < at ? $0 : nil } : nil
        if let event = try await page.nextEvent(until: page.wallClock(graceEnds ?? at), precise: precise) { return handle(event) }
        if graceEnds != nil { return .again }
        switch wake {
        case .poll(let index):
            nextPoll = index
            try await page.read(.poll, poll: index)
        case .settleCheck:
            try await page.read(.poll, cause: "settle-check")
        case .refreshPending:
            try await page.refreshPending(cause: "pending-check")
        }
        return .goOn
    }

    /// The next poll, or the settle check when due first; while work is pending, a look when the
    /// next timer is due, or soon in case a message was lost (the probe also reports when the
    /// pending work ends).
    private func nextWake() -> (at: Double, precise: Bool, VirtualClock.Wake) {
        let now = page.now
        var next: (at: Double, precise: Bool, VirtualClock.Wake)
        if let due = session.settleCheckAt {
            next = (due, true, .settleCheck)
        } else {
            let nextTimer = session.pending.timers.min().map { $0 - now + 0.05 } ?? 0.5
            next = (now + min(max(nextTimer, 0.05), 0.5), false, .refreshPending)
        }
        // A poll comes first when it is due before the other wake, or already due (`afterReading`
        // has it read first, at its time, as the app reads it).
        let polls = session.pollTimes
        if nextPoll < polls.count, polls[nextPoll] <= max(next.at, now) {
            next = (polls[nextPoll], false, .poll(nextPoll + 1))
        }
        return next
    }

    /// After every reading: fit the view while the page holds still (resizing on every frame of
    /// a transition, or of an animation whose frames are stepped, is wasted work), else check
    /// for the end.
    /// A page that keeps moving (an animation the engine does not list, such as one on animation
    /// frames) is fitted again after every fit; a poll that came due meanwhile is read first, at
    /// its time, as the app reads it.
    private func afterReading() async throws -> Flow {
        if nextPoll < session.pollTimes.count, session.pollTimes[nextPoll] <= page.now { return .goOn }
        if session.finishedAt != nil, session.pending.animations == 0, !clock.animating, !clock.timerDue,
           let target = session.fitTarget {
            return try await fitting.fit(to: target)
        }
        guard session.isSettled(at: page.now) else { return .goOn }
        if try await fitting.contentShrankBeneathView() { return .again }
        if !session.needsViewCheck { return .ended(.settled) }
        return try await fitting.checkViewAtCap()
    }

    // MARK: - The end

    /// The report: the session's verdict, with the final metrics, the page's text when the
    /// verdict falls back to it, and the snapshot.
    private func report(for reason: EndReason, endedAt: Double) async -> PageReport {
        var builder = ReportBuilder(url: page.source.url, session: session, end: reason, endedAt: endedAt)
        builder.realEnd = page.virtualClock ? endedAt - page.clockOffset : nil
        builder.engine = page.engineWork
        builder.verdictDue = session.settleCheckAt
        builder.verdictLayout = page.lastLayoutSeconds
        builder.stoppedNavigations = stoppedNavigations
        builder.stoppedNavigationsTotal = stoppedNavigationsTotal
        let usable = reason.pageCanAnswer(loadFinished: session.finishedAt != nil)
        let reading = usable ? await finalReading() : nil
        builder.metrics = reading?.metrics
        if let margins = reading?.bodyMargins, margins.count == 2 { builder.bodyMargins = (margins[0], margins[1]) }
        builder.quirksMode = reading?.compatMode.map { $0 == "BackCompat" }
        builder.failedResources = FailedResource.merging(view.failedResources, pageSaw: reading?.resourceErrors ?? [],
                                                          offline: options.offline ? options.offlineMode : nil)
        if case .timedOut = reason {
            builder.requestsInFlight = view.requestsAtEnd
            if let note = builder.requestsInFlight?.note(offline: options.offline, page: page.source.url) { self.note(note) }
        }
        if builder.verdict().0 == .fallback { builder.text = await pageText() }
        var report = builder.build()
        if let snapshotPath {
            let error = usable || reason == .javascriptDisabled
                ? await firstOf(within: 10, fallback: "the snapshot did not arrive within 10 s") {
                    await self.view.snapshot(to: snapshotPath)
                }
                : "the page could not be drawn"
            if let error { report.snapshotError = error } else { report.snapshot = snapshotPath }
        }
        note("report: \(report.status.rawValue) \(report.height.map { Pixels.format($0) } ?? "-")")
        return report
    }

    /// A final reading with all metrics side by side and the document's mode, within a second.
    private func finalReading() async -> ProbeReading? {
        await firstOf(within: MeasuredPage.stallAfter, fallback: nil) {
            try? await self.page.evaluate(ProbeScript.measureAll).get()
        }
    }

    /// The page's plain text for the fallback estimate: from the input when we have it, else
    /// from the loaded main resource (within a second).
    private func pageText() async -> PlainText? {
        switch page.source {
        case .html(let html, _, _, _):
            return PlainText(html: html)
        case .file(let path):
            if let data = FileManager.default.contents(atPath: path) {
                return PlainText(html: String(decoding: data, as: UTF8.self))
            }
        case .url:
            break
        }
        return await firstOf(within: MeasuredPage.stallAfter, fallback: nil) {
            await self.view.mainResourceData().map { PlainText(html: String(decoding: $0, as: UTF8.self)) }
        }
    }

    /// Gives the view back to its pool, or retires it: a crashed one, one used for a single
    /// page, and one whose page may still be spinning (a timeout), whose web process must not
    /// measure the next page nor outlive us. Returns once the view is back (blank, a few ms).
    /// A cancelled page's view goes back like a measured one: its web process is healthy.
    private func giveBack(after reason: EndReason) {
        if case .crashed = reason { view.retire() }
        if freshView { view.retire() }
        if case .timedOut = reason {
            view.terminateWebProcess()
            view.retire()
        }
        pool.checkin(view, options: options)
    }
}
