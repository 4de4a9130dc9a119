/// Turns a finished session into a report: the verdict, the strategies, the timings.
/// Pure: the engine supplies what it read at the end (metrics, text estimate).
public struct ReportBuilder: Sendable {
    public var url: String
    public var session: MeasurementSession
    public var end: EndReason
    /// Seconds since the load started when the measurement ended.
    public var endedAt: Double
    /// When the measurement ended on the wall clock, when the page ran on the virtual clock.
    public var realEnd: Double?
    public var metrics: HeightMetrics?
    /// The body's own computed margins (CSS px), read with the metrics.
    public var bodyMargins: (top: Double, bottom: Double)?
    /// Whether the document is in quirks mode (no doctype), as read at the end.
    public var quirksMode: Bool?
    /// The page's plain text, for the fallback estimate (nil when it could not be read).
    public var text: PlainText?
    /// The engine's own work, as the driver measured it.
    public var engine: EngineWork?
    /// When the rule allowed the verdict (the last settle check's due time).
    public var verdictDue: Double?
    /// Main-frame navigations the page started after it committed, which were stopped.
    /// How the message of a page ended as a navigation loop begins.
    static let navigationLoopNote = "the page started navigations without end"
    public var stoppedNavigations: [String] = []
    /// How many navigations were stopped (`stoppedNavigations` keeps the first few).
    public var stoppedNavigationsTotal = 0
    /// Seconds of layout inside the reading that gave the verdict.
    public var verdictLayout: Double = 0
    /// Subresources that failed to load (as many as the engine kept), and how many failed.
    public var failedResources: (listed: [FailedResource], total: Int) = ([], 0)
    /// The requests in flight when the measurement ended, and how many had answered: named in
    /// the report and its message when it ended on the timeout.
    public var requestsInFlight: PendingRequests?
    /// The families the page's text asks for and their faces (`FontUse`), under a device profile.
    public var faces: [FontUse]?

    public init(url: String, session: MeasurementSession, end: EndReason, endedAt: Double,
                metrics: HeightMetrics? = nil, text: PlainText? = nil) {
        (self.url, self.session, self.end, self.endedAt, self.metrics, self.text)
            = (url, session, end, endedAt, metrics, text)
    }

    /// The report for a list entry that is not a page at all (a missing file, a malformed URL).
    public static func inputError(url: String, message: String, options: MeasureOptions) -> PageReport {
        ReportBuilder(url: url, session: MeasurementSession(options: options), end: .loadFailed(message), endedAt: 0).build()
    }

    public func build() -> PageReport {
        let options = session.options
        var (status, message, height) = verdict()
        var estimate: FallbackEstimate?
        if status == .fallback {
            let reason = message ?? "no usable height"
            if let text {
                let made = FallbackEstimate(text: text, width: options.width, fontSize: options.fontSize, reason: reason)
                estimate = made
                height = made.height
                message = "estimated \(Pixels.format(made.height)) from \(made.textLength) characters of text: \(reason)"
            } else {
                height = nil
                message = "no estimate (the page's text could not be read): \(reason)"
            }
        }

        let timeline = RecordedTimeline(samples: session.samples, finishedAt: session.finishedAt, options: options,
                                        status: status, settled: end == .settled, endedAt: endedAt,
                                        runawayStartedAt: end == .runaway ? session.runaway.runawayStartedAt : nil)
        let replay = StrategyReplay(schedule: options.schedule, threshold: options.threshold)
        let strategies = replay.replay(timeline, height: height)
        let scheduleMissed: Bool
        if status == .ok, let height, strategies.schedule.complete {
            scheduleMissed = abs((strategies.schedule.height ?? 0) - height) > options.threshold
        } else {
            scheduleMissed = false
        }
        if scheduleMissed, message == nil, let shown = strategies.schedule.height {
            message = "the \(Seconds.format(options.schedule.duration)) schedule would show \(Pixels.format(shown)), "
                + "missing \(Pixels.format(height! - shown)) that arrived later"
        }

        var timings = Timings()
        timings.committed = session.committedAt
        timings.finished = session.finishedAt
        timings.firstMeasurement = session.firstUsable?.t
        timings.settledAt = end == .settled ? endedAt : nil
        timings.total = endedAt
        timings.realTotal = realEnd

        let pendingAtEnd = session.pending.isEmpty ? nil : session.pending
        var viewDependence = session.viewDependence
        if end == .runaway { viewDependence?.runawayStartedAt = session.runaway.runawayStartedAt }
        let gaveUp = session.fontsGivenUp.map { "\($0.reason): given up on at \(Seconds.format($0.at))" }
        if let target = stoppedNavigations.first {
            let total = max(stoppedNavigationsTotal, stoppedNavigations.count)
            let note = "the page tried to navigate to \(target.prefix(200))\(total > 1 ? " (and \(total - 1) more)" : ""); stopped, measured as it was"
            message = message.map { $0 + "; " + note } ?? note
        }
        var overhead: Double?
        if end == .settled, let due = verdictDue, let finished = session.finishedAt, let engine,
           let loadWorkEnd = engine.loadWorkEnd ?? engine.loadEventEnd {
            overhead = max(0, finished - loadWorkEnd) + max(0, endedAt - due - verdictLayout)
        }
        var report = PageReport(
            url: url, status: status, message: message, height: height,
            total: height.map { options.header + $0 + options.footer },
            header: options.header, footer: options.footer, metric: options.metric,
            strategies: strategies, scheduleMissed: scheduleMissed, samples: session.samples,
            metrics: metrics, metricsDisagree: metrics?.disagreement(threshold: options.threshold, bodyMargins: bodyMargins ?? (0, 0)),
            estimate: estimate, fitSteps: session.runaway.steps.isEmpty ? nil : session.runaway.steps,
            pendingAtEnd: pendingAtEnd, quirksMode: quirksMode == true ? true : nil, gaveUp: gaveUp, viewDependence: viewDependence, timings: timings, engine: engine, overhead: overhead,
            stoppedNavigations: stoppedNavigations.isEmpty ? nil : stoppedNavigations, options: options)
        report.clockJumps = session.clockJumps.isEmpty ? nil : session.clockJumps
        report.faces = faces.flatMap { $0.isEmpty ? nil : $0 }
        if case .timedOut = end, let requests = requestsInFlight, let note = requests.note(offline: options.offline, page: url) {
            report.requestsInFlight = requests
            report.message = report.message.map { $0 + "; " + note } ?? note
        }
        if !failedResources.listed.isEmpty {
            report.failedResources = failedResources.listed
            if failedResources.total > failedResources.listed.count { report.failedResourcesTotal = failedResources.total }
        }
        return report
    }

