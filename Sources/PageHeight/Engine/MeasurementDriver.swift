import Foundation

/// Measures one page in one view, as a sequence: load, wait for the load to finish, read,
/// then fit, poll and settle until the session says the page is done; then the final metrics,
/// the report, and the view back to its pool. The timeout is a task that cancels the steps.
///
/// Every fact goes to the `MeasurementSession`, which decides; this type only does what the
/// session asks of the view.
@GLibActor
final class MeasurementDriver {
    private let source: PageSource
    private let options: MeasureOptions
    private let snapshotPath: String?
    private let log: @Sendable (String) -> Void
    private let pool: ViewPool
    /// The content filter that keeps the page inside its `SubresourceBoundary`.
    private let boundary: OpaquePointer
    private let freshView: Bool
    private let view: PageView

    private var session: MeasurementSession
    private var startedAt = 0.0
    private var startedEpoch = 0.0
    private var outstanding: [Int: Double] = [:] // evaluation id -> start time
    private var nextEvaluation = 0
    /// The schedule poll to take next (an index into `session.pollTimes`).
    private var nextPoll = 0
    private var stoppedNavigations: [String] = []
    private var engineWork = EngineWork()
    private var lastLayoutSeconds = 0.0

    /// An evaluation that has not returned within this many seconds counts as stalled.
    private static let stallAfter = 1.0

    init(pool: ViewPool, source: PageSource, boundary: OpaquePointer, options: MeasureOptions, snapshotPath: String?,
         freshView: Bool = false, log: @escaping @Sendable (String) -> Void) {
        self.pool = pool
        self.source = source
        self.boundary = boundary
        self.options = options
        self.snapshotPath = snapshotPath
        self.freshView = freshView
        self.log = log
        self.session = MeasurementSession(options: options)
        self.view = pool.checkout(options, fresh: freshView)
    }

    private var now: Double { GLibClock.now - startedAt }

    private func note(_ text: String) {
        log(String(format: "%7.3f s  ", now) + text)
    }

    func run() async -> PageReport {
        // A filter given to a view takes effect in its web process some time later: a page loaded
        // at once would have some of its requests filtered and some not, differently each run.
        // A blank page loaded after the change comes back only once the web process has it.
        if view.adopt(boundary) { _ = await view.blank(height: Double(options.height)) }
        view.inbox.clear()
        startedAt = GLibClock.now
        startedEpoch = Date().timeIntervalSince1970
        let (reason, endedAt) = await measureWithinTimeout()
        note("ended: \(reason)")
        let report = await report(for: reason, endedAt: endedAt)
        await giveBack(after: reason)
        return report
    }

    /// The measuring steps, raced against the timeout, which cancels them; with when it ended.
    private func measureWithinTimeout() async -> (EndReason, Double) {
        await withTaskGroup(of: (EndReason, Double)?.self) { group in
            group.addTask { await self.measureUntilCancelled() }
            group.addTask { await self.timeout() }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The other child ends soon: every wait of the steps returns when cancelled.
            while let other = await group.next() {
                if first == nil, let other { return other }
            }
            return first ?? (.timedOut(stalledSince: stalledSince), now)
        }
    }

    private func measureUntilCancelled() async -> (EndReason, Double)? {
        await measure().map { ($0, now) }
    }

    private func timeout() async -> (EndReason, Double)? {
        await GLibClock.sleep(options.timeout)
        guard !Task.isCancelled else { return nil }
        note("timeout after \(Seconds.format(options.timeout))")
        return (.timedOut(stalledSince: stalledSince), now)
    }

