/// How a measurement ended.
public enum PageStatus: String, Codable, Sendable, CaseIterable {
    /// Settled: nothing moved for the quiet window while nothing was pending.
    case ok
    /// Still moving at the timeout.
    case unstable
    /// Fit mode: the content grows with the view.
    case runaway
    /// JavaScript never gave a usable height; `height` is an estimate from the text.
    case fallback
    case loadError = "load-error"
    /// The load did not finish within the timeout.
    case timeout
    /// The web process died.
    case crashed
    /// The caller cancelled the measurement (a library user's task, a server's client that went
    /// away): no verdict.
    case cancelled
}

/// The seven ways to read a page's height, side by side at the end of a measurement (CSS px).
public struct HeightMetrics: Codable, Sendable, Equatable {
    public var bodyScroll: Double
    public var documentScroll: Double
    public var bodyOffset: Double
    public var documentOffset: Double
    public var bodyRect: Double
    public var lowestElement: Double
    public var max: Double

    enum CodingKeys: String, CodingKey {
        case bodyScroll = "body-scroll", documentScroll = "document-scroll", bodyOffset = "body-offset"
        case documentOffset = "document-offset", bodyRect = "body-rect", lowestElement = "lowest-element", max
    }

    public init(bodyScroll: Double, documentScroll: Double, bodyOffset: Double, documentOffset: Double,
                bodyRect: Double, lowestElement: Double, max: Double) {
        (self.bodyScroll, self.documentScroll, self.bodyOffset, self.documentOffset, self.bodyRect, self.lowestElement, self.max)
            = (bodyScroll, documentScroll, bodyOffset, documentOffset, bodyRect, lowestElement, max)
    }

    public subscript(metric: HeightMetric) -> Double {
        switch metric {
        case .bodyScroll: bodyScroll
        case .documentScroll: documentScroll
        case .bodyOffset: bodyOffset
        case .documentOffset: documentOffset
        case .bodyRect: bodyRect
        case .lowestElement: lowestElement
        case .max: max
        }
    }

    /// When the metrics disagree by more than `threshold` (CSS px) and by more than 1% of the page
    /// for a reason other than the body's own margins: which is lowest and which highest. Below
    /// 1%, what remains on real pages is a child's margin collapsing through the body or a
    /// fractional box: nothing that says the metric is the wrong one for the page. The body's metrics leave its margins
    /// out and the document's take them in (lowest-element too: the root element is one of its
    /// boxes), so the body's are compared with both margins added; `max` is one of the others
    /// and is left out.
    public func disagreement(threshold: Double, bodyMargins: (top: Double, bottom: Double) = (0, 0)) -> String? {
        let both = bodyMargins.top + bodyMargins.bottom
        let extents: [(metric: HeightMetric, raw: Double, extent: Double)] = [
            (.bodyScroll, bodyScroll, bodyScroll + both), (.documentScroll, documentScroll, documentScroll),
            (.bodyOffset, bodyOffset, bodyOffset + both), (.documentOffset, documentOffset, documentOffset),
            (.bodyRect, bodyRect, bodyRect + both), (.lowestElement, lowestElement, lowestElement),
        ]
        guard let low = extents.min(by: { $0.extent < $1.extent }), let high = extents.max(by: { $0.extent < $1.extent }),
              high.extent - low.extent > Swift.max(threshold, high.extent / 100) else { return nil }
        let margins = both > 0 ? ", \(Pixels.format(high.extent - low.extent)) more than the body's own margins explain" : ""
        return "metrics disagree: \(low.metric.rawValue) \(Pixels.format(low.raw)) but \(high.metric.rawValue) "
            + "\(Pixels.format(high.raw))\(margins) (margins collapsing through the body, absolute positioning, overflow "
            + "or viewport-relative CSS)"
    }
}

/// When each step of the measurement happened, seconds since the load started.
public struct Timings: Codable, Sendable, Equatable {
    public var loadStarted: Double = 0
    public var committed: Double?
    public var finished: Double?
    /// The first usable height.
    public var firstMeasurement: Double?
    public var settledAt: Double?
    /// When the report was made.
    public var total: Double = 0
    /// When the report was made on the wall clock, when the page ran on the virtual clock
    /// (every other time here is then virtual).
    public var realTotal: Double?

    /// The seconds the measurement took on the wall clock: `realTotal` on the virtual clock,
    /// `total` on the real one. What a person waited, where `total` is the page's time.
    public var wallSeconds: Double { realTotal ?? total }
}

