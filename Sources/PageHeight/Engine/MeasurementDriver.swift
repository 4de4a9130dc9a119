import CWebKit
import Foundation

/// Measures one page in one view: loads it, feeds the session with timestamped facts, and
/// carries out what the session asks (polls, settle checks, fit resizes) until it ends.
///
/// GLib thread only. Keeps itself alive from `start()` until it delivers its report.
final class MeasurementDriver {
    private let source: PageSource
    private let options: MeasureOptions
    private let snapshotPath: String?
    private let log: (String) -> Void
    private let completion: (PageReport) -> Void
    private let pool: ViewPool
    /// The content filter that keeps the page inside its `SubresourceBoundary`.
    private let boundary: OpaquePointer

    private var session: MeasurementSession
    private var view: PageView?
    private var startedAt = 0.0
    private var timers: [GLibTimer] = []
    private var settleTimer: GLibTimer?
    private var outstanding: [Int: Double] = [:] // evaluation id -> start time
    private var nextEvaluation = 0
    private var resizing = false
    private var ended = false
    private var keepAlive: MeasurementDriver?
    private var startedEpoch = 0.0
    private var stoppedNavigations: [String] = []
    private var engineWork = EngineWork()
    private var lastLayoutSeconds = 0.0

    /// An evaluation that has not returned within this many seconds counts as stalled.
    private static let stallAfter = 1.0

    private let freshView: Bool

    init(pool: ViewPool, source: PageSource, boundary: OpaquePointer, options: MeasureOptions, snapshotPath: String?,
         freshView: Bool = false, log: @escaping (String) -> Void, completion: @escaping (PageReport) -> Void) {
        self.freshView = freshView
        self.pool = pool
        self.boundary = boundary
        self.source = source
        self.options = options
        self.snapshotPath = snapshotPath
        self.log = log
        self.completion = completion
        self.session = MeasurementSession(options: options)
    }

    private var now: Double { monotonicSeconds() - startedAt }

    private func note(_ text: String) {
        log(String(format: "%7.3f s  ", now) + text)
    }

    func start() {
        keepAlive = self
        let view = pool.checkout(options, fresh: freshView)
        self.view = view
        // A filter given to a view takes effect in its web process some time later: a page loaded
        // at once would have some of its requests filtered and some not, differently each run.
        // A blank page loaded after the change comes back only once the web process has it.
        if view.adopt(boundary) {
            view.blank(height: Double(options.height)) { [self] _ in begin(in: view) }
        } else {
            begin(in: view)
        }
    }

    private func begin(in view: PageView) {
        view.events.loadChanged = { [weak self] event in self?.loadChanged(event) }
        view.events.loadFailed = { [weak self] uri, domain, code, message in
            self?.loadFailed(uri: uri, domain: domain, code: code, message: message)
        }
        view.events.processTerminated = { [weak self, weak view] reason in
            let overLimit = MemoryWatchdog.shared.killed(view?.webProcess)
            view?.retire()
            let why = reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? "exceeded its memory limit"
                : overLimit ? "exceeded its memory limit (2 GB; stopped by pageheight)"
                : reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API ? "was terminated" : "crashed"
            self?.end(.crashed("the web process \(why)"))
        }
        view.events.probeMessage = { [weak self] json in self?.probeMessage(json) }
        startedAt = monotonicSeconds()
        startedEpoch = Date().timeIntervalSince1970
        after(options.timeout) { [weak self] in
            guard let self else { return }
            self.note("timeout after \(Seconds.format(self.options.timeout))")
            self.end(.timedOut(stalledSince: self.stalledSince))
        }
        load(in: view)
    }

    private func load(in view: PageView) {
        note("loading \(source.url.prefix(200))\(options.offline ? " (offline, \(options.offlineMode.rawValue))" : "")"
            + (view.uses > 0 ? " in a view reused after \(view.uses) page\(view.uses == 1 ? "" : "s")"
               : view.renewed ? " in a reused view with a new web process" : " in a new view"))
        view.load(source)
    }

    // MARK: - Load events

