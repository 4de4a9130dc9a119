import Foundation
import PageHeightCore

/// Where the virtual clock decides and takes its jumps.
///
/// Why it exists: an app's schedule waits up to two seconds and its settle rule half a second of
/// quiet; waited in real time, most of a measurement is waiting. When the page is idle (nothing
/// pending but its own timers and animations, which the hooks control), the page's clock jumps
/// to the next thing that can happen: its next timer, or the rules' next step (a poll, the settle
/// check, the timeout), and animation frames are stepped one by one (`AnimationFrames`). Time the
/// hooks do not control (requests, a busy page, a child frame's grace) runs at real speed, and the
/// session says what held it (`MeasurementSession.idleBlocker`).
@GLibActor
final class VirtualClock {
    private let page: MeasuredPage

    init(page: MeasuredPage) {
        self.page = page
    }

    /// A frame of the view's 60 Hz display.
    static let frame = 1.0 / 60
    /// Times closer than this (seconds) are the same time: a jump shorter than it is not taken.
    static let sameTime = 0.0005

    /// What the driver was about to wait for.
    enum Wake {
        case poll(Int)
        case settleCheck
        case refreshPending
    }

    /// Where to move the page's clock instead of waiting for `at` in real time: when the page is
    /// idle, to its next timer or to `at` (a poll, the settle check), whichever comes first, at
    /// most to the timeout. Nil when there is nothing to jump over.
    /// Nil too while a timer of the page is due and has not run yet (a run still going on): a jump
    /// then would move the page's clock from where the run is, behind the rules' time, and the
    /// page would lag behind it for the rest of the measurement.
    func jumpTarget(before at: Double, wake: Wake, nextPoll: Int) -> (to: Double, reason: ClockJump.Reason)? {
        let session = page.session, now = page.now, timers = page.timers
        guard !timerDue, session.pageIsIdle(network: page.view.requestsInFlight, at: now) else { return nil }
        var target: (to: Double, reason: ClockJump.Reason)
        switch wake {
        case .poll: target = (at, .poll)
        case .settleCheck: target = (at, .settleCheck)
        // Pending work of an idle page is timers and animations: the timers are jumped to,
        // running animations moved on in steps of the look for pending work.
        case .refreshPending: target = session.pending.animations > 0 ? (at, .pendingCheck) : (session.deadline, .timeout)
        }
        let polls = session.pollTimes
        if nextPoll < polls.count, polls[nextPoll] < target.to { target = (polls[nextPoll], .poll) }
        if session.deadline < target.to { target = (session.deadline, .timeout) }
        // A transition or animation ends on the way: the jump stops at its end, and the engine's
        // next frame finishes it there (its end event, and what the page does on it, at its time).
        if let end = timers.nextAnimationEnd, end < target.to { target = (end, .animationEnd) }
        if let timer = timers.nextPageTimer, timer < target.to {
            // Before the first one-shot timer (pending work) and the child frames' first timer,
            // only the top frame's periodic timers come due: one run over all their ticks, each at
            // its own time (a round trip a tick made a short chain run at about real speed).
            // Else a jump to the timer, which runs there.
            let runTo = min(target.to, timers.nextOneShotTimer ?? .infinity, timers.nextChildTimer ?? .infinity,
                            timers.nextAnimationEnd ?? .infinity)
            target = timers.framesWaiting == 0 && runTo > timer + Self.sameTime ? (runTo, .timers) : (timer, .timer)
        }
        // An animating page's next frame, when it comes first (at once after a pause).
        if timers.frames.steps(waiting: timers.framesWaiting) {
            let frame = timers.frames.nextFrame(now: now)
            if frame < target.to { return (frame, .frames) }
        }
        return target.to > now + Self.sameTime ? target : nil
    }

    /// Takes a jump `jumpTarget` chose: frames are stepped, anything else advances the clock.
    func take(_ jump: (to: Double, reason: ClockJump.Reason)) async throws {
        if jump.reason == .frames { return try await stepFrame(to: jump.to) }
        try await advance(to: jump.to, reason: jump.reason)
        // The page's timers ran: what they changed. A step of the rules is now due.
        if jump.reason == .timer || jump.reason == .timers { try await page.refreshPending(cause: "timer") }
    }

    /// Moves the page's clock (and the rules' time with it) to `t`, and waits until the page's
    /// timers due by then have run. A page that waits for an animation frame and is not stepped
    /// frame by frame (`AnimationFrames`) gets one frame at `t`, before anything reads it, unless
    /// the jump is to its timer (the frame comes after the timer has run, stepped or at the
    /// next jump).
    func advance(to t: Double, reason: ClockJump.Reason) async throws {
        let from = page.now
        let delta = t - from
        guard delta > 0 else { return }
        let timers = page.timers
        let withFrame = timers.framesWaiting > 0 && reason != .timer && !timers.frames.steps(waiting: timers.framesWaiting)
        let answer: PageClock?
        if withFrame {
            let result = try await page.evaluate(ProbeScript.frame(ms: delta * 1000))
            jumped(from: from, by: delta, reason: reason, withFrame: true)
            answer = frameRead(result)
        } else {
            let result = try await page.evaluate(ProbeScript.advance(byMs: delta * 1000, run: reason == .timers))
            jumped(from: from, by: delta, reason: reason, withFrame: false)
            answer = try? result.get()
        }
        guard let clock = answer else { return }
        try await waitForDueTimers(after: clock, run: reason == .timers)
    }