    /// Load, first reading, settle. Nil when cancelled (the timeout passed).
    private func measure() async -> EndReason? {
        note("loading \(source.url.prefix(200))\(options.offline ? " (offline, \(options.offlineMode.rawValue))" : "")"
            + (view.uses > 0 ? " in a view reused after \(view.uses) page\(view.uses == 1 ? "" : "s")"
               : view.renewed ? " in a reused view with a new web process" : " in a new view"))
        view.load(source)
        if let end = await waitForLoad() { return end }
        guard !Task.isCancelled else { return nil }
        guard options.javascript else { return .javascriptDisabled }
        await read(.load)
        return await settle()
    }

    // MARK: - Events

    private enum Handling {
        case handled
        case end(EndReason)
        case waitForReplacement(String)
    }

    /// Handles the view's events until the load finished; returns the end if the page ended first.
    private func waitForLoad() async -> EndReason? {
        var interrupted: (failure: String, deadline: Double)?
        while session.finishedAt == nil {
            let event = await view.inbox.next(until: interrupted.map { startedAt + $0.deadline })
            guard !Task.isCancelled else { return nil }
            guard let event else {
                if let interrupted, session.committedAt == nil { return .loadFailed(interrupted.failure) }
                interrupted = nil
                continue
            }
            switch handle(event) {
            case .handled: break
            case .end(let reason): return reason
            case .waitForReplacement(let failure):
                note("load interrupted; waiting for a load that replaces it")
                interrupted = (failure, now + LoadOutcome.replacementWait)
            }
        }
        return nil
    }

    private func handle(_ event: ViewEvent) -> Handling {
        switch event {
        case .load(let load):
            return loadChanged(load).map(Handling.end) ?? .handled
        case .loadFailed(let uri, let domain, let code, let message):
            switch LoadOutcome.failure(uri: uri, domain: domain, code: code, message: message,
                                       committed: session.committedAt != nil,
                                       navigationsStopped: !stoppedNavigations.isEmpty,
                                       offline: options.offline ? options.offlineMode : nil) {
            case .ignored: return .handled
            case .waitForReplacement(let failure): return .waitForReplacement(failure)
            case .failed(let failure):
                note("load failed: \(message)")
                return .end(.loadFailed(failure))
            }
        case .processTerminated(let end):
            let killed = MemoryWatchdog.shared.killed(view.webProcess)
            view.retire()
            return .end(.crashed(LoadOutcome.crash(end, killedByWatchdog: killed)))
        case .probeMessage(let json):
            probeMessage(json)
            return .handled
        }
    }

    private func loadChanged(_ load: ViewEvent.Load) -> EndReason? {
        switch load {
        case .started where session.committedAt != nil:
            // Once the page committed, a new main-frame load is the page navigating away (a
            // script, a meta refresh, a form): stop it and measure the page as it was.
            let target = view.inbox.lastNavigationTarget
            stoppedNavigations.append(target)
            note("the page navigated to \(target.prefix(200)): stopped")
            view.stopLoading() // now: a local page would commit before the next loop turn
            session.stoppedLoads(at: now)
        case .committed where session.committedAt == nil:
            session.loadCommitted(at: now)
            note("committed \(view.uri.prefix(200))")
            if let (code, reason) = view.httpStatus, code >= 400 {
                return .loadFailed("HTTP \(code) \(reason) loading \(source.url.prefix(200))")
            }
            if case .url(let url) = source, url.lowercased().hasPrefix("http"), view.uri == "about:blank" {
                // WebKit refuses some URLs without a load-failed (a restricted port such as
                // :1 or :25) and shows an empty page instead.
                return .loadFailed("WebKit refused to load \(url.prefix(200)) (a restricted port?) and showed about:blank")
            }
        case .finished where session.finishedAt == nil:
            session.loadFinished(at: now)
            note("load finished")
        default:
            break
        }
        return nil
    }

    private func probeMessage(_ json: String) {
        guard session.committedAt != nil, let reading = ProbeReading.decode(json) else { return }
        let t = now
        let sample = HeightSample(t: t, height: reading.value, source: .observer, cause: reading.cause)
        let moved = session.record(sample, pending: reading.pendingWork(at: t, network: view.requestsInFlight))
        note(describe(sample, moved: moved, error: nil) + "; pending: \(session.pending.summary)")
    }

