import PageHeightCore

/// What `replay` and `tune` read of a page report written earlier (`--json`, or a line of
/// `batch`'s JSON Lines): the timeline and the facts that say how far it holds.
///
/// Times are seconds since the load started, heights CSS px, as in `PageReport`.
public struct RecordedReport: Decodable, Sendable, Equatable {
    public var url: String
    /// The page's position in a batch list.
    public var index: Int?
    public var status: PageStatus
    /// The stabilized height.
    public var height: Double?
    public var samples: [HeightSample]
    public var timings: Timings
    public var options: MeasureOptions
    public var strategies: Strategies
    public var fitSteps: [RunawayDetector.Step]?
    public var viewDependence: ViewDependence?

    public init(url: String, index: Int? = nil, status: PageStatus, height: Double?, samples: [HeightSample],
                timings: Timings, options: MeasureOptions, strategies: Strategies, fitSteps: [RunawayDetector.Step]? = nil,
                viewDependence: ViewDependence? = nil) {
        (self.url, self.index, self.status, self.height, self.samples, self.timings, self.options, self.strategies, self.fitSteps, self.viewDependence)
            = (url, index, status, height, samples, timings, options, strategies, fitSteps, viewDependence)
    }

    /// The readings of the load, before any step (`--then`): what the strategies replay.
    private var loadSamples: [HeightSample] { samples.filter { $0.step == nil } }

    /// The timeline the report's strategies were replayed on.
    public var timeline: RecordedTimeline {
        RecordedTimeline(samples: loadSamples, finishedAt: timings.finished, options: options, status: status,
                         settled: timings.settledAt != nil, endedAt: timings.total,
                         runawayStartedAt: status == .runaway ? runawayStartedAt : nil)
    }

    /// When the runaway began: as recorded, or for reports recorded before that, from the steps.
    private var runawayStartedAt: Double? {
        viewDependence?.runawayStartedAt ?? RunawayDetector.runawayStart(provenBy: fitSteps ?? [])
    }

    /// Whether the report has a height to judge an app against: a settled page, or one quiet at
    /// the timeout (both `ok`).
    public var hasSettledHeight: Bool { status == .ok && height != nil }

    /// Seconds from load finished to the last reading that moved the height by more than the
    /// reader app's threshold (5 px); 0 when nothing moved after the load; nil without a load.
    public var lastChangeAfterLoad: Double? {
        guard let finished = timings.finished else { return nil }
        var last: Double?
        var previous: Double?
        for sample in loadSamples {
            guard let value = sample.height, value > 0 else { continue }
            if let before = previous, abs(value - before) > TuneCandidate.readerAppThreshold { last = sample.t }
            previous = value
        }
        return max(0, (last ?? finished) - finished)
    }
}
