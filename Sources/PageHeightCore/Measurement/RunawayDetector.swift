/// Fit mode's guard against content that grows with the view (100vh plus a footer, several
/// 80vh sections).
///
/// After each resize the driver reports the view height it set and the content height read
/// once the viewport had it and the content held still. Two such steps in a row give a law
/// (`ViewLaw`); when the content follows the view one for one or faster and is still taller
/// than the view, growing the view can never catch it. The next step (another resize, or the
/// check at the view cap) must land where the law says, and then it is a runaway, whatever the
/// law's constant. A step whose content kept moving by itself proves nothing and starts the
/// evidence afresh.
public struct RunawayDetector: Sendable, Equatable {
    public struct Step: Codable, Sendable, Equatable {
        /// The view height that was set, CSS px.
        public var view: Double
        /// The content height read once the viewport had that height, CSS px.
        public var content: Double
        /// When the view was given that height, seconds since the load started.
        public var t: Double
    }

    public var threshold: Double
    public private(set) var steps: [Step] = []
    /// The steps since the evidence last started afresh.
    private var evidenceSteps: [Step] = []
    /// A law the last two steps suggest, to be confirmed by the next one.
    public private(set) var suggested: ViewLaw?
    /// The law that proved the runaway.
    public private(set) var law: ViewLaw?

    public init(threshold: Double) {
        self.threshold = threshold
    }

    /// Records one resize; returns true once the steps prove a runaway.
    public mutating func record(view: Double, content: Double, at t: Double = 0) -> Bool {
        let step = Step(view: view, content: content, t: t)
        steps.append(step)
        evidenceSteps.append(step)
        guard law == nil else { return true }
        if let suggested, confirms(suggested, view: view, content: content) {
            law = suggested
            return true
        }
        suggested = nil
        if evidenceSteps.count >= 2, content - view > threshold {
            let a = evidenceSteps[evidenceSteps.count - 2]
            if let fitted = ViewLaw((a.view, a.content), (view, content)), fitted.growsWithoutEnd { suggested = fitted }
        }
        return false
    }

    /// Whether a reading at another view height lands where `law` says (within the threshold or
    /// 1 %), with the content still taller than the view.
    public func confirms(_ law: ViewLaw, view: Double, content: Double) -> Bool {
        let expected = law.slope * view + law.intercept
        return content - view > threshold && abs(expected - content) <= max(threshold, 0.01 * content)
    }

    /// Records a runaway found otherwise (at the view cap, against a second view height).
    public mutating func prove(_ law: ViewLaw) {
        self.law = law
    }

    public var isRunaway: Bool { law != nil }

    /// When the content began to grow with the view (the first step of the proving pair).
    public var runawayStartedAt: Double? {
        guard isRunaway else { return nil }
        return evidenceSteps.count >= 3 ? evidenceSteps[evidenceSteps.count - 3].t : (evidenceSteps.first ?? steps.last)?.t
    }

    /// When a runaway began, for a report recorded before reports carried it
    /// (`ViewDependence.runawayStartedAt`): those measurements stopped at the fourth step in a row
    /// with the same excess, so the proving streak is their last four steps.
    public static func runawayStart(provenBy steps: [Step]) -> Double? {
        guard steps.count >= 4 else { return nil }
        return steps[steps.count - 4].t
    }

    /// Starts the evidence afresh: a step that proved nothing (the content moved by itself).
    public mutating func reset() {
        evidenceSteps = []
        suggested = nil
    }

    /// The evidence in words: `view 844 px → content 944 px, view 944 px → content 1044 px`.
    public var evidence: String {
        steps.suffix(3).map { "view \(Pixels.format($0.view)) → content \(Pixels.format($0.content))" }
            .joined(separator: ", ")
    }
}

/// Formatting of CSS pixel values for messages: whole numbers without decimals.
package enum Pixels {
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), let whole = Int(exactly: value) { return "\(whole) px" }
        return "\((value * 100).rounded() / 100) px"
    }

    /// A signed value, e.g. `+500 px`, `-3.5 px`.
    package static func signed(_ value: Double) -> String {
        (value > 0 ? "+" : value < 0 ? "-" : "") + format(abs(value))
    }
}
