import Foundation
import PageHeightCore

/// The page being measured, as every part of the driver sees it: its view, its session (which
/// decides), its time (real, or virtual: real plus the clock's jumps), the deadline of the phase
/// it is in, and the probe calls and readings that feed the session. The parts (`VirtualClock`,
/// `ViewFitting`, `StepRunner`, `MeasurementDriver`) share one instance.
@GLibActor
final class MeasuredPage {
    let view: PageView
    let source: PageSource
    let options: MeasureOptions
    var session: MeasurementSession
    /// The deadline of the phase under way; `Deadline.never` outside the measured phases.
    private(set) var deadline = Deadline.never
    /// The page's timers and frames as its last reading told (`VirtualClock`'s input).
    var timers = PageTimers()
    /// What the engine spent on the page (layout, load), as the probe reported it.
    var engineWork = EngineWork()
    var lastLayoutSeconds = 0.0
    private(set) var startedAt = 0.0 // monotonic seconds
    private(set) var startedEpoch = 0.0
    /// Virtual clock: the jumps taken so far, seconds (the page's time is real time plus this).
    var clockOffset = 0.0
    private let log: @Sendable (String) -> Void
    private var outstanding: [Int: Double] = [:] // evaluation id -> start time
    private var nextEvaluation = 0

    /// An evaluation that has not returned within this many seconds counts as stalled.
    static let stallAfter = 1.0

    init(view: PageView, source: PageSource, options: MeasureOptions, log: @escaping @Sendable (String) -> Void) {
        (self.view, self.source, self.options, self.log) = (view, source, options, log)
        session = MeasurementSession(options: options)
    }

    /// Starts a phase under `deadline`: evaluations of the phase before no longer count as stalled.
    func begin(_ deadline: Deadline) {
        self.deadline = deadline
        outstanding.removeAll()
    }

    /// Marks the load's start: the page's time 0.
    func start() {
        startedAt = GLibClock.now
        startedEpoch = Date().timeIntervalSince1970
    }

    /// Seconds since the load started: the page's time (virtual on the virtual clock).
    var now: Double { GLibClock.now - startedAt + clockOffset }
    /// Seconds since the load started on the wall clock.
    var realNow: Double { GLibClock.now - startedAt }
    var virtualClock: Bool { options.clock == .virtual }
    /// The wall-clock time to record with a reading, on the virtual clock.
    var real: Double? { virtualClock ? realNow : nil }

    /// The monotonic time at which the page's time reaches `t`.
    func wallClock(_ t: Double) -> Double { startedAt + t - clockOffset }

    func note(_ text: String) {
        log(String(format: "%7.3f s  ", now) + (clockOffset > 0 ? String(format: "(real %.3f s)  ", realNow) : "") + text)
    }

    /// When the oldest evaluation still outstanding after `stallAfter` seconds was started.
    var stalledSince: Double? {
        guard let oldest = outstanding.values.min(), now - oldest > Self.stallAfter else { return nil }
        return oldest
    }

    // MARK: - Waits: each throws when the phase's deadline passed or the caller cancelled