    /// The status, its message, and the height it reports (before any estimate).
    package func verdict() -> (PageStatus, String?, Double?) {
        let options = session.options
        let last = session.lastUsable?.height
        switch end {
        case .loadFailed(let message):
            return (.loadError, message, nil)
        case .crashed(let message):
            return (.crashed, message, last)
        case .cancelled:
            return (.cancelled, "the measurement was cancelled by its caller before its verdict", nil)
        case .runaway:
            let initial = session.runaway.steps.first?.view ?? last
            let law = session.runaway.law.map { " (\($0))" } ?? ""
            return (.runaway, "the content grows with the view\(law): \(session.runaway.evidence); "
                + "it has no height of its own in fit mode (try --no-fit\(noFitNote))" + culpritNote, initial)
        case .viewDependent:
            let cap = Pixels.format(session.viewCap)
            guard let law = session.viewDependence?.law else {
                return (.unstable, "the content moved while pageheight checked, at the \(cap) view cap, whether it "
                    + "depends on the view", last)
            }
            let fit = law.fixedPoint.map { " would fit at \(Pixels.format($0.rounded()))," } ?? ""
            return (.unstable, "the content depends on the view (\(law)): it\(fit) beyond the \(cap) view cap, "
                + "where pageheight cannot confirm it (try --no-fit\(noFitNote))" + culpritNote, last)
        case .javascriptDisabled:
            return (.fallback, "JavaScript is off", nil)
        case .navigationLoop(let attempts):
            guard let last else { return (.fallback, noValueReason(stalled: false), nil) }
            return (.ok, Self.navigationLoopNote + " (\(attempts) after its load): stopped at "
                + "\(Seconds.format(endedAt)), measured as it was", last)
        case .settled:
            if let value = session.lastReading?.height, value > 0 { return (.ok, nil, value) }
            return (.fallback, noValueReason(stalled: false), nil)
        case .timedOut(let stalledSince):
            let limit = Seconds.format(options.timeout)
            guard session.finishedAt != nil else {
                let step = session.committedAt == nil ? "loading" : "committed"
                return (.timeout, "the load did not finish within \(limit) (last step: \(step))", last)
            }
            guard let last else {
                return (.fallback, noValueReason(stalled: stalledSince != nil) + " within \(limit)", nil)
            }
            if let stalledSince {
                return (.timeout, "JavaScript stalled at \(Seconds.format(stalledSince)) (the page's script never "
                    + "yielded; an evaluation has not returned since); the last height read was \(Pixels.format(last))", last)
            }
            if session.missesFixedPoint {
                return (.unstable, "fit mode found no height the view keeps by the timeout (\(limit)): the view is "
                    + "\(Pixels.format(session.viewHeight)), the content \(Pixels.format(last))", last)
            }
            if endedAt - session.lastMoveAt < options.quiet {
                let moves = session.samples.filter { $0.t >= endedAt - 2 && $0.isUsable }.count
                return (.unstable, "still moving at the timeout (\(limit)): last move at "
                    + "\(Seconds.format(session.lastMoveAt)) to \(Pixels.format(last)), \(moves) readings in its last 2 s", last)
            }
            if !session.pending.isEmpty {
                return (.ok, "quiet since \(Seconds.format(session.lastMoveAt)), but still pending at the timeout: "
                    + session.pending.summary, last)
            }
            return (.ok, nil, last)
        }
    }

    /// `, which measures N px` when the content at `--height` is known.
    private var noFitNote: String {
        session.viewDependence?.noFitHeight.map { ", which measures \(Pixels.format($0))" } ?? ""
    }

    /// `; it follows the view in: div.hero: 100vh, …` when the culprits are known.
    private var culpritNote: String {
        guard let culprits = session.viewDependence?.culprits, !culprits.isEmpty else { return "" }
        return "; what follows the view: " + culprits.joined(separator: ", ")
    }

    private func noValueReason(stalled: Bool) -> String {
        if stalled { return "JavaScript stalled (an evaluation never returned)" }
        if let error = session.lastError { return "JavaScript failed: \(error)" }
        if session.samples.isEmpty { return "JavaScript never returned a height" }
        return "the page's height is 0 px"
    }
}
