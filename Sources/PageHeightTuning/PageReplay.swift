import PageHeightCore

/// What a reader app with another schedule and threshold would have shown on one recorded
/// page: its final height, the jumps the reader sees, when the final height came, and the verdict.
///
/// The replay is `StrategyReplay`'s schedule strategy, the code that fills a report's
/// `strategies.schedule`. Times are seconds since the load started.
public struct PageReplay: Sendable, Equatable {
    /// A change of the shown height the reader sees.
    public struct Jump: Sendable, Equatable {
        public var t: Double
        /// The height shown from then on.
        public var height: Double
        /// How far it moved from the height shown before.
        public var size: Double
    }

    public var url: String
    public var index: Int?
    public var status: PageStatus
    /// The settled height judged against.
    public var settled: Double?
    /// The app's outcome: its final height, every adoption (the first is the first height
    /// shown, not a jump), its error against the report's height (as in the report's `strategies`).
    public var outcome: StrategyOutcome
    public var verdict: PageVerdict
    /// When the load finished.
    public var loadFinished: Double?
    /// How long and by how much the app showed a wrong height (nil when the page is not known
    /// right or wrong).
    public var wrongTime: WrongHeightTime?

    /// Replays `report` under `app`.
    /// - Parameters:
    ///   - tolerance: the largest error, px, that is still right.
    ///   - fit: the app's fit mode; a report recorded in the other mode cannot tell (content
    ///     that depends on the view's height would have laid out otherwise). nil: as recorded.
    public init(_ report: RecordedReport, app: StrategyReplay, tolerance: Double, fit: Bool? = nil) {
        self.init(report, timeline: report.timeline, app: app, tolerance: tolerance, fit: fit)
    }

    /// As `init(_:app:tolerance:fit:)` with the report's timeline built once by the caller.
    public init(_ report: RecordedReport, timeline: RecordedTimeline, app: StrategyReplay, tolerance: Double, fit: Bool? = nil) {
        url = report.url
        index = report.index
        status = report.status
        loadFinished = report.timings.finished
        settled = report.hasSettledHeight ? report.height : nil
        outcome = app.replaySchedule(timeline, height: report.height)
        if let settled {
            if let fit, fit != report.options.fit {
                verdict = .unknown("recorded with\(report.options.fit ? "" : "out") fit mode")
            } else if !outcome.complete {
                verdict = .unknown("polls after the recording ends\(Self.horizonText(timeline.horizon, loadFinished: loadFinished))")
            } else {
                verdict = .judge(outcome, settled: settled, tolerance: tolerance)
            }
        } else {
            verdict = .notJudged(report.height == nil ? "\(report.status.rawValue), no height" : "status \(report.status.rawValue)")
        }
        wrongTime = verdict.isKnown ? WrongHeightTime(shown: outcome.jumps, content: timeline.samples, tolerance: tolerance,
                                                                recordingEnd: report.timings.total) : nil
    }

    private static func horizonText(_ horizon: RecordedTimeline.Horizon, loadFinished: Double?) -> String {
        guard case .watched(let until) = horizon, let loadFinished else { return "" }
        return ", \(Seconds.format(max(0, until - loadFinished))) after load finished"
    }

    /// The moves of the shown height after the first one.
    public var jumps: [Jump] {
        zip(outcome.jumps, outcome.jumps.dropFirst()).map { before, after in
            Jump(t: after.t, height: after.height, size: after.height - before.height)
        }
    }

    /// When the app showed its final height (nil: it never showed one).
    public var finalAt: Double? { outcome.jumps.last?.t }

    /// Seconds from load finished to the final height.
    public var finalAfterLoad: Double? {
        guard let finalAt, let loadFinished else { return nil }
        return max(0, finalAt - loadFinished)
    }
}
