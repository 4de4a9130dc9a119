import Foundation
import PageHeightCore

/// The measuring loop of a phase (the load, each step): handles the view's events, takes the
/// schedule's polls and the settle checks, fits the view (`ViewFitting`), and jumps the virtual
/// clock (`VirtualClock`), until the session says the page is done.
@GLibActor
final class SettleLoop {
    private let page: MeasuredPage
    private let clock: VirtualClock
    private let fitting: ViewFitting
    private let events: PageEvents
    /// The schedule poll to take next (an index into `session.pollTimes`).
    private var nextPoll = 0
    /// What kept the page from being idle when the clock last waited in real time (logged once).
    private var lastIdleBlocker: String?

    private var view: PageView { page.view }
    private var options: MeasureOptions { page.options }
    private var session: MeasurementSession {
        get { page.session }
        set { page.session = newValue }
    }

    private func note(_ text: String) { page.note(text) }

    init(page: MeasuredPage, clock: VirtualClock, fitting: ViewFitting, events: PageEvents) {
        (self.page, self.clock, self.fitting, self.events) = (page, clock, fitting, events)
    }

    /// Starts a phase's rules afresh: the schedule's polls from the first, fit mode's look
    /// beneath the view not yet taken.
    func startPhase() {
        nextPoll = 0
        lastIdleBlocker = nil
        fitting.lookedBeneathView = false
    }

    /// After the load or a step: handles events, takes the schedule's polls and the settle
    /// checks, fits the view, and jumps the virtual clock, until the session says the page is done.
    func settle() async throws -> EndReason {
        while true {
            // What the page told meanwhile (during a fit, a reading) comes first.
            while let event = view.inbox.take() {
                if case .ended(let reason) = events.handle(event) { return reason }
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
            if let event = try await page.nextEvent(until: GLibClock.now + look) { return events.handle(event) }
            try await page.refreshPending(cause: "timer")
            return .again
        }
        let blocker = page.virtualClock ? session.idleBlocker(network: view.requestsInFlight, at: page.now) : nil
        if let blocker, blocker != lastIdleBlocker { note("the clock runs at real speed: \(blocker)") }
        lastIdleBlocker = blocker
        // A child frame's grace may end before `at`: the clock jumps again from there.
        let graceEnds = page.virtualClock ? session.frameGraceEnds.flatMap { $0 > page.now && $0 < at ? $0 : nil } : nil
        if let event = try await page.nextEvent(until: page.wallClock(graceEnds ?? at), precise: precise) { return events.handle(event) }
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
}
