/// The measuring rules as a pure state machine, fed with timestamped facts by the engine.
///
/// Times are seconds since the load started; heights are CSS px. The engine tells the
/// session what happened (load committed and finished, readings, pending work, resizes)
/// and asks it what is next: when the next settle check is due, which view height fit mode
/// wants, whether the page has settled. Nothing here touches WebKit, so recorded timelines
/// can be replayed in tests.
public struct MeasurementSession: Sendable {
    /// The settings as they stand: a step (`PageStep`) changes some of them live.
    public private(set) var options: MeasureOptions
    public private(set) var samples: [HeightSample] = []
    public private(set) var committedAt: Double?
    public private(set) var finishedAt: Double?
    /// The settle rule's anchor: the last reading that moved more than the threshold
    /// (nil before any reading, and while JavaScript gives no value).
    public private(set) var anchor: Double?
    public private(set) var lastMoveAt: Double = 0
    /// What the page still does, as last reported, only the work that counts before the timeout.
    public private(set) var pending: PendingWork = .none
    public private(set) var pendingClearedAt: Double = 0
    /// Child frames still loading, as last reported (the clock waits for them, for
    /// `frameGrace` at most; the settle rule does not), and since when.
    public private(set) var framesLoading = 0
    private var framesLoadingSince: Double?
    /// How long the virtual clock waits at most, at real speed, for child frames still loading:
    /// a frame a script adds loads its first document in a few milliseconds (its timers are then
    /// known before a jump), while one whose load never ends (an ad frame whose requests were
    /// refused) would otherwise run the whole schedule at real speed.
    public static let frameGrace = 0.5
    /// The view's height in CSS px (fit mode changes it).
    public private(set) var viewHeight: Double
    public private(set) var runaway: RunawayDetector
    /// The last error JavaScript gave instead of a value.
    public private(set) var lastError: String?
    /// The engine stopped the page's loads (to stop a navigation the page started).
    public private(set) var loadsStopped = false
    /// Whether the content depends on the view: set once fit mode checked it (at the view cap)
    /// or proved a runaway.
    public private(set) var viewDependence: ViewDependence?
    /// Fonts that no longer count as pending though the page says they load: why, and when.
    public private(set) var fontsGivenUp: (reason: String, at: Double)?
    /// When the fonts began to load, as last reported (nil while none do).
    public private(set) var fontsLoadingSince: Double?
    /// The page clock's jumps, in order (virtual clock only).
    public private(set) var clockJumps: [ClockJump] = []
    /// The step being measured (`PageStep`, 1-based), and when the rules count from: when it was
    /// applied (for a `wait` step, when its wait ends). Its polls and its quiet window count from
    /// then, its timeout too. Nil before the first step.
    public private(set) var step: (index: Int, at: Double)?

    /// The tallest view fit mode sets, device px: an offscreen surface is limited to 32767.
    public static let maxViewDevicePixels = 16384.0

    public init(options: MeasureOptions) {
        self.options = options
        self.viewHeight = Double(options.height)
        self.runaway = RunawayDetector(threshold: options.threshold)
    }

    /// A step was applied with the settings it leaves (`options`): the rules start over from `t`,
    /// as after the load: the schedule's polls, the quiet window, the timeout.
    public mutating func stepStarted(_ index: Int, at t: Double, options: MeasureOptions) {
        step = (index, t)
        self.options = options
        viewDependence = nil
        runaway.reset()
    }

    /// When the load started, or the current step was applied: what the rules count from.
    public var origin: Double { step?.at ?? 0 }

    /// The timeout's end in the page's time: `--timeout` after the load started, or after the
    /// current step was applied.
    public var deadline: Double { origin + options.timeout }

    public mutating func loadCommitted(at t: Double) {
        committedAt = t
    }

    public mutating func loadFinished(at t: Double) {
        finishedAt = t
    }

    /// The engine stopped every load of the page. WebKit then leaves `document.fonts` loading
    /// for good when a font load was among them, so fonts no longer count as pending: waiting
    /// for them would hold the verdict until the timeout (seen on a corpus page that reloads
    /// itself: 15 s instead of 0.3 s).
    public mutating func stoppedLoads(at t: Double) {
        loadsStopped = true
        guard pending.fonts else { return }
        pending.fonts = false
        if pending.isEmpty { pendingClearedAt = t }
    }

    /// The engine moved the page's virtual clock. Stepped animation frames (reason
    /// `ClockJump.Reason.frames`) in a row are one entry, from the first step to the last.
    public mutating func clockJumped(_ jump: ClockJump) {
        if jump.reason == .frames, let last = clockJumps.last, last.reason == .frames {
            clockJumps[clockJumps.count - 1] = ClockJump(from: last.from, to: jump.to, real: jump.real, reason: .frames)
            return
        }
        clockJumps.append(jump)
    }