/// The engine's own work for a page, to set pageheight's overhead against.
public struct EngineWork: Codable, Sendable, Equatable {
    /// Navigation timing's load event end, seconds since the load started (engine: fetch,
    /// parse, subresources, scripts up to onload).
    public var loadEventEnd: Double?
    /// The style and layout pass WebKit runs right after the load event, before it reports the
    /// load finished, seconds (the probe runs it in the first `pageshow` and times it).
    public var loadLayout: Double?
    /// When that pass ended, seconds since the load started: where the engine's load work ends.
    public var loadWorkEnd: Double?
    /// Seconds spent inside the page on the measurements themselves (forced layout and reads).
    public var layout: Double = 0

    public init(loadEventEnd: Double? = nil, loadLayout: Double? = nil, loadWorkEnd: Double? = nil,
                layout: Double = 0) {
        (self.loadEventEnd, self.loadLayout, self.loadWorkEnd, self.layout)
            = (loadEventEnd, loadLayout, loadWorkEnd, layout)
    }
}

/// Everything pageheight knows about one page.
public struct PageReport: Codable, Sendable, Equatable {
    public var url: String
    public var status: PageStatus
    /// Why the status is not `ok`, or a note on an `ok` page.
    public var message: String?
    /// The stabilized height, CSS px (for `fallback`, the estimate).
    public var height: Double?
    /// Header + height + footer: the native scroll view's content height.
    public var total: Double?
    public var header: Double
    public var footer: Double
    /// The metric that was measured.
    public var metric: HeightMetric
    public var strategies: Strategies
    /// The schedule's final height differs from `height` by more than the threshold:
    /// the reader app would have shown the wrong height.
    public var scheduleMissed: Bool
    public var samples: [HeightSample]
    public var metrics: HeightMetrics?
    /// Set when the metrics disagree by more than the threshold.
    public var metricsDisagree: String?
    public var estimate: FallbackEstimate?
    /// Fit mode's resizes: each view height set and the content height read once it held
    /// still (the evidence for `runaway`).
    public var fitSteps: [RunawayDetector.Step]?
    /// Work still pending at the end (only when some was).
    public var pendingAtEnd: PendingWork?
    /// The document is in quirks mode (it has no doctype): `body.scrollHeight` is then at least the
    /// view's height, and fit mode reads content as tall as the view (absent otherwise).
    public var quirksMode: Bool?
    /// Subresources that failed to load (the first 50; `failedResourcesTotal` counts them all).
    public var failedResources: [FailedResource]? = nil
    /// How many subresources failed, when more than `failedResources` lists.
    public var failedResourcesTotal: Int? = nil
    /// The requests in flight when the measurement ended on its timeout (only when some were),
    /// and how many of the page's http(s) requests had answered.
    public var requestsInFlight: PendingRequests? = nil
    /// Under a device profile, the font families the page's text asks for and the face that
    /// stood in for each (`FontUse`).
    public var faces: [FontUse]? = nil
    /// Pending work the rules stopped waiting for, and when (font faces that kept loading
    /// past the probe's patience).
    public var gaveUp: String?
    /// Whether the content depends on the view: for pages whose fit-mode view reached the cap
    /// and for runaways (the fitted law, the height `--no-fit` measures, the elements that follow
    /// the view).
    public var viewDependence: ViewDependence?
    public var timings: Timings
    /// The engine's own work (navigation timing and layout).
    public var engine: EngineWork?
    /// pageheight's own time for the page, seconds: from the end of the engine's load work (the
    /// load event and the layout after it) to our load-finished signal, plus from the moment the
    /// rule allowed a verdict to the verdict, less that reading's layout.
    /// Only for settled pages.
    public var overhead: Double?
    /// Main-frame navigations the page started once it had committed (a script, a meta
    /// refresh): stopped, and the page measured as it was.
    public var stoppedNavigations: [String]?
    /// The virtual clock's jumps (absent on the real clock).
    public var clockJumps: [ClockJump]?
    /// The page's position in a batch list (0-based).
    public var index: Int?
    public var options: MeasureOptions
    /// The fonts the page was rendered with (packages and versions, a digest of the files).
    public var fonts: FontSet?
    /// Where the full-document PNG was written.
    public var snapshot: String?
    /// Why the snapshot could not be written.
    public var snapshotError: String?
    /// What happened after each step (`--then`), in order; the report's other fields are the
    /// page's before the first step. Samples carry the step they belong to.
    public var steps: [StepReport]? = nil
    /// The reader template the page (an article fragment, named by `url`) was put into: its
    /// path, or `default` for the built-in one; absent for a page measured as it is.
    public var template: String? = nil
}
