import Foundation
import PageHeightCore

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
    /// The content filters that keep the page inside its `SubresourceBoundary`.
    private let boundary: Boundary
    private let freshView: Bool
    private let view: PageView

    private var session: MeasurementSession
    private var startedAt = 0.0
    private var startedEpoch = 0.0
    private var outstanding: [Int: Double] = [:] // evaluation id -> start time
    private var nextEvaluation = 0
    /// The schedule poll to take next (an index into `session.pollTimes`).
    private var nextPoll = 0
    /// The first targets of the page's stopped navigations (`PageText.listKept`), and how many.
    private var stoppedNavigations: [String] = []
    private var stoppedNavigationsTotal = 0
    /// What kept the page from being idle when the clock last waited in real time (logged once).
    private var lastIdleBlocker: String?
    private var engineWork = EngineWork()
    private var lastLayoutSeconds = 0.0
    /// Virtual clock: the jumps taken so far, seconds (the page's time is real time plus this).
    private var clockOffset = 0.0
    /// Virtual clock: when the page's next timer is due (any, periodic too), seconds since the
    /// load started, as the last reading said.
    private var nextPageTimer: Double?
    /// Virtual clock: when the child frames' next timer, and the first one-shot timer of any
    /// frame, are due, as the same reading of the page's clock said.
    private var nextChildTimer: Double?
    private var nextOneShotTimer: Double?
    /// Virtual clock: the top frame's animation frame callbacks waiting for a frame, as the last
    /// reading said, and when frames are stepped (`AnimationFrames`).
    private var framesWaiting = 0
    private var frames = AnimationFrames()

    /// An evaluation that has not returned within this many seconds counts as stalled.
    private static let stallAfter = 1.0
    /// Told the moment the page has its verdict, before its report is made.
    private let verdictReached: (@Sendable () -> Void)?

    init(pool: ViewPool, view: PageView, source: PageSource, boundary: Boundary, options: MeasureOptions,
         snapshotPath: String?, freshView: Bool = false, log: @escaping @Sendable (String) -> Void,
         verdictReached: (@Sendable () -> Void)? = nil) {
        (self.verdictReached, self.pool, self.source, self.boundary, self.options, self.snapshotPath, self.freshView, self.log)
            = (verdictReached, pool, source, boundary, options, snapshotPath, freshView, log)
        self.session = MeasurementSession(options: options)
        self.view = view
    }

    /// Seconds since the load started: the page's time (virtual on the virtual clock).
    private var now: Double { GLibClock.now - startedAt + clockOffset }
    /// Seconds since the load started on the wall clock.
    private var realNow: Double { GLibClock.now - startedAt }
    private var virtualClock: Bool { options.clock == .virtual }

    /// The monotonic time at which the page's time reaches `t`.
    private func wallClock(_ t: Double) -> Double { startedAt + t - clockOffset }

    private func note(_ text: String) {
        log(String(format: "%7.3f s  ", now) + (clockOffset > 0 ? String(format: "(real %.3f s)  ", realNow) : "") + text)
    }

    func run() async -> PageReport {
        // A filter given to a view takes effect in its web process some time later: a page loaded
        // at once would have some of its requests filtered and some not, differently each run.
        // A blank page loaded after the change comes back only once the web process has it.
        // A new view has no history yet: its blank page makes the history every page starts from.
        if view.adopt(boundary) || (options.javascript && !view.hasHistoryBase) {
            _ = await view.blank(height: Double(options.height))
        }
        view.setHooks(virtual: virtualClock, device: options.deviceProfile)
        view.setDrawn(snapshotPath != nil || PageView.drawsEveryPage)
        startedAt = GLibClock.now
        startedEpoch = Date().timeIntervalSince1970
        await addCookies()
        view.inbox.clear()
        let (reason, endedAt) = await measureWithinTimeout()
        note("ended: \(reason)")
        let steps = options.steps ?? []
        if steps.isEmpty {
            pool.verdictReached(view, options: options)
            verdictReached?()
        }
        var report = await report(for: reason, endedAt: endedAt)
        var last = reason
        if !steps.isEmpty {
            (report.steps, last) = await run(steps, after: reason, base: report)
            report.samples = session.samples
            report.clockJumps = session.clockJumps.isEmpty ? nil : session.clockJumps
            view.restoreSettings(height: Double(options.height))
            pool.verdictReached(view, options: options)
            verdictReached?()
        }
        giveBack(after: last)
        return report
    }

    /// Puts the page's cookies (`--cookie`, `--cookies`) into the view's data store before its
    /// load: a cookie without a domain goes to the page's own host (none for a file page).
    private func addCookies() async {
        guard let cookies = options.requests?.cookies, !cookies.isEmpty else { return }
        var host: String?
        if case .url(let text) = source { host = URLComponents(string: text)?.host?.lowercased() }
        for cookie in cookies {
            guard let domain = cookie.domain ?? host else {
                note("cookie \(cookie.name): the page has no host to send it to")
                continue
            }
            if let error = await view.add(cookie, host: domain) { note("cookie \(cookie.name) not added: \(error)") }
        }
        note("cookies " + cookies.map(\.name).joined(separator: ", ") + " (values not logged)")
    }

    /// The measuring steps, raced against the timeout, which cancels them; with when it ended.
    /// `phase`: the load and the page's first verdict (nil), or a step's verdict after it was applied.
    private func measureWithinTimeout(step phase: Int? = nil) async -> (EndReason, Double) {
        let start = phase == nil ? startedAt : GLibClock.now
        return await withTaskGroup(of: (EndReason, Double)?.self) { group in
            group.addTask { await self.measureUntilCancelled(step: phase) }
            group.addTask { await self.timeout(from: start) }
            let first = (await group.next() ?? nil).map { end, at in
                (end.reached(atReal: GLibClock.now - start, timeout: options.timeout, stalledSince: stalledSince), at)
            }
            group.cancelAll()
            // The other child ends soon: every wait of the steps returns when cancelled.
            while let other = await group.next() {
                if first == nil, let other { return other }
            }
            return first ?? (.timedOut(stalledSince: stalledSince), now)
        }
    }

    /// The page's end and when it came; nil when cancelled (the timeout passed).
    private func measureUntilCancelled(step: Int?) async -> (EndReason, Double)? {
        do {
            let end = try await step == nil ? measure() : settle()
            return (end, now)
        } catch {
            return nil
        }
    }

    /// Sleeps until the timeout after `start`, the load's start or a step's (not after this
    /// task's own start, which a busy executor can delay).
    private func timeout(from start: Double) async -> (EndReason, Double)? {
        await GLibClock.sleep(max(0, start + options.timeout - GLibClock.now))
        guard !Task.isCancelled else { return nil }
        note(virtualClock ? "the real-time cap passed: \(Seconds.format(options.timeout)) on the wall clock"
            : "timeout after \(Seconds.format(options.timeout))")
        return (.timedOut(stalledSince: stalledSince), now)
    }

    /// What a part of the measurement leaves the driver with: the page is measured on, or it
    /// ended. Cancellation (the timeout passed) throws `CancellationError` instead.
    private enum Outcome {
        case goOn
        case ended(EndReason)
    }

    /// Load, first reading, settle. Throws when cancelled (the timeout passed).
    private func measure() async throws -> EndReason {
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
        await read(.load)
        return try await settle()
    }

    // MARK: - Events

    private enum Handling {
        case handled
        case end(EndReason)
        case waitForReplacement(String)
    }

    /// Handles the view's events until the load finished, or the page ended first.
    private func waitForLoad() async throws -> Outcome {
        var interrupted: (failure: String, deadline: Double)?
        // An interrupted load is followed by its load-finished: a replacement may still come.
        while session.finishedAt == nil || (interrupted != nil && session.committedAt == nil) {
            let event = await view.inbox.next(until: interrupted.map { wallClock($0.deadline) })
            try Task.checkCancellation()
            guard let event else {
                if let interrupted, session.committedAt == nil { return .ended(.loadFailed(interrupted.failure)) }
                interrupted = nil
                continue
            }
            switch handle(event) {
            case .handled: break
            case .end(let reason): return .ended(reason)
            case .waitForReplacement(let failure):
                note("load interrupted; waiting for a load that replaces it")
                interrupted = (failure, now + LoadOutcome.replacementWait)
            }
        }
        return .goOn
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
            if case .budget(let message)? = killed { return .end(.crashed(message)) }
            return .end(.crashed(LoadOutcome.crash(end, killedByWatchdog: killed != nil)))
        case .probeMessage(let json):
            probeMessage(json)
            return .handled
        case .navigationLoop(let attempts):
            note("the page started \(attempts) navigations after its load: a loop, stopped")
            view.renewAfterThisPage() // what WebKit keeps of the navigations goes with the process
            return .end(.navigationLoop(attempts: attempts))
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
            if realNow > options.timeout {
                // The timeout's own wake-up is late (a busy machine): the load did not finish in time.
                note("the load finished after the timeout (\(Seconds.format(options.timeout)) on the wall clock)")
                return .timedOut(stalledSince: nil)
            }
            session.loadFinished(at: now)
            note("load finished")
        default:
            break
        }
        return nil
    }

    private func probeMessage(_ json: String) {
        guard session.committedAt != nil, let reading = ProbeReading.decode(json) else { return }
        if reading.notThePage == true, !source.url.hasPrefix("about:") {
            return note("a message from the view's blank document, not the page's: ignored")
        }
        let t = now
        noteClock(reading, at: t)
        let cause = reading.cause.map { PageText.capped($0, to: PageText.kept) }
        let sample = HeightSample(t: t, height: reading.value, source: .observer, cause: cause, real: real)
        let moved = session.record(sample, pending: reading.pendingWork(at: t, network: view.requestsInFlight))
        if moved { frames.pageMoved(value: reading.value) }
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
    private func settle() async throws -> EndReason {
        while true {
            try Task.checkCancellation()
            // What the page told meanwhile (during a fit, a reading) comes first.
            while let event = view.inbox.take() {
                if case .end(let reason) = handle(event) { return reason }
            }
            switch try await afterReading() {
            case .end(let reason): return reason
            case .again: continue
            case .wait: break
            }
            try Task.checkCancellation()
            if virtualClock, now >= session.deadline { return .timedOut(stalledSince: nil) }
            let (at, precise, wake) = nextWake()
            if virtualClock, let jump = jumpTarget(before: at, wake: wake) {
                if jump.reason == ClockJump.frames {
                    await stepFrame(to: jump.to)
                    try Task.checkCancellation()
                    continue
                }
                await advanceClock(to: jump.to, reason: jump.reason)
                try Task.checkCancellation()
                // The page's timers ran: what they changed. A step of the rules is now due.
                if jump.reason == ClockJump.timer || jump.reason == ClockJump.timers { await refreshPending(cause: "timer") }
                continue
            } else if timerDue, at > now + Self.frame, session.pageIsIdle(network: view.requestsInFlight, at: now) {
                // A timer of the page came due and has not run yet: nothing jumps over it, and
                // the page may tell nothing when it has run. Look again after 2 ms of real
                // time, not at `at`: waiting for it would run the page's clock at real speed.
                if let event = await view.inbox.next(until: GLibClock.now + 0.002) {
                    try Task.checkCancellation()
                    if case .end(let reason) = handle(event) { return reason }
                } else {
                    try Task.checkCancellation()
                    await refreshPending(cause: "timer")
                }
                continue
            } else {
                let blocker = virtualClock ? session.idleBlocker(network: view.requestsInFlight, at: now) : nil
                if let blocker, blocker != lastIdleBlocker { note("the clock runs at real speed: \(blocker)") }
                lastIdleBlocker = blocker
                // A child frame's grace may end before `at`: the clock jumps again from there.
                let graceEnds = virtualClock ? session.frameGraceEnds.flatMap { $0 > now && $0 < at ? $0 : nil } : nil
                if let event = await view.inbox.next(until: wallClock(graceEnds ?? at), precise: precise) {
                    try Task.checkCancellation()
                    if case .end(let reason) = handle(event) { return reason }
                    continue
                }
                if graceEnds != nil { continue }
            }
            try Task.checkCancellation()
            switch wake {
            case .poll(let index):
                nextPoll = index
                await read(.poll, poll: index)
            case .settleCheck:
                await read(.poll, cause: "settle-check")
            case .refreshPending:
                await refreshPending(cause: "pending-check")
            }
        }
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

    private enum Next {
        case end(EndReason)
        /// The view was resized: look again before waiting.
        case again
        case wait
    }

    /// After every reading: fit the view while the page holds still (resizing on every frame of
    /// a transition, or of an animation whose frames are stepped, is wasted work), else check
    /// for the end.
    /// A page that keeps moving (an animation the engine does not list, such as one on animation
    /// frames) is fitted again after every fit; a poll that came due meanwhile is read first, at
    /// its time, as the app reads it.
    private func afterReading() async throws -> Next {
        if nextPoll < session.pollTimes.count, session.pollTimes[nextPoll] <= now { return .wait }
        if session.finishedAt != nil, session.pending.animations == 0, !animating, !timerDue, let target = session.fitTarget {
            if case .ended(let end) = try await fit(to: target) { return .end(end) }
            return .again
        }
        guard session.isSettled(at: now) else { return .wait }
        if try await contentShrankBeneathView() { return .again }
        if !session.needsViewCheck { return .end(.settled) }
        if case .ended(let end) = try await checkViewAtCap() { return .end(end) }
        return .again
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
            if let reading { noteClock(reading, at: t) }
            if reading == nil { error = "the probe is missing (the page replaced or blocked it)" }
        case .failure(let failure):
            error = failure.message
        }
        let sample = HeightSample(t: t, height: reading?.value, source: source, poll: poll, cause: cause, real: real)
        let moved = session.record(sample, pending: reading?.pendingWork(at: t, network: view.requestsInFlight), error: error)
        if moved { frames.pageMoved(value: reading?.value) }
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
    private func refreshPending(cause: String) async {
        guard case .success(let json) = await evaluate(ProbeScript.measureCall), !Task.isCancelled,
              let reading = ProbeReading.decode(json) else { return }
        let t = now
        noteClock(reading, at: t)
        let work = reading.pendingWork(at: t, network: view.requestsInFlight)
        if let value = reading.value, session.anchor != nil, session.moves(value) {
            let sample = HeightSample(t: t, height: value, source: .poll, cause: cause, real: real)
            session.record(sample, pending: work)
            frames.pageMoved(value: value)
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

    // MARK: - Virtual clock

    /// The wall-clock time to record with a reading, on the virtual clock.
    private var real: Double? { virtualClock ? realNow : nil }

    private func noteClock(_ reading: ProbeReading, at t: Double) {
        guard virtualClock, let clock = reading.clock else { return }
        nextPageTimer = clock.next.map { t + max(0, $0 - clock.now) / 1000 }
        nextChildTimer = clock.childNext.map { t + max(0, $0 - clock.now) / 1000 }
        nextOneShotTimer = clock.oneShot.map { t + max(0, $0 - clock.now) / 1000 }
        framesWaiting = clock.animationFrames ?? 0
    }

    /// Where to move the page's clock instead of waiting for `at` in real time: when the page is
    /// idle, to its next timer or to `at` (a poll, the settle check), whichever comes first, at
    /// most to the timeout. Nil when there is nothing to jump over.
    /// Nil too while a timer of the page is due and has not run (a run still going on): a jump
    /// then would move the page's clock from where the run is, behind the rules' time, and the
    /// page would lag behind it for the rest of the measurement.
    private func jumpTarget(before at: Double, wake: Wake) -> (to: Double, reason: String)? {
        guard !timerDue, session.pageIsIdle(network: view.requestsInFlight, at: now) else { return nil }
        var target: (to: Double, reason: String)
        switch wake {
        case .poll: target = (at, "poll")
        case .settleCheck: target = (at, "settle-check")
        // Pending work of an idle page is timers and animations: the timers are jumped to,
        // running animations moved on in steps of the look for pending work.
        case .refreshPending: target = session.pending.animations > 0 ? (at, "pending-check") : (session.deadline, "timeout")
        }
        let polls = session.pollTimes
        if nextPoll < polls.count, polls[nextPoll] < target.to { target = (polls[nextPoll], "poll") }
        if session.deadline < target.to { target = (session.deadline, "timeout") }
        if let timer = nextPageTimer, timer < target.to {
            // Before the first one-shot timer (pending work) and the child frames' first timer,
            // only the top frame's periodic timers come due: one run over all their ticks, each at
            // its own time (a round trip a tick made a short chain run at about real speed).
            // Else a jump to the timer, which runs there.
            let runTo = min(target.to, nextOneShotTimer ?? .infinity, nextChildTimer ?? .infinity)
            target = framesWaiting == 0 && runTo > timer + 0.0005 ? (runTo, ClockJump.timers) : (timer, ClockJump.timer)
        }
        // An animating page's next frame, when it comes first (at once after a pause).
        if frames.steps(waiting: framesWaiting) {
            let frame = frames.nextFrame(now: now)
            if frame < target.to { return (frame, ClockJump.frames) }
        }
        return target.to > now + 0.0005 ? target : nil
    }

    /// Moves the page's clock (and the rules' time with it) to `t`, and waits until the page's
    /// timers due by then have run. A page that waits for an animation frame and is not stepped
    /// frame by frame (`AnimationFrames`) gets one frame at `t`, before anything reads it, unless
    /// the jump is to its timer (the frame comes after the timer has run, stepped or at the
    /// next jump).
    private func advanceClock(to t: Double, reason: String) async {
        let from = now
        let delta = t - from
        guard delta > 0 else { return }
        let withFrame = framesWaiting > 0 && reason != ClockJump.timer && !frames.steps(waiting: framesWaiting)
        let result = await evaluate(withFrame ? ProbeScript.frameCall(ms: delta * 1000) : ProbeScript.advanceByCall(ms: delta * 1000, run: reason == ClockJump.timers))
        guard !Task.isCancelled else { return }
        clockOffset += delta
        session.clockJumped(ClockJump(from: from, to: now, real: realNow, reason: reason))
        note("clock: \(Seconds.format(from)) → \(Seconds.format(now)) (\(reason)\(withFrame ? ", then a frame" : ""))")
        if reason == ClockJump.timer { frames.pageMoved(value: nil) }
        let answer: PageClock?
        if withFrame {
            answer = frameRead(result)
        } else if case .success(let json) = result {
            answer = ProbeReading.decodeClock(json)
        } else {
            answer = nil
        }
        guard let clock = answer else { return }
        // Timers that came due run in a task of their own, right after the jump: wait for them, a
        // quarter of a second at most. Only for those due by the jump's time: one they arm
        // meanwhile is due after it, and a chain of zero-delay timers (always one due) would
        // otherwise hold every jump for the whole quarter. A run answers at its first timer and
        // keeps a timer due until it reached its end: it is waited for to the end.
        var state = clock
        let run = reason == ClockJump.timers
        let jumpedTo = clock.now
        let started = GLibClock.now
        let giveUp = started + 0.25
        while (state.next ?? .infinity) <= (run ? state.now : jumpedTo), GLibClock.now < giveUp {
            // Each look is a round trip that the page's main thread answers between two of its
            // timers: looks a quarter of the wait apart (1 to 10 ms) keep them to a few per run.
            await GLibClock.sleep(min(0.01, max(0.001, (GLibClock.now - started) / 4)))
            guard case .success(let json) = await evaluate(ProbeScript.clockCall),
                  let next = ProbeReading.decodeClock(json) else { return }
            state = next
        }
        if let due = state.next, due <= (run ? state.now : jumpedTo) {
            note("timers due by the jump had not run after 0.25 s (the page's clock: next due at "
                + "\(Seconds.format(due / 1000)) s, now \(Seconds.format(state.now / 1000)) s)")
        }
    }

    /// Virtual clock: a timer of the page is due and has not run yet (a run over the page's
    /// periodic timers goes on). A fit now would race with it: its resize and readings would land
    /// between two ticks at a point that depends on the machine's load (`advanceClock` waits for
    /// a run a quarter of a second at most), and content the timers moved would read as content
    /// that grew with the view.
    private var timerDue: Bool {
        virtualClock && (nextPageTimer.map { $0 <= now + 0.0005 } ?? false)
    }

    /// Virtual clock: the page's animation frames are stepped one by one (`AnimationFrames`).
    private var animating: Bool {
        virtualClock && frames.steps(waiting: framesWaiting) && session.pageIsIdle(network: view.requestsInFlight, at: now)
    }

    /// Steps the page's clock to `t` (its next frame's time, `AnimationFrames`) and runs one
    /// animation frame there.
    private func stepFrame(to t: Double) async {
        let from = now
        let delta = max(0, t - from)
        let result = await evaluate(ProbeScript.frameCall(ms: delta * 1000))
        guard !Task.isCancelled else { return }
        clockOffset += delta
        if delta > 0 { session.clockJumped(ClockJump(from: from, to: now, real: realNow, reason: ClockJump.frames)) }
        _ = frameRead(result)
    }

    /// Takes in the reading after an animation frame (`ProbeScript.frameCall`): recorded when the
    /// height moved, as pending work otherwise. Returns the page's clock after the frame.
    private func frameRead(_ result: Result<String, JavaScriptError>) -> PageClock? {
        let t = now
        guard case .success(let json) = result, let reading = ProbeReading.decode(json) else {
            frames.frameRan(at: t, value: nil)
            return nil
        }
        noteClock(reading, at: t)
        let before = frames.lastValue
        frames.frameRan(at: t, value: reading.value)
        let work = reading.pendingWork(at: t, network: view.requestsInFlight)
        if let value = reading.value, session.anchor != nil, session.moves(value) {
            let sample = HeightSample(t: t, height: value, source: .poll, cause: "animation-frame", real: real)
            session.record(sample, pending: work)
            note(describe(sample, moved: true, error: nil))
        } else {
            if let work { session.updatePending(work, at: t) }
            if let value = reading.value, let before, value != before {
                note("animation frame: \(Pixels.format(value))")
            }
        }
        return reading.clock
    }

    /// The pause between the two readings that tell whether content holds still after a resize:
    /// 50 ms of the page's time. On the virtual clock an idle page's clock jumps them and one frame
    /// passes in real time (for what the page does in its next frame: resize observers, animation
    /// frames).
    private func holdStill() async {
        guard virtualClock, session.pageIsIdle(network: view.requestsInFlight, at: now) else {
            return await GLibClock.sleep(0.05)
        }
        await advanceClock(to: now + 0.05 - Self.frame, reason: "hold-still")
        await GLibClock.sleep(Self.frame)
    }

    /// A frame of the view's 60 Hz display.
    private static let frame = 1.0 / 60

    // MARK: - Fit mode

    /// Gives the view the adopted height, waits until the viewport has it, then reads the
    /// content twice, 50 ms apart: content that is taller than the new view and holds still
    /// grew with the view (evidence of a runaway); content still moving moves by itself.
    private func fit(to height: Double) async throws -> Outcome {
        note("fit: view height \(Pixels.format(session.viewHeight)) → \(Pixels.format(height))")
        let issuedAt = now
        await resizeView(to: height)
        let first = await read(.poll, cause: "after-resize")
        await holdStill()
        let second = await read(.poll, cause: "after-resize")
        try Task.checkCancellation()
        let still = first != nil && second != nil && abs(first! - second!) <= 1
        guard session.resized(to: height, issuedAt: issuedAt, at: now, contentHeight: still ? second : nil) else {
            return .goOn
        }
        note("runaway: \(session.runaway.evidence)")
        let (content, culprits) = await readAtOtherView(Double(session.options.height))
        try Task.checkCancellation()
        session.runawayExplained(noFitHeight: content, culprits: culprits)
        return .ended(.runaway)
    }

    /// Whether the content beneath the fitted view was looked at, in this phase (the load's, or
    /// a step's).
    private var lookedBeneathView = false

    /// Fit mode, once a phase, at the verdict: where the body is at least as tall as the view
    /// (quirks mode, `min-height: 100%`), content that shrank after the view grew to it reads as
    /// tall as the view, and the fixed point keeps the height the content had at the last fit,
    /// which depends on when that fit ran against the page's real events. When the content's own
    /// boxes end above the view, the view goes back to `--height` and fit mode grows it to the
    /// content again, as from a fresh load; true when it did.
    private func contentShrankBeneathView() async throws -> Bool {
        let start = Double(session.options.height)
        guard session.options.fit, !lookedBeneathView, let anchor = session.anchor,
              session.viewHeight > start + 0.5, abs(anchor - session.viewHeight) <= 1 else { return false }
        lookedBeneathView = true
        guard case .success(let json) = await evaluate(ProbeScript.contentBottomCall), let bottom = Double(json) else {
            return false
        }
        try Task.checkCancellation()
        guard bottom < session.viewHeight - max(session.options.threshold, 1) else { return false }
        note("the content ends at \(Pixels.format(bottom)), above the view that holds it up: fitting again from \(Pixels.format(start))")
        await resizeView(to: start)
        _ = session.resized(to: start, at: now, contentHeight: nil)
        await read(.poll, cause: "after-resize")
        try Task.checkCancellation()
        return true
    }

    /// The view reached the cap below the content and the page has settled there: reads the
    /// content at `--height` (and which elements changed with the view) and lets the session tell
    /// whether the content depends on the view. Content that does not is the verdict as it
    /// stands: the view goes back to the cap only for a snapshot (what the app's frame shows), as
    /// that is another full paint of the tallest view, the costliest drawing a page gets.
    private func checkViewAtCap() async throws -> Outcome {
        let cap = session.viewHeight
        let check = Double(session.options.height)
        note("the view is at its cap, \(Pixels.format(cap)), below the content: checking the content at \(Pixels.format(check))")
        let (content, culprits) = await readAtOtherView(check)
        try Task.checkCancellation()
        let finding = session.viewChecked(view: check, content: content, culprits: culprits)
        note("view check: \(finding)")
        if case .independent = finding, snapshotPath == nil { return .ended(.settled) }
        await resizeView(to: cap)
        try Task.checkCancellation()
        switch finding {
        case .independent:
            await read(.poll, cause: "after-resize")
            return .goOn
        case .runaway: return .ended(.runaway)
        case .beyondCap, .moved: return .ended(.viewDependent)
        }
    }

    /// Notes every element's height, gives the view `height`, and reads the content there twice,
    /// 50 ms apart, without recording it (it is not what the app shows): the content if it held
    /// still, and the elements whose height changed with the view.
    private func readAtOtherView(_ height: Double) async -> (content: Double?, culprits: [String]) {
        _ = await evaluate(ProbeScript.markViewCall)
        await resizeView(to: height)
        let first = await silentRead()
        await holdStill()
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

    /// Sets the view's height and waits (0.5 s at most) until the page's viewport has it, and
    /// `width` too when given (a step changed it).
    private func resizeView(to height: Double, width: Int? = nil) async {
        view.setViewportHeight(height)
        let expected = view.expectedInnerHeight(for: height)
        let deadline = now + 0.5
        while !Task.isCancelled {
            if case .success(let json) = await evaluate(ProbeScript.viewportCall),
               let size = try? JSONDecoder().decode([Double].self, from: Data(json.utf8)), size.count == 2,
               abs(size[1] - expected) < 1, width.map({ abs(size[0] - Double($0)) < 1.5 }) ?? true { return }
            if now >= deadline {
                note("the viewport did not take its new height within 0.5 s")
                return
            }
            await GLibClock.sleep(0.01)
        }
    }

    // MARK: - Steps

    /// Applies each step in turn and measures the page again until its verdict, under the same
    /// rules as after the load. A step runs only from a page whose verdict is `ok`: once one does
    /// not settle (or cannot be applied) the rest are skipped. Returns the steps' results and the last end.
    private func run(_ steps: [PageStep], after reason: EndReason, base: PageReport) async -> ([StepReport], EndReason) {
        var reports: [StepReport] = []
        var last = reason
        var shown = StepStrategyReplay.Shown(observe: base.strategies.observe.height, schedule: base.strategies.schedule.height,
                                             scheduleAgain: base.strategies.schedule.height)
        // From a page that has a height of its own: settled, or quiet at the timeout (`ok` either way).
        var stopped = base.status == .ok ? nil : "not applied: the page ended \(base.status.rawValue) before its first step"
        for (offset, step) in steps.enumerated() {
            if let stopped {
                reports.append(StepReport(step: "\(step)", status: .skipped, message: stopped))
                continue
            }
            let (report, end) = await measure(step, index: offset + 1, before: shown)
            reports.append(report)
            last = end
            if let strategies = report.strategies {
                shown = .init(observe: strategies.observe.height, schedule: strategies.schedule.height,
                              scheduleAgain: strategies.scheduleAgain.height)
            }
            if report.status != .ok { stopped = "not applied: step \(offset + 1) (\(step)) ended \(report.status.rawValue)" }
        }
        return (reports, last)
    }

    /// Applies one step and measures until the page's next verdict.
    private func measure(_ step: PageStep, index: Int, before: StepStrategyReplay.Shown) async -> (StepReport, EndReason) {
        var timings = StepTimings()
        let appliedAt = now
        let realStart = realNow
        timings.appliedAt = appliedAt
        let navigations = stoppedNavigationsTotal
        note("step \(index): \(step)")
        var stepOptions = session.options
        let applied = await apply(step, to: &stepOptions)
        if case .failed(let failure) = applied {
            note("step \(index) failed: \(failure)")
            return (StepReport(step: "\(step)", status: .failed, message: "\(step): \(failure)", timings: timings), .settled)
        }
        // The page's next rendering update dispatches what the change causes (resize, scroll and
        // media-query events): it comes before the first reading.
        await nextRendering()
        if stepOptions.fit, !step.isScroll, let value = await silentRead(), value <= session.viewHeight + 0.5 {
            // Content that became shorter than the fitted view may read as tall as the view (a
            // document without a doctype, a body of height 100%): fit mode measures it from the
            // view a load starts with, as a fresh load does, and grows the view back to it.
            await resizeView(to: Double(stepOptions.height))
            _ = session.resized(to: Double(stepOptions.height), at: now, contentHeight: nil)
            await nextRendering()
        }
        var from = now
        if case .wait(let seconds) = step { from += seconds }
        session.stepStarted(index, at: from, options: stepOptions)
        nextPoll = 0
        lookedBeneathView = false
        lastIdleBlocker = nil
        await read(.poll, cause: "step")
        let (end, endedAt) = await measureWithinTimeout(step: index)
        note("step \(index) ended: \(end)")
        timings.total = endedAt
        timings.settledAt = end == .settled ? endedAt : nil
        timings.realSeconds = virtualClock ? realNow - realStart : nil

        var builder = ReportBuilder(url: source.url, session: session, end: end, endedAt: endedAt)
        builder.verdictDue = session.settleCheckAt
        let (pageStatus, verdictMessage, height) = builder.verdict()
        let status: StepStatus = switch pageStatus {
        case .ok: .ok
        case .unstable: .unstable
        case .timeout: .timeout
        case .runaway: .runaway
        case .crashed: .crashed
        case .fallback, .loadError: .failed
        }
        var notes = [verdictMessage, applied.note].compactMap { $0 }
        if stoppedNavigationsTotal > navigations, let target = stoppedNavigations.last {
            notes.append("the page tried to navigate to \(target.prefix(200)); stopped, measured as it was")
        }
        let samples = session.samples.filter { $0.step == index }
        let replay = StepStrategyReplay(schedule: session.options.schedule, threshold: session.options.threshold)
        let strategies = replay.replay(samples, appliedAt: from, before: before, height: height, settled: end == .settled)
        return (StepReport(step: "\(step)", status: status, message: notes.isEmpty ? nil : notes.joined(separator: "; "),
                           height: height, timings: timings, strategies: strategies), end)
    }

    /// How applying a step went.
    private enum Applied {
        case done(note: String?)
        case failed(String)

        var note: String? { if case .done(let note) = self { note } else { nil } }
    }

    /// Changes the view, the page or the settings as `step` says, and waits until the page has
    /// the change (its viewport, its color scheme, its click); `options` takes the new settings.
    private func apply(_ step: PageStep, to options: inout MeasureOptions) async -> Applied {
        switch step {
        case .width(let width):
            options.width = width
            view.setViewportWidth(width, height: session.viewHeight)
            await resizeView(to: session.viewHeight, width: width)
        case .height(let height):
            options.height = height
            await resizeView(to: Double(height))
            _ = session.resized(to: Double(height), at: now, contentHeight: nil)
        case .fontSize(let px):
            options.fontSize = px
            view.setFontSize(px)
        case .textZoom(let factor):
            // A suite's zooms are not checked against its steps when it is read.
            if options.zoom != 1, factor != 1 { return .failed(Self.oneZoom) }
            textZoom = factor
            view.setTextZoom(factor, height: session.viewHeight)
            await resizeView(to: session.viewHeight, width: options.width)
        case .zoom(let factor):
            if textZoom != 1, factor != 1 { return .failed(Self.oneZoom) }
            options.zoom = factor
            // The view stays within the tallest surface fit mode sets, in device px at the new zoom.
            let height = min(session.viewHeight, (MeasurementSession.maxViewDevicePixels / factor).rounded(.down))
            view.setPageZoom(factor, height: height)
            await resizeView(to: height, width: options.width)
            _ = session.resized(to: height, at: now, contentHeight: nil)
        case .colorScheme(let scheme):
            options.colorScheme = scheme == .light ? nil : scheme
            await ColorSchemeGate.shared.change(to: scheme)
            let deadline = GLibClock.now + 0.5
            while GLibClock.now < deadline, !Task.isCancelled {
                if case .success(let answer) = await evaluate(ProbeScript.darkCall), answer == String(scheme == .dark) { break }
                await GLibClock.sleep(0.005)
            }
        case .click(let selector):
            return await click(selector)
        case .scroll(let target):
            let y: Double? = if case .y(let y) = target { y } else { nil }
            if case .success(let reached) = await evaluate(ProbeScript.scrollCall(to: y)) { note("scrolled to \(reached)") }
        case .wait:
            break
        }
        return .done(note: nil)
    }

    /// Waits for the page's next rendering update (a frame of the display at most, 0.1 s if the
    /// page does not answer).
    private func nextRendering() async {
        guard case .success(let json) = await evaluate(ProbeScript.renderingMarkCall), let mark = Int(json) else { return }
        let deadline = GLibClock.now + 0.1
        while GLibClock.now < deadline, !Task.isCancelled {
            if case .success(let answer) = await evaluate(ProbeScript.renderedCall(since: mark)), answer != "false" { return }
            await GLibClock.sleep(0.002)
        }
    }

    /// The text zoom a step set (1: none).
    private var textZoom = 1.0
    private static let oneZoom = "a text zoom and a page zoom other than 1 cannot both hold (WebKitGTK zooms either the page or its text)"

    /// Taps the first element `selector` matches: a pointer click at its centre, once the page
    /// tells where that is; waits until the page saw the click (half a second at most).
    private func click(_ selector: String) async -> Applied {
        struct Target: Decodable { var x: Double?; var y: Double?; var covered: String?; var error: String? }
        guard case .success(let json) = await evaluate(ProbeScript.clickTargetCall(selector)),
              let target = try? JSONDecoder().decode(Target.self, from: Data(json.utf8)) else {
            return .failed("the page did not answer where the element is")
        }
        if let error = target.error { return .failed(error) }
        guard let x = target.x, let y = target.y else { return .failed("the page did not answer where the element is") }
        note("click at \(Pixels.format(x)), \(Pixels.format(y))" + (target.covered.map { " (on \($0), which covers the element)" } ?? ""))
        view.click(x: x, y: y)
        let deadline = GLibClock.now + 0.5
        var seen = false
        while !seen, GLibClock.now < deadline, !Task.isCancelled {
            if case .success(let answer) = await evaluate(ProbeScript.clickSeenCall), answer == "true" { seen = true } else { await GLibClock.sleep(0.002) }
        }
        if !seen { return .done(note: "the page saw no click within 0.5 s") }
        return .done(note: target.covered.map { "the tap landed on \($0), which covers the element" })
    }

    // MARK: - The end

    /// The report: the session's verdict, with the final metrics, the page's text when the
    /// verdict falls back to it, and the snapshot.
    private func report(for reason: EndReason, endedAt: Double) async -> PageReport {
        var builder = ReportBuilder(url: source.url, session: session, end: reason, endedAt: endedAt)
        builder.realEnd = virtualClock ? endedAt - clockOffset : nil
        builder.engine = engineWork
        builder.verdictDue = session.settleCheckAt
        builder.verdictLayout = lastLayoutSeconds
        builder.stoppedNavigations = stoppedNavigations
        builder.stoppedNavigationsTotal = stoppedNavigationsTotal
        let usable = reason.pageCanAnswer(loadFinished: session.finishedAt != nil)
        let reading = usable ? await finalReading() : nil
        builder.metrics = reading?.metrics
        if let margins = reading?.bodyMargins, margins.count == 2 { builder.bodyMargins = (margins[0], margins[1]) }
        builder.quirksMode = reading?.compatMode.map { $0 == "BackCompat" }
        builder.failedResources = FailedResource.merging(view.failedResources, pageSaw: reading?.resourceErrors ?? [],
                                                          offline: options.offline ? options.offlineMode : nil)
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
        case .html(let html, _, _):
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
