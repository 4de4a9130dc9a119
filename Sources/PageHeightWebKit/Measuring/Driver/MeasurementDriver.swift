import Foundation
import PageHeightCore

/// Measures one page in one view, top to bottom: load, wait for the load to finish, read, then
/// fit, poll and settle until the session says the page is done; the steps (`StepRunner`); then
/// the final metrics, the report, and the view back to its pool.
///
/// Every fact goes to the `MeasurementSession`, which decides; the driver only does what the
/// session asks of the view. The parts: `MeasuredPage` (the page's time, probe calls, readings),
/// `PageEvents` (what the view tells), `SettleLoop` (polls, settle checks, waits), `VirtualClock`
/// (where a jump is decided and taken), `ViewFitting` (fit mode's resizes and checks),
/// `StepRunner` (where a step is applied). Each phase (the load and its verdict, a step
/// and its verdict) runs under one `Deadline`, `--timeout` after its start; a caller's
/// cancellation ends the measurement as `cancelled`.
@GLibActor
final class MeasurementDriver {
    private let page: MeasuredPage
    private let fitting: ViewFitting
    private let snapshotPath: String?
    private let pool: ViewPool
    /// The content filters that keep the page inside its `SubresourceBoundary`.
    private let boundary: Boundary
    private let freshView: Bool
    /// Told the moment the page has its verdict, before its report is made.
    private let verdictReached: (@Sendable () -> Void)?

    private let events: PageEvents
    private let loop: SettleLoop
    /// The first targets of the page's stopped navigations (`PageText.listKept`), and how many.
    var stoppedNavigations: [String] { events.stoppedNavigations }
    var stoppedNavigationsTotal: Int { events.stoppedNavigationsTotal }

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
        let clock = VirtualClock(page: page)
        fitting = ViewFitting(page: page, clock: clock, snapshots: snapshotPath != nil)
        events = PageEvents(page: page)
        loop = SettleLoop(page: page, clock: clock, fitting: fitting, events: events)
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

    /// Starts a phase's rules afresh (`SettleLoop.startPhase`).
    func startPhase() { loop.startPhase() }

    /// The measuring loop of the phase (`SettleLoop`).
    func settle() async throws -> EndReason { try await loop.settle() }


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
        if case .ended(let end) = try await events.waitForLoad() { return end }
        guard options.javascript else { return .javascriptDisabled }
        try await page.read(.load)
        return try await settle()
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
        if usable { builder.faces = await fontUses() }
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

    /// Under a device profile, which face stood in for each family the page's text asks for
    /// (within a second); nil on the desktop, whose faces are the pinned set's own.
    private func fontUses() async -> [FontUse]? {
        let device = DeviceFonts.of(options.deviceProfile.name)
        guard device != .desktop else { return nil }
        let seen = await firstOf(within: MeasuredPage.stallAfter, fallback: nil) {
            try? await self.page.evaluate(ProbeScript.fontFamilies).get()
        }
        return seen.map { FontUse.uses($0, device: device) }
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