    /// Whether the page does nothing the clock must wait for: no document, frame, image, font or
    /// request loading, no request of the view in flight (`network`, counted by the engine now).
    /// Timers and animations are what a jump moves on.
    public func pageIsIdle(network: Int, at t: Double) -> Bool {
        idleBlocker(network: network, at: t) == nil
    }

    /// When a child frame still loading stops holding the clock (`frameGrace` after it started to):
    /// a wait at real speed ends there, not at the next poll. Nil when no frame is loading.
    public var frameGraceEnds: Double? {
        guard framesLoading > 0, let since = framesLoadingSince else { return nil }
        return since + Self.frameGrace
    }

    /// What keeps the page from being idle (the virtual clock then runs at real speed), for the
    /// log; nil when it is idle. `network`: the engine's count of the view's requests in flight.
    public func idleBlocker(network: Int, at t: Double) -> String? {
        if finishedAt == nil { return "the load has not finished" }
        if network > 0 { return "\(network) request\(network == 1 ? "" : "s") in flight (the engine's count)" }
        if framesLoading > 0, t - (framesLoadingSince ?? t) < Self.frameGrace { return "\(framesLoading) frame\(framesLoading == 1 ? "" : "s") still loading" }
        if pending.document { return "the document is loading" }
        if pending.images > 0 { return "\(pending.images) image\(pending.images == 1 ? "" : "s") loading" }
        if pending.fonts { return "fonts loading" }
        if pending.requests > 0 { return "\(pending.requests) fetch/XHR request\(pending.requests == 1 ? "" : "s") of the page" }
        if pending.workers > 0 { return "\(pending.workers) worker\(pending.workers == 1 ? "" : "s") running (a worker's clock is real)" }
        if let reason = pending.realTime { return reason }
        return nil
    }

    /// When each schedule poll is due, seconds since the load started (empty before load finished).
    public var pollTimes: [Double] {
        guard let start = step?.at ?? finishedAt else { return [] }
        return options.schedule.pollOffsets.map { start + $0 }
    }

    /// Records a reading and the pending work reported with it; returns whether the anchor moved.
    @discardableResult
    public mutating func record(_ sample: HeightSample, pending work: PendingWork? = nil, error: String? = nil) -> Bool {
        var sample = sample
        sample.step = step?.index
        samples.append(sample)
        if let error { lastError = error }
        if let work { updatePending(work, at: sample.t) }
        let moved = sample.height.map(moves) ?? false // an error tells nothing about the height
        if moved {
            anchor = sample.height
            lastMoveAt = sample.t
        }
        return moved
    }

    /// Whether a reading of `height` moves the anchor (more than the threshold from it, or the
    /// first value).
    public func moves(_ height: Double) -> Bool {
        guard let anchor else { return true }
        return abs(height - anchor) > options.threshold
    }

    /// How long fonts count as pending with no request of the view in flight: the request of a
    /// font the page just asked for may not have started yet.
    public static let fontGrace = 0.5
    /// How long fonts count as pending at most, requests in flight or not.
    public static let fontPatience = 5.0

    public mutating func updatePending(_ work: PendingWork, at t: Double) {
        var work = work
        if work.fonts {
            let since = fontsLoadingSince ?? t
            fontsLoadingSince = since
            let waited = t - since
            if waited >= Self.fontPatience || (work.network == 0 && waited >= Self.fontGrace) {
                work.fonts = false
                if fontsGivenUp == nil {
                    fontsGivenUp = (waited >= Self.fontPatience ? "fonts still loading after \(Seconds.format(Self.fontPatience))"
                        : "fonts said to be loading with no request in flight", t)
                }
            }
        } else {
            fontsLoadingSince = nil
        }
        if work.frames == 0 { framesLoadingSince = nil } else if framesLoading == 0 || framesLoadingSince == nil { framesLoadingSince = t }
        framesLoading = work.frames
        var counted = work.counting(before: deadline)
        if options.until == .quick { counted = PendingWork(images: work.images, fonts: work.fonts) }
        if loadsStopped {
            counted.fonts = false
            // A document whose loads were stopped may never complete; with nothing in flight it
            // is not waited for.
            if work.network == 0 { counted.document = false }
        }
        if !pending.isEmpty && counted.isEmpty { pendingClearedAt = t }
        pending = counted
    }

    /// The start of the current quiet window. A fit resize does not restart it by itself: if
    /// the content answers the new view height, the reading that shows it is a move.
    public var quietSince: Double {
        max(lastMoveAt, pendingClearedAt, finishedAt ?? 0, step?.at ?? 0)
    }

