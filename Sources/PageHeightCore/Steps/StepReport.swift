/// How a step (`PageStep`) ended.
public enum StepStatus: String, Codable, Sendable, CaseIterable {
    /// Applied, and the page settled again.
    case ok
    /// Applied, and the page still moved at the step's timeout.
    case unstable
    /// Fit mode: after the step the content grew with the view.
    case runaway
    /// The page's script stalled during the step (an evaluation never returned).
    case timeout
    /// The step could not be applied (a selector that matches nothing, an element with no box).
    case failed
    /// Not applied: the page had no verdict to start from, or an earlier step failed.
    case skipped
    /// The caller cancelled the measurement during the step.
    case cancelled
    /// The web process died during the step.
    case crashed
}

/// When a step happened, seconds since the load started (the page's time on the virtual clock).
public struct StepTimings: Codable, Sendable, Equatable {
    /// When the step was applied.
    public var appliedAt: Double?
    /// When the page settled after it.
    public var settledAt: Double?
    /// When the step's verdict came.
    public var total: Double?
    /// Wall-clock seconds the step took, when the page ran on the virtual clock.
    public var realSeconds: Double?

    public init() {}
}

/// What each reader-app strategy shows after a step, its error against the step's height
/// (negative: the article is clipped; positive: blank space below it).
public struct StepStrategies: Codable, Sendable, Equatable {
    /// Follows every content-size change (an app observing its scroll view's contentSize).
    public var observe: StrategyOutcome
    /// Measured after load only: what it showed before the step, now stale.
    public var schedule: StrategyOutcome
    /// Runs the growing-delay schedule again when the change happens.
    public var scheduleAgain: StrategyOutcome

    enum CodingKeys: String, CodingKey {
        case observe, schedule, scheduleAgain = "schedule-again"
    }

    public init(observe: StrategyOutcome, schedule: StrategyOutcome, scheduleAgain: StrategyOutcome) {
        (self.observe, self.schedule, self.scheduleAgain) = (observe, schedule, scheduleAgain)
    }
}

/// One step's result in a report's `steps`.
public struct StepReport: Codable, Sendable, Equatable {
    /// The step as given (`width=844`).
    public var step: String
    public var status: StepStatus
    /// Why the status is not `ok`, or a note on an `ok` step (a navigation the click started).
    public var message: String?
    /// The height after the step, CSS px.
    public var height: Double?
    public var timings: StepTimings
    public var strategies: StepStrategies?

    public init(step: String, status: StepStatus, message: String? = nil, height: Double? = nil,
                timings: StepTimings = StepTimings(), strategies: StepStrategies? = nil) {
        (self.step, self.status, self.message, self.height, self.timings, self.strategies)
            = (step, status, message, height, timings, strategies)
    }
}
