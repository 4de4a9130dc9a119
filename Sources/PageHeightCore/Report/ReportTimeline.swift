extension RecordedTimeline {
    /// The timeline a report's strategies are replayed on, from the facts a report records:
    /// both `ReportBuilder` (from the session) and a recorded report read back from JSON build it
    /// here, so a replay of the report under its own schedule gives its `strategies`.
    ///
    /// Once the content grows with the view, what a poll reads depends only on how far our own
    /// resizes got: the timeline ends where the runaway began. The app's measurement at load
    /// stays: the app resizes only after it, whereas our first resize may overtake our own load
    /// reading (both start when the load finishes), and which came first must not decide what
    /// the strategies show.
    /// - Parameters:
    ///   - settled: the settle rule ended the measurement (the report's `timings.settledAt`).
    ///   - endedAt: when the measurement ended (the report's `timings.total`).
    ///   - runawayStartedAt: when the content began to grow with the view, for `runaway`.
    public init(samples: [HeightSample], finishedAt: Double?, options: MeasureOptions, status: PageStatus,
                settled: Bool, endedAt: Double, runawayStartedAt: Double?) {
        var kept = samples
        if status == .runaway, let start = runawayStartedAt {
            kept = samples.filter { $0.t < start || $0.source == .load }
        }
        let horizon = Horizon.of(settled: settled && options.until != .quick, quiet: status == .ok,
                                 endedAt: endedAt, lastReadingAt: kept.map(\.t).max())
        self.init(samples: kept, finishedAt: finishedAt, recordedSchedule: options.schedule, horizon: horizon)
    }
}