    /// Runs `call` in the probe's world: its answer, or the page's error; nil when the page gave
    /// no usable answer. Counted as outstanding until it returns (`stalledSince`).
    func evaluate<Answer>(_ call: ProbeCall<Answer>) async throws -> Result<Answer, JavaScriptError> {
        let id = nextEvaluation
        nextEvaluation += 1
        outstanding[id] = now
        let result = await view.evaluate(call.script)
        // Interrupted, it stays outstanding: the timeout's verdict tells a page that never yielded.
        try deadline.check()
        outstanding[id] = nil
        switch result {
        case .success(let text):
            guard let answer = call.decode(text) else {
                return .failure(JavaScriptError(message: "the probe is missing (the page replaced or blocked it)"))
            }
            return .success(answer)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// `call`'s answer; nil when the page gave none.
    func ask<Answer>(_ call: ProbeCall<Answer>) async throws -> Answer? {
        if case .success(let answer) = try await evaluate(call) { return answer }
        return nil
    }

    /// Waits `seconds` of real time.
    func sleep(_ seconds: Double, precise: Bool = false) async throws {
        try await deadline.sleep(seconds, precise: precise)
    }

    /// The view's next event, waiting until the monotonic time `until` at most (nil: none came).
    func nextEvent(until: Double? = nil, precise: Bool = false) async throws -> ViewEvent? {
        let event = await view.inbox.next(until: min(until ?? .infinity, deadline.at), precise: precise)
        try deadline.check()
        return event
    }

    /// Asks `call` every `interval` seconds until `accept` takes its answer or `seconds` passed;
    /// whether it did.
    func poll<Answer>(_ call: ProbeCall<Answer>, every interval: Double, for seconds: Double,
                      until accept: (Answer) -> Bool) async throws -> Bool {
        let giveUp = GLibClock.now + seconds
        while true {
            if let answer = try await ask(call), accept(answer) { return true }
            if GLibClock.now >= giveUp { return false }
            try await sleep(interval)
        }
    }

    // MARK: - Readings

    /// Takes a reading of the page with the probe's `measure()` and records it; returns the value.
    @discardableResult
    func read(_ source: HeightSample.Source, poll: Int? = nil, cause: String? = nil) async throws -> Double? {
        let result = try await evaluate(ProbeScript.measure)
        let t = now
        var reading: ProbeReading?
        var error: String?
        switch result {
        case .success(let answer):
            reading = answer
            noteEngineWork(answer)
            noteClock(answer, at: t)
        case .failure(let failure):
            error = failure.message
        }
        let sample = HeightSample(t: t, height: reading?.value, source: source, poll: poll, cause: cause, real: real)
        let moved = session.record(sample, pending: reading?.pendingWork(at: t, network: view.requestsInFlight), error: error)
        if moved { timers.frames.pageMoved(value: reading?.value) }
        note(describe(sample, moved: moved, error: error))
        return reading?.value
    }

    /// Re-reads what is pending without adding a sample unless the height moved.
    func refreshPending(cause: String) async throws {
        guard let reading = try await ask(ProbeScript.measure) else { return }
        let t = now
        noteClock(reading, at: t)
        let work = reading.pendingWork(at: t, network: view.requestsInFlight)
        if let value = reading.value, session.anchor != nil, session.moves(value) {
            let sample = HeightSample(t: t, height: value, source: .poll, cause: cause, real: real)
            session.record(sample, pending: work)
            timers.frames.pageMoved(value: value)
            note(describe(sample, moved: true, error: nil))
        } else if let work {
            session.updatePending(work, at: t)
        }
    }

    /// The probe's value now, not recorded in the session.
    func silentRead() async throws -> Double? {
        try await ask(ProbeScript.measure)?.value
    }

    /// Virtual clock: takes in the page's timers and frames from a reading.
    func noteClock(_ reading: ProbeReading, at t: Double) {
        guard virtualClock, let clock = reading.clock else { return }
        timers.note(clock, at: t)
    }

    func describe(_ sample: HeightSample, moved: Bool, error: String?) -> String {
        let what = sample.poll.map { "poll \($0)" } ?? sample.cause.map { "\(sample.source.rawValue) \($0)" }
            ?? sample.source.rawValue
        let value = sample.height.map { Pixels.format($0) } ?? "no value (\(error ?? "?"))"
        return "\(what): \(value)\(moved ? " (moved)" : "")"
    }

    private func noteEngineWork(_ reading: ProbeReading) {
        if let layout = reading.layoutMs {
            lastLayoutSeconds = layout / 1000
            engineWork.layout += lastLayoutSeconds
        }
        if let end = reading.loadEventEnd { engineWork.loadEventEnd = ProbeReading.secondsSince(startedEpoch, stamp: end) }
        if let end = reading.loadWorkEnd { engineWork.loadWorkEnd = ProbeReading.secondsSince(startedEpoch, stamp: end) }
        if let layout = reading.loadLayoutMs { engineWork.loadLayout = layout / 1000 }
    }
}

/// Virtual clock: when the page's timers are due and how many animation frame callbacks wait, as
/// its last reading said (seconds since the load started), and how frames are stepped.
struct PageTimers {
    /// The page's next timer of any kind (periodic too).
    var nextPageTimer: Double?
    /// The child frames' next timer, and the first one-shot timer of any frame.
    var nextChildTimer: Double?
    var nextOneShotTimer: Double?
    /// The top frame's animation frame callbacks waiting for a frame.
    var framesWaiting = 0
    var frames = AnimationFrames()
    /// When the first running finite animation of the document ends.
    var nextAnimationEnd: Double?

    mutating func note(_ clock: PageClock, at t: Double) {
        nextPageTimer = clock.next.map { t + max(0, $0 - clock.now) / 1000 }
        nextChildTimer = clock.childNext.map { t + max(0, $0 - clock.now) / 1000 }
        nextOneShotTimer = clock.oneShot.map { t + max(0, $0 - clock.now) / 1000 }
        framesWaiting = clock.animationFrames ?? 0
        nextAnimationEnd = clock.animationEnd.map { t + max(0, $0 - clock.now) / 1000 }
    }
}
