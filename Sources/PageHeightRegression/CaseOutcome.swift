import PageHeightCore

/// What measuring one case gave: its status and height (over `--repeat` runs, the most
/// frequent), plus the spread of the runs.
public struct CaseOutcome: Sendable, Equatable {
    public var status: PageStatus
    /// CSS px (for `fallback`, the estimate).
    public var height: Double?
    /// Why the status is not `ok`.
    public var message: String?
    /// Set when the case was measured more than once.
    public var spread: RepeatSpread?
    /// Each step's result, when the case has steps.
    public var steps: [Baseline.StepEntry]?

    public init(status: PageStatus, height: Double?, message: String? = nil, spread: RepeatSpread? = nil,
                steps: [Baseline.StepEntry]? = nil) {
        (self.status, self.height, self.message, self.spread, self.steps) = (status, height, message, spread, steps)
    }

    /// `1234 px`, `~1091 px` (fallback), `runaway 944 px`, `load-error`.
    public static func format(status: PageStatus, height: Double?) -> String {
        switch (status, height) {
        case (.ok, let height?): Pixels.format(height)
        case (.fallback, let height?): "~" + Pixels.format(height)
        case (_, let height?): "\(status.rawValue) \(Pixels.format(height))"
        case (_, nil): status.rawValue
        }
    }

    public var formatted: String { Self.format(status: status, height: height) }
}