    /// When the next confirming reading is due; nil while work is pending or before load finished.
    public var settleCheckAt: Double? {
        guard let finishedAt, pending.isEmpty else { return nil }
        let start = step?.at ?? finishedAt
        if options.until == .quick { return max(start, pendingClearedAt) }
        var due = quietSince + options.quiet
        if options.until == .schedule { due = max(due, start + options.schedule.duration) }
        return due
    }

    /// Whether the page has settled: the quiet window passed with nothing pending and a reading
    /// taken after it agrees.
    /// In fit mode the height must also be a fixed point: the view holds the content (within the
    /// threshold), or stopped at its cap below it (`needsViewCheck` then decides).
    public func isSettled(at now: Double) -> Bool {
        guard let due = settleCheckAt, now >= due - 0.001,
              let last = samples.last, last.t >= due - 0.001 else { return false }
        return !missesFixedPoint
    }

    /// Fit mode has resized the view, the view is below its cap, and the content does not fill it:
    /// the reader app would resize again, so this height is not one it keeps. (Before the first
    /// resize the engine fits before it checks for the end.)
    public var missesFixedPoint: Bool {
        guard options.fit, let anchor, anchor > 0, viewHeight < viewCap - 0.5,
              viewHeight != Double(options.height) || !runaway.steps.isEmpty else { return false }
        return abs(anchor - viewHeight) > max(options.threshold, 1)
    }

    /// Fit mode: the view height (CSS px) the reader would set now, or nil to keep it.
    public var fitTarget: Double? {
        guard options.fit, let anchor, anchor > 0 else { return nil }
        let target = min(anchor.rounded(.up), viewCap)
        return abs(target - viewHeight) >= 1 ? target : nil
    }

    /// Records that the view took a new height, with the content height read once it held
    /// still (nil: it kept moving by itself, which is no evidence); returns true when this
    /// proves a runaway.
    /// `issuedAt` is when the resize was asked for, `t` when the content was read after it.
    public mutating func resized(to height: Double, issuedAt: Double? = nil, at t: Double, contentHeight: Double?) -> Bool {
        viewHeight = height
        guard let contentHeight else {
            runaway.reset()
            return false
        }
        return runaway.record(view: height, content: contentHeight, at: issuedAt ?? t)
    }

    /// The view cap in CSS px.
    public var viewCap: Double { (Self.maxViewDevicePixels / options.zoom).rounded(.down) }

    /// Fit mode stopped at the view cap below the content: before the verdict, the engine must
    /// read the content at a second view height (`--height`) to tell whether it depends on the
    /// view (`viewChecked`). An `ok` is only ever a fixed point (the content at the final view
    /// equals the height) or content that does not depend on the view.
    public var needsViewCheck: Bool {
        guard options.fit, viewDependence == nil, let anchor else { return false }
        return viewHeight >= viewCap - 0.5 && anchor > viewHeight + options.threshold
    }

    /// Records the check at the view cap: the content read at `view` (nil: it kept moving) and
    /// the elements that changed with the view. Returns what it found; a runaway is recorded in
    /// `runaway` too.
    @discardableResult
    public mutating func viewChecked(view: Double, content: Double?, culprits: [String]) -> ViewDependence.Finding {
        let capContent = anchor ?? 0
        let finding = ViewDependence.finding(cap: (viewHeight, capContent), check: (view, content),
                                             threshold: options.threshold)
        switch finding {
        case .independent:
            viewDependence = ViewDependence(dependsOnView: false, noFitHeight: content)
        case .runaway(let law):
            runaway.prove(law)
            viewDependence = ViewDependence(dependsOnView: true, law: law, noFitHeight: content, culprits: culprits)
        case .beyondCap(let law):
            viewDependence = ViewDependence(dependsOnView: true, law: law, noFitHeight: content, culprits: culprits)
        case .moved:
            viewDependence = ViewDependence(dependsOnView: nil, culprits: culprits.isEmpty ? nil : culprits)
        }
        return finding
    }

    /// Records, for a runaway found while fitting, the content at `--height` and the elements
    /// that changed with the view.
    public mutating func runawayExplained(noFitHeight: Double?, culprits: [String]) {
        viewDependence = ViewDependence(dependsOnView: true, law: runaway.law, noFitHeight: noFitHeight,
                                        culprits: culprits)
    }

    /// The first usable reading, when the app first had something to show.
    public var firstUsable: HeightSample? { samples.first(where: \.isUsable) }

    /// The last reading, the page's final state.
    public var lastReading: HeightSample? { samples.last }

    /// The last usable reading.
    public var lastUsable: HeightSample? { samples.last(where: \.isUsable) }
}