    private func loadChanged(_ event: WebKitLoadEvent) {
        guard !ended else { return }
        switch event {
        case WEBKIT_LOAD_STARTED:
            // Once the page committed, a new main-frame load is the page navigating away (a
            // script, a meta refresh, a form): stop it and measure the page as it was.
            if session.committedAt != nil, let view {
                let target = view.events.lastNavigationTarget
                stoppedNavigations.append(target)
                note("the page navigated to \(target.prefix(200)): stopped")
                view.stopLoading() // now: a local page would commit before the next loop turn
                session.stoppedLoads(at: now)
            }
        case WEBKIT_LOAD_COMMITTED:
            if session.committedAt == nil {
                session.loadCommitted(at: now)
                note("committed \(view?.uri.prefix(200) ?? "")")
                if let (code, reason) = view?.httpStatus, code >= 400 {
                    end(.loadFailed("HTTP \(code) \(reason) loading \(source.url.prefix(200))"))
                } else if case .url(let url) = source, url.lowercased().hasPrefix("http"), view?.uri == "about:blank" {
                    // WebKit refuses some URLs without a load-failed (a restricted port such as
                    // :1 or :25) and shows an empty page instead.
                    end(.loadFailed("WebKit refused to load \(url.prefix(200)) (a restricted port?) and showed about:blank"))
                }
            }
        case WEBKIT_LOAD_FINISHED:
            guard session.finishedAt == nil else { return }
            session.loadFinished(at: now)
            note("load finished")
            guard options.javascript else {
                end(.javascriptDisabled)
                return
            }
            read(.load)
            for (index, time) in session.pollTimes.enumerated() {
                at(time) { [weak self] in self?.read(.poll, poll: index + 1) }
            }
            armSettleCheck()
        default:
            break
        }
    }

    private func loadFailed(uri: String, domain: String, code: Int32, message: String) {
        guard !ended else { return }
        // A load replaced by another (a redirect, a navigation by the page) is not a failure.
        if domain == "WebKitNetworkError" && code == 302 { return }
        // Nor is a navigation the page started after it committed (stopped or blocked).
        if session.committedAt != nil && !stoppedNavigations.isEmpty { return }
        var failure = "\(message) (\(domain) \(code)) loading \(uri.prefix(200))"
        let blocked = domain == "WebKitPolicyError" && code == 104 // by a content blocker
        if options.offline && (message.contains("connect to proxy") || blocked) {
            failure = "refused by --offline=\(options.offlineMode.rawValue) (only local files and loopback load): \(uri.prefix(200))"
        }
        // "Frame load interrupted" before anything committed: either a download (nothing
        // follows) or the page replaced its own load before committing (a new load follows and
        // commits). Wait a moment to tell which, so the answer does not depend on the race.
        if domain == "WebKitPolicyError" && code == 102 && session.committedAt == nil {
            note("load interrupted: \(message); waiting for a load that replaces it")
            after(0.3) { [weak self] in
                guard let self, self.session.committedAt == nil else { return }
                self.end(.loadFailed(failure))
            }
            return
        }
        note("load failed: \(message)")
        end(.loadFailed(failure))
    }

    // MARK: - Readings

    /// When the oldest evaluation still outstanding after `stallAfter` seconds was started.
    private var stalledSince: Double? {
        guard let oldest = outstanding.values.min(), now - oldest > Self.stallAfter else { return nil }
        return oldest
    }

