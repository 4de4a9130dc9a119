/// One reading of the measured height on the timeline.
public struct HeightSample: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable {
        /// The one measurement when the load finished.
        case load
        /// A native measurement: a schedule poll (`poll` set) or a settle or resize check.
        case poll
        /// A change reported by the in-page probe.
        case observer
    }

    /// Seconds since the load started.
    public var t: Double
    /// The metric's value in CSS px; nil when JavaScript gave no value (error or stall).
    public var height: Double?
    public var source: Source
    /// The 1-based index of the schedule poll this reading is.
    public var poll: Int?
    /// Why the reading was taken: the probe's cause (`resize-observer`, `image-load`,
    /// `font-load`, `mutation`, `transition-end`, ...) or a native step (`settle-check`).
    public var cause: String?
    /// Seconds since the load started on the wall clock, when the page ran on the virtual clock
    /// (`t` is then the page's virtual time); nil on the real clock, where the two are one.
    public var real: Double?
    /// The step (`PageStep`, 1-based) the reading belongs to; nil before the first step.
    public var step: Int?

    public init(t: Double, height: Double?, source: Source, poll: Int? = nil, cause: String? = nil, real: Double? = nil) {
        (self.t, self.height, self.source, self.poll, self.cause, self.real) = (t, height, source, poll, cause, real)
    }

    /// Whether the reading is a height the reader app would use.
    public var isUsable: Bool { (height ?? 0) > 0 }
}

/// A jump of the page's virtual clock: the engine moved the page's time from `from` to `to`
/// (seconds since the load started, virtual) at `real` seconds on the wall clock, because the page
/// was idle and its next timer, or the rules' next step, was due at `to`.
public struct ClockJump: Codable, Sendable, Equatable {
    public var from: Double
    public var to: Double
    public var real: Double
    public var reason: Reason

    /// What a jump was for.
    public enum Reason: String, Codable, Sendable {
        /// The page's next timer.
        case timer
        /// A run over the page's periodic timers: each tick ran at its own time on the way.
        case timers
        /// Animation frames stepped one after another (`AnimationFrames`): one entry from the
        /// first step to the last, `real` at the last.
        case frames
        /// The rules' next step: a poll of the schedule, the settle check, the timeout.
        case poll
        case settleCheck = "settle-check"
        case timeout
        /// An animating page moved on to the next look for pending work.
        case pendingCheck = "pending-check"
        /// The pause between two readings that tell whether content holds still after a resize.
        case holdStill = "hold-still"
        /// The end of a running animation: its end event comes at its own time.
        case animationEnd = "animation-end"
    }

    public init(from: Double, to: Double, real: Double, reason: Reason) {
        (self.from, self.to, self.real, self.reason) = (from, to, real, reason)
    }
}