    // MARK: - Settling

    /// What the driver does next when no event comes first.
    private enum Wake {
        case poll(Int)
        case settleCheck
        case refreshPending
    }

    /// After the load: handles events, takes the schedule's polls and the settle checks, and
    /// fits the view, until the session says the page is done.
    private func settle() async -> EndReason? {
        while !Task.isCancelled {
            if let end = await afterReading() { return end }
            guard !Task.isCancelled else { return nil }
            let (at, precise, wake) = nextWake()
            if let event = await view.inbox.next(until: startedAt + at, precise: precise) {
                guard !Task.isCancelled else { return nil }
                if case .end(let reason) = handle(event) { return reason }
                continue
            }
            guard !Task.isCancelled else { return nil }
            switch wake {
            case .poll(let index):
                nextPoll = index
                await read(.poll, poll: index)
            case .settleCheck:
                await read(.poll, cause: "settle-check")
            case .refreshPending:
                await refreshPending()
            }
        }
        return nil
    }

    /// The next poll, or the settle check when due first; while work is pending, a look when the
    /// next timer is due, or soon in case a message was lost (the probe also reports when the
    /// pending work ends).
    private func nextWake() -> (at: Double, precise: Bool, Wake) {
        var next: (at: Double, precise: Bool, Wake)
        if let due = session.settleCheckAt {
            next = (due, true, .settleCheck)
        } else {
            let nextTimer = session.pending.timers.min().map { $0 - now + 0.05 } ?? 0.5
            next = (now + min(max(nextTimer, 0.05), 0.5), false, .refreshPending)
        }
        let polls = session.pollTimes
        if nextPoll < polls.count, polls[nextPoll] <= next.at {
            next = (polls[nextPoll], false, .poll(nextPoll + 1))
        }
        return next
    }

    /// After every reading: fit the view while the page holds still (resizing on every frame of
    /// a transition is wasted work), then check for the end.
    private func afterReading() async -> EndReason? {
        while session.finishedAt != nil, session.pending.animations == 0, let target = session.fitTarget {
            if let end = await fit(to: target) { return end }
            guard !Task.isCancelled else { return nil }
        }
        guard session.isSettled(at: now) else { return nil }
        return session.needsViewCheck ? await checkViewAtCap() : .settled
    }

    // MARK: - Readings

    /// When the oldest evaluation still outstanding after `stallAfter` seconds was started.
    private var stalledSince: Double? {
        guard let oldest = outstanding.values.min(), now - oldest > Self.stallAfter else { return nil }
        return oldest
    }

    /// An evaluation of `script`, counted as outstanding until it returns.
    private func evaluate(_ script: String) async -> Result<String, JavaScriptError> {
        let id = nextEvaluation
        nextEvaluation += 1
        outstanding[id] = now
        defer { outstanding[id] = nil }
        return await view.evaluate(script)
    }

    /// Takes a reading of the page with a native evaluation of the probe's `measure()` and
    /// records it; returns the value.
    @discardableResult
    private func read(_ source: HeightSample.Source, poll: Int? = nil, cause: String? = nil) async -> Double? {
        let result = await evaluate(ProbeScript.measureCall)
        guard !Task.isCancelled else { return nil }
        let t = now
        var reading: ProbeReading?
        var error: String?
        switch result {
        case .success(let json):
            reading = ProbeReading.decode(json)
            noteEngineWork(reading)
            if reading == nil { error = "the probe is missing (the page replaced or blocked it)" }
        case .failure(let failure):
            error = failure.message
        }
        let sample = HeightSample(t: t, height: reading?.value, source: source, poll: poll, cause: cause)
        let moved = session.record(sample, pending: reading?.pendingWork(at: t, network: view.requestsInFlight), error: error)
        note(describe(sample, moved: moved, error: error))
        return reading?.value
    }