    /// Takes a reading of the page with a native evaluation of the probe's `measure()`.
    private func read(_ source: HeightSample.Source, poll: Int? = nil, cause: String? = nil,
                      then: ((Double?) -> Void)? = nil) {
        guard !ended, let view else { return }
        let id = nextEvaluation
        nextEvaluation += 1
        outstanding[id] = now
        view.evaluate(ProbeScript.measureCall) { [weak self] result in
            guard let self else { return }
            self.outstanding[id] = nil
            guard !self.ended else { return }
            let t = self.now
            var value: Double?
            var error: String?
            var reading: ProbeReading?
            switch result {
            case .success(let json):
                reading = ProbeReading.decode(json)
                value = reading?.value
                self.noteEngineWork(reading)
                if reading == nil { error = "the probe is missing (the page replaced or blocked it)" }
            case .failure(let failure):
                error = failure.message
            }
            let sample = HeightSample(t: t, height: value, source: source, poll: poll, cause: cause)
            let moved = self.session.record(sample, pending: reading?.pendingWork(at: t, network: self.view?.requestsInFlight ?? 0), error: error)
            self.note(self.describe(sample, moved: moved, error: error))
            if let then { then(value) } else { self.afterReading() }
        }
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

    private func probeMessage(_ json: String) {
        guard !ended, session.committedAt != nil, let reading = ProbeReading.decode(json) else { return }
        let t = now
        let sample = HeightSample(t: t, height: reading.value, source: .observer, cause: reading.cause)
        let moved = session.record(sample, pending: reading.pendingWork(at: t, network: view?.requestsInFlight ?? 0))
        note(describe(sample, moved: moved, error: nil) + "; pending: \(session.pending.summary)")
        afterReading()
    }

    private func describe(_ sample: HeightSample, moved: Bool, error: String?) -> String {
        let what = sample.poll.map { "poll \($0)" } ?? sample.cause.map { "\(sample.source.rawValue) \($0)" }
            ?? sample.source.rawValue
        let value = sample.height.map { Pixels.format($0) } ?? "no value (\(error ?? "?"))"
        return "\(what): \(value)\(moved ? " (moved)" : "")"
    }

    /// After every reading: fit the view, check for the end, re-arm the settle check.
    private func afterReading() {
        guard !ended else { return }
        // Fit while the page holds still: resizing on every frame of a transition is wasted work.
        if session.finishedAt != nil, !resizing, session.pending.animations == 0, let target = session.fitTarget {
            fit(to: target)
            return
        }
        if session.isSettled(at: now) {
            if session.needsViewCheck {
                checkViewAtCap()
            } else {
                end(.settled)
            }
            return
        }
        armSettleCheck()
    }

    private func armSettleCheck() {
        settleTimer?.cancel()
        settleTimer = nil
        guard !ended, !resizing, session.finishedAt != nil else { return }
        if let due = session.settleCheckAt {
            settleTimer = GLibTimer(after: max(0, due - now), precise: true) { [weak self] in
                self?.read(.poll, cause: "settle-check")
            }
        } else {
            // Something is pending: look again when the next timer is due, or soon, in case a
            // message was lost; the probe also reports when the pending work ends.
            let nextTimer = session.pending.timers.min().map { $0 - now + 0.05 } ?? 0.5
            settleTimer = GLibTimer(after: min(max(nextTimer, 0.05), 0.5)) { [weak self] in
                self?.refreshPending()
            }
        }
    }

    /// Re-reads what is pending without adding a sample unless the height moved.
    private func refreshPending() {
        guard !ended, let view else { return }
        view.evaluate(ProbeScript.measureCall) { [weak self] result in
            guard let self, !self.ended else { return }
            if case .success(let json) = result, let reading = ProbeReading.decode(json) {
                let t = self.now
                if let value = reading.value, let anchor = self.session.anchor,
                   abs(value - anchor) > self.options.threshold {
                    let sample = HeightSample(t: t, height: value, source: .poll, cause: "pending-check")
                    self.session.record(sample, pending: reading.pendingWork(at: t, network: self.view?.requestsInFlight ?? 0))
                    self.note(self.describe(sample, moved: true, error: nil))
                } else if let work = reading.pendingWork(at: t, network: self.view?.requestsInFlight ?? 0) {
                    self.session.updatePending(work, at: t)
                }
            }
            self.afterReading()
        }
    }

    // MARK: - Fit mode

    /// Gives the view the adopted height, waits until the viewport has it, then reads the
    /// content twice, 50 ms apart: content that is taller than the new view and holds still
    /// grew with the view (evidence of a runaway); content still moving moves by itself.
    private func fit(to height: Double) {
        guard let view else { return }
        resizing = true
        settleTimer?.cancel()
        note("fit: view height \(Pixels.format(session.viewHeight)) → \(Pixels.format(height))")
        let issuedAt = now
        view.setViewportHeight(height)
        let expected = view.expectedInnerHeight(for: height)
        waitForViewport(expected: expected, deadline: now + 0.5) { [weak self] in
            guard let self, !self.ended else { return }
            self.read(.poll, cause: "after-resize") { first in
                self.after(0.05) {
                    self.read(.poll, cause: "after-resize") { second in
                        self.resizing = false
                        let still = first != nil && second != nil && abs(first! - second!) <= 1
                        if self.session.resized(to: height, issuedAt: issuedAt, at: self.now,
                                               contentHeight: still ? second : nil) {
                            self.note("runaway: \(self.session.runaway.evidence)")
                            self.resizing = true
                            self.readAtOtherView(Double(self.options.height)) { content, culprits in
                                self.session.runawayExplained(noFitHeight: content, culprits: culprits)
                                self.end(.runaway)
                            }
                            return
                        }
                        self.afterReading()
                    }
                }
            }
        }
    }

    /// The view reached the cap below the content and the page has settled there: reads the
    /// content at `--height` (and which elements changed with the view), gives the cap back to
    /// the view, and lets the session tell whether the content depends on the view.
    private func checkViewAtCap() {
        guard let view else { return }
        resizing = true
        settleTimer?.cancel()
        let cap = session.viewHeight
        let check = Double(options.height)
        note("the view is at its cap, \(Pixels.format(cap)), below the content: checking the content at \(Pixels.format(check))")
        readAtOtherView(check) { [weak self] content, culprits in
            guard let self else { return }
            view.setViewportHeight(cap)
            self.waitForViewport(expected: view.expectedInnerHeight(for: cap), deadline: self.now + 0.5) {
                self.resizing = false
                let finding = self.session.viewChecked(view: check, content: content, culprits: culprits)
                self.note("view check: \(finding)")
                switch finding {
                case .independent: self.read(.poll, cause: "after-resize")
                case .runaway: self.end(.runaway)
                case .beyondCap, .moved: self.end(.viewDependent)
                }
            }
        }
    }

    /// Notes every element's height, gives the view `height`, and reads the content there twice,
    /// 50 ms apart, without recording it (it is not what the app shows): the content if it held
    /// still, and the elements whose height changed with the view.
    private func readAtOtherView(_ height: Double, then: @escaping (Double?, [String]) -> Void) {
        guard !ended, let view else { return }
        view.evaluate(ProbeScript.markViewCall) { [weak self] _ in
            guard let self, !self.ended else { return }
            view.setViewportHeight(height)
            self.waitForViewport(expected: view.expectedInnerHeight(for: height), deadline: self.now + 0.5) {
                self.silentRead { first in
                    self.after(0.05) {
                        self.silentRead { second in
                            let still = first != nil && second != nil && abs(first! - second!) <= 1
                            view.evaluate(ProbeScript.viewCulpritsCall(threshold: self.options.threshold)) { result in
                                guard !self.ended else { return }
                                var culprits: [String] = []
                                if case .success(let json) = result,
                                   let list = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) {
                                    culprits = list
                                }
                                self.note("at view \(Pixels.format(height)): content \(second.map { Pixels.format($0) } ?? "unknown")"
                                    + "\(still ? "" : " (moving)"); following the view: \(culprits.isEmpty ? "nothing found" : culprits.joined(separator: ", "))")
                                then(still ? second : nil, culprits)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The probe's value now, not recorded in the session.
    private func silentRead(then: @escaping (Double?) -> Void) {
        guard !ended, let view else { return }
        view.evaluate(ProbeScript.measureCall) { [weak self] result in
            guard let self, !self.ended else { return }
            if case .success(let json) = result { then(ProbeReading.decode(json)?.value) } else { then(nil) }
        }
    }

    private func waitForViewport(expected: Double, deadline: Double, then: @escaping () -> Void) {
        guard !ended, let view else { return }
        view.evaluate("window.innerHeight") { [weak self] result in
            guard let self, !self.ended else { return }
            if case .success(let json) = result, let inner = Double(json), abs(inner - expected) < 1 {
                then()
            } else if self.now >= deadline {
                self.note("the viewport did not take its new height within 0.5 s")
                then()
            } else {
                self.after(0.01) { self.waitForViewport(expected: expected, deadline: deadline, then: then) }
            }
        }
    }

    // MARK: - Timers

    private func after(_ seconds: Double, _ job: @escaping () -> Void) {
        timers.append(GLibTimer(after: seconds, job))
    }

    private func at(_ time: Double, _ job: @escaping () -> Void) {
        after(max(0, time - now), job)
    }

    // MARK: - The end

    private func end(_ reason: EndReason) {
        guard !ended else { return }
        ended = true
        let endedAt = now
        timers.forEach { $0.cancel() }
        timers = []
        settleTimer?.cancel()
        note("ended: \(reason)")
        var builder = ReportBuilder(url: source.url, session: session, end: reason, endedAt: endedAt)
        builder.engine = engineWork
        builder.verdictDue = session.settleCheckAt
        builder.verdictLayout = lastLayoutSeconds
        builder.stoppedNavigations = stoppedNavigations
        let usable: Bool
        switch reason {
        case .loadFailed, .crashed, .javascriptDisabled: usable = false
        // A load that never finished (a script that never yields while parsing) would not answer
        // either: do not wait for it past the timeout.
        case .timedOut(let stalledSince): usable = stalledSince == nil && session.finishedAt != nil
        default: usable = true
        }
        finalMetrics(usable: usable) { [self] reading in
            builder.metrics = reading?.metrics
            if let margins = reading?.bodyMargins, margins.count == 2 { builder.bodyMargins = (margins[0], margins[1]) }
            builder.quirksMode = reading?.compatMode.map { $0 == "BackCompat" }
            let needsText = builder.verdict().0 == .fallback
            pageText(needed: needsText, usable: usable) { [self] text in
                builder.text = text
                var report = builder.build()
                takeSnapshot(usable: usable || reason == .javascriptDisabled) { [self] error in
                    if let snapshotPath {
                        if let error { report.snapshotError = error } else { report.snapshot = snapshotPath }
                    }
                    note("report: \(report.status.rawValue) \(report.height.map { Pixels.format($0) } ?? "-")")
                    guard let view else {
                        completion(report)
                        keepAlive = nil
                        return
                    }
                    if case .crashed = reason { view.retire() }
                    if self.freshView { view.retire() }
                    if case .timedOut = reason {
                        // A page that never finished or stalled may still be spinning: its
                        // web process must not measure the next page, nor outlive us.
                        view.terminateWebProcess()
                        view.retire()
                    }
                    self.view = nil
                    // Not now: end() may run inside one of the view's own signals
                    // (web-process-terminated, load-failed), and WebKit still uses the view
                    // after the handler returns. Closing or loading it there crashes.
                    // The report waits for the view to be back in the pool (blank, a few ms).
                    _ = GLibTimer(after: 0) { [self] in
                        pool.checkin(view, options: options) {
                            self.completion(report)
                            self.keepAlive = nil
                        }
                    }
                }
            }
        }
    }

    /// A final reading with all metrics side by side and the document's mode, unless the page
    /// cannot answer (then nil, within a second).
    private func finalMetrics(usable: Bool, then: @escaping (ProbeReading?) -> Void) {
        guard usable, let view else { return then(nil) }
        let once = Once(then)
        let guardTimer = GLibTimer(after: Self.stallAfter) { once.call(nil) }
        view.evaluate(ProbeScript.measureAllCall) { result in
            guardTimer.cancel()
            if case .success(let json) = result { once.call(ProbeReading.decode(json)) } else { once.call(nil) }
        }
    }

    /// The page's plain text for the fallback estimate: from the input when we have it, else
    /// from the loaded main resource.
    private func pageText(needed: Bool, usable: Bool, then: @escaping (PlainText?) -> Void) {
        guard needed else { return then(nil) }
        switch source {
        case .html(let html, _):
            return then(PlainText(html: html))
        case .file(let path):
            if let data = FileManager.default.contents(atPath: path) {
                return then(PlainText(html: String(decoding: data, as: UTF8.self)))
            }
        case .url:
            break
        }
        guard let view else { return then(nil) }
        let once = Once(then)
        let guardTimer = GLibTimer(after: Self.stallAfter) { once.call(nil) }
        view.mainResourceData { data in
            guardTimer.cancel()
            once.call(data.map { PlainText(html: String(decoding: $0, as: UTF8.self)) })
        }
    }

    private func takeSnapshot(usable: Bool, then: @escaping (String?) -> Void) {
        guard let snapshotPath else { return then(nil) }
        guard usable, let view else { return then("the page could not be drawn") }
        let once = Once(then)
        let guardTimer = GLibTimer(after: 10) { once.call("the snapshot did not arrive within 10 s") }
        view.snapshot(to: snapshotPath) { error in
            guardTimer.cancel()
            once.call(error)
        }
    }
}

/// Calls a completion at most once (an answer and its guard timer race).
final class Once<Value> {
    private var body: ((Value) -> Void)?
    init(_ body: @escaping (Value) -> Void) { self.body = body }
    func call(_ value: Value) {
        let body = self.body
        self.body = nil
        body?(value)
    }
}