    private func jumped(from: Double, by delta: Double, reason: ClockJump.Reason, withFrame: Bool) {
        page.clockOffset += delta
        page.session.clockJumped(ClockJump(from: from, to: page.now, real: page.realNow, reason: reason))
        page.note("clock: \(Seconds.format(from)) → \(Seconds.format(page.now)) (\(reason.rawValue)\(withFrame ? ", then a frame" : ""))")
        if reason == .timer { page.timers.frames.pageMoved(value: nil) }
    }

    /// Timers that came due run in a task of their own, right after the jump: waits for them, a
    /// quarter of a second at most. Only for those due by the jump's time: one they arm meanwhile
    /// is due after it, and a chain of zero-delay timers (always one due) would otherwise hold
    /// every jump for the whole quarter. A run answers at its first timer and keeps a timer due
    /// until it reached its end: it is waited for to the end.
    private func waitForDueTimers(after clock: PageClock, run: Bool) async throws {
        var state = clock
        let jumpedTo = clock.now
        let started = GLibClock.now
        let giveUp = started + 0.25
        while (state.next ?? .infinity) <= (run ? state.now : jumpedTo), GLibClock.now < giveUp {
            // Each look is a round trip that the page's main thread answers between two of its
            // timers: looks a quarter of the wait apart (1 to 10 ms) keep them to a few per run.
            try await page.sleep(min(0.01, max(0.001, (GLibClock.now - started) / 4)))
            guard let next = try await page.ask(ProbeScript.clock) else { return }
            state = next
        }
        if let due = state.next, due <= (run ? state.now : jumpedTo) {
            page.note("timers due by the jump had not run after 0.25 s (the page's clock: next due at "
                + "\(Seconds.format(due / 1000)) s, now \(Seconds.format(state.now / 1000)) s)")
        }
    }

    /// A timer of the page is due and has not run yet (a run over the page's periodic timers goes
    /// on). A fit now would race with it: its resize and readings would land between two ticks at
    /// a point that depends on the machine's load (`advance` waits for a run a quarter of a second
    /// at most), and content the timers moved would read as content that grew with the view.
    var timerDue: Bool {
        page.virtualClock && (page.timers.nextPageTimer.map { $0 <= page.now + Self.sameTime } ?? false)
    }

    /// An animation of the page reached its end and the engine has not finished it yet (its next
    /// frame will): nothing jumps over that frame.
    var animationEndDue: Bool {
        page.virtualClock && (page.timers.nextAnimationEnd.map { $0 <= page.now + Self.sameTime } ?? false)
    }

    /// The page's animation frames are stepped one by one (`AnimationFrames`).
    var animating: Bool {
        page.virtualClock && page.timers.frames.steps(waiting: page.timers.framesWaiting)
            && page.session.pageIsIdle(network: page.view.requestsInFlight, at: page.now)
    }

    /// Steps the page's clock to `t` (its next frame's time, `AnimationFrames`) and runs one
    /// animation frame there.
    func stepFrame(to t: Double) async throws {
        let from = page.now
        let delta = max(0, t - from)
        let result = try await page.evaluate(ProbeScript.frame(ms: delta * 1000))
        page.clockOffset += delta
        if delta > 0 { page.session.clockJumped(ClockJump(from: from, to: page.now, real: page.realNow, reason: .frames)) }
        _ = frameRead(result)
    }

    /// Takes in the reading after an animation frame (`ProbeScript.frame`): recorded when the
    /// height moved, as pending work otherwise. Returns the page's clock after the frame.
    private func frameRead(_ result: Result<ProbeReading, JavaScriptError>) -> PageClock? {
        let t = page.now
        guard case .success(let reading) = result else {
            page.timers.frames.frameRan(at: t, value: nil)
            return nil
        }
        page.noteClock(reading, at: t)
        let before = page.timers.frames.lastValue
        page.timers.frames.frameRan(at: t, value: reading.value)
        let work = reading.pendingWork(at: t, network: page.view.requestsInFlight)
        if let value = reading.value, page.session.anchor != nil, page.session.moves(value) {
            let sample = HeightSample(t: t, height: value, source: .poll, cause: "animation-frame", real: page.real)
            page.session.record(sample, pending: work)
            page.note(page.describe(sample, moved: true, error: nil))
        } else {
            if let work { page.session.updatePending(work, at: t) }
            if let value = reading.value, let before, value != before {
                page.note("animation frame: \(Pixels.format(value))")
            }
        }
        return reading.clock
    }

    /// The pause between the two readings that tell whether content holds still after a resize:
    /// 50 ms of the page's time. On the virtual clock an idle page's clock jumps them and one frame
    /// passes in real time (for what the page does in its next frame: resize observers, animation
    /// frames).
    func holdStill() async throws {
        guard page.virtualClock, page.session.pageIsIdle(network: page.view.requestsInFlight, at: page.now) else {
            return try await page.sleep(0.05)
        }
        try await advance(to: page.now + 0.05 - Self.frame, reason: .holdStill)
        try await page.sleep(Self.frame)
    }
}