    private func noteEngineWork(_ reading: ProbeReading?) {
        guard let reading else { return }
        if let layout = reading.layoutMs {
            lastLayoutSeconds = layout / 1000
            engineWork.layout += lastLayoutSeconds
        }
        if let end = reading.loadEventEnd { engineWork.loadEventEnd = ProbeReading.secondsSince(startedEpoch, stamp: end) }
        if let end = reading.loadWorkEnd { engineWork.loadWorkEnd = ProbeReading.secondsSince(startedEpoch, stamp: end) }
        if let layout = reading.loadLayoutMs { engineWork.loadLayout = layout / 1000 }
    }

    private func describe(_ sample: HeightSample, moved: Bool, error: String?) -> String {
        let what = sample.poll.map { "poll \($0)" } ?? sample.cause.map { "\(sample.source.rawValue) \($0)" }
            ?? sample.source.rawValue
        let value = sample.height.map { Pixels.format($0) } ?? "no value (\(error ?? "?"))"
        return "\(what): \(value)\(moved ? " (moved)" : "")"
    }

    /// Re-reads what is pending without adding a sample unless the height moved.
    private func refreshPending() async {
        guard case .success(let json) = await evaluate(ProbeScript.measureCall), !Task.isCancelled,
              let reading = ProbeReading.decode(json) else { return }
        let t = now
        let work = reading.pendingWork(at: t, network: view.requestsInFlight)
        if let value = reading.value, session.anchor != nil, session.moves(value) {
            let sample = HeightSample(t: t, height: value, source: .poll, cause: "pending-check")
            session.record(sample, pending: work)
            note(describe(sample, moved: true, error: nil))
        } else if let work {
            session.updatePending(work, at: t)
        }
    }

    /// The probe's value now, not recorded in the session.
    private func silentRead() async -> Double? {
        guard case .success(let json) = await evaluate(ProbeScript.measureCall) else { return nil }
        return ProbeReading.decode(json)?.value
    }

    // MARK: - Fit mode

    /// Gives the view the adopted height, waits until the viewport has it, then reads the
    /// content twice, 50 ms apart: content that is taller than the new view and holds still
    /// grew with the view (evidence of a runaway); content still moving moves by itself.
    private func fit(to height: Double) async -> EndReason? {
        note("fit: view height \(Pixels.format(session.viewHeight)) → \(Pixels.format(height))")
        let issuedAt = now
        await resizeView(to: height)
        let first = await read(.poll, cause: "after-resize")
        await GLibClock.sleep(0.05)
        let second = await read(.poll, cause: "after-resize")
        guard !Task.isCancelled else { return nil }
        let still = first != nil && second != nil && abs(first! - second!) <= 1
        guard session.resized(to: height, issuedAt: issuedAt, at: now, contentHeight: still ? second : nil) else {
            return nil
        }
        note("runaway: \(session.runaway.evidence)")
        let (content, culprits) = await readAtOtherView(Double(options.height))
        guard !Task.isCancelled else { return nil }
        session.runawayExplained(noFitHeight: content, culprits: culprits)
        return .runaway
    }

    /// The view reached the cap below the content and the page has settled there: reads the
    /// content at `--height` (and which elements changed with the view), gives the cap back to
    /// the view, and lets the session tell whether the content depends on the view.
    private func checkViewAtCap() async -> EndReason? {
        let cap = session.viewHeight
        let check = Double(options.height)
        note("the view is at its cap, \(Pixels.format(cap)), below the content: checking the content at \(Pixels.format(check))")
        let (content, culprits) = await readAtOtherView(check)
        await resizeView(to: cap)
        guard !Task.isCancelled else { return nil }
        let finding = session.viewChecked(view: check, content: content, culprits: culprits)
        note("view check: \(finding)")
        switch finding {
        case .independent:
            await read(.poll, cause: "after-resize")
            return nil
        case .runaway: return .runaway
        case .beyondCap, .moved: return .viewDependent
        }
    }

    /// Notes every element's height, gives the view `height`, and reads the content there twice,
    /// 50 ms apart, without recording it (it is not what the app shows): the content if it held
    /// still, and the elements whose height changed with the view.
    private func readAtOtherView(_ height: Double) async -> (content: Double?, culprits: [String]) {
        _ = await evaluate(ProbeScript.markViewCall)
        await resizeView(to: height)
        let first = await silentRead()
        await GLibClock.sleep(0.05)
        let second = await silentRead()
        let still = first != nil && second != nil && abs(first! - second!) <= 1
        var culprits: [String] = []
        if case .success(let json) = await evaluate(ProbeScript.viewCulpritsCall(threshold: options.threshold)),
           let list = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) {
            culprits = list
        }
        note("at view \(Pixels.format(height)): content \(second.map { Pixels.format($0) } ?? "unknown")"
            + "\(still ? "" : " (moving)"); following the view: \(culprits.isEmpty ? "nothing found" : culprits.joined(separator: ", "))")
        return (still ? second : nil, culprits)
    }

    /// Sets the view's height and waits (0.5 s at most) until the page's viewport has it.
    private func resizeView(to height: Double) async {
        view.setViewportHeight(height)
        let expected = view.expectedInnerHeight(for: height)
        let deadline = now + 0.5
        while !Task.isCancelled {
            if case .success(let json) = await evaluate("window.innerHeight"), let inner = Double(json),
               abs(inner - expected) < 1 { return }
            if now >= deadline {
                note("the viewport did not take its new height within 0.5 s")
                return
            }
            await GLibClock.sleep(0.01)
        }
    }

    // MARK: - The end

    /// The report: the session's verdict, with the final metrics, the page's text when the
    /// verdict falls back to it, and the snapshot.
    private func report(for reason: EndReason, endedAt: Double) async -> PageReport {
        var builder = ReportBuilder(url: source.url, session: session, end: reason, endedAt: endedAt)
        builder.engine = engineWork
        builder.verdictDue = session.settleCheckAt
        builder.verdictLayout = lastLayoutSeconds
        builder.stoppedNavigations = stoppedNavigations
        let usable = reason.pageCanAnswer(loadFinished: session.finishedAt != nil)
        let reading = usable ? await finalReading() : nil
        builder.metrics = reading?.metrics
        builder.quirksMode = reading?.compatMode.map { $0 == "BackCompat" }
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
        await firstOf(within: Self.stallAfter, fallback: nil) {
            guard case .success(let json) = await self.view.evaluate(ProbeScript.measureAllCall) else { return nil }
            return ProbeReading.decode(json)
        }
    }

    /// The page's plain text for the fallback estimate: from the input when we have it, else
    /// from the loaded main resource (within a second).
    private func pageText() async -> PlainText? {
        switch source {
        case .html(let html, _):
            return PlainText(html: html)
        case .file(let path):
            if let data = FileManager.default.contents(atPath: path) {
                return PlainText(html: String(decoding: data, as: UTF8.self))
            }
        case .url:
            break
        }
        return await firstOf(within: Self.stallAfter, fallback: nil) {
            await self.view.mainResourceData().map { PlainText(html: String(decoding: $0, as: UTF8.self)) }
        }
    }

    /// Gives the view back to its pool, or retires it: a crashed one, one used for a single
    /// page, and one whose page may still be spinning (a timeout), whose web process must not
    /// measure the next page nor outlive us. Returns once the view is back (blank, a few ms).
    private func giveBack(after reason: EndReason) async {
        if case .crashed = reason { view.retire() }
        if freshView { view.retire() }
        if case .timedOut = reason {
            view.terminateWebProcess()
            view.retire()
        }
        await pool.checkin(view, options: options)
    }
}
