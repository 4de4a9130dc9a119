/// How a page's content height follows the view's height: `content = slope × view + intercept`,
/// in CSS px, fitted from two readings at two view heights.
public struct ViewLaw: Codable, Sendable, Equatable, CustomStringConvertible {
    public var slope: Double
    public var intercept: Double

    /// The slope from which content is taken to follow the view one for one or faster: a view
    /// grown to the content is then outgrown again, without end.
    public static let followsSlope = 0.98

    public init(slope: Double, intercept: Double) {
        (self.slope, self.intercept) = (slope, intercept)
    }

    /// The law through two readings; nil when their views are less than a pixel apart.
    public init?(_ a: (view: Double, content: Double), _ b: (view: Double, content: Double)) {
        guard abs(b.view - a.view) >= 1 else { return nil }
        slope = (b.content - a.content) / (b.view - a.view)
        intercept = b.content - slope * b.view
    }

    /// Whether a view grown to the content is outgrown again, without end.
    public var growsWithoutEnd: Bool { slope >= Self.followsSlope }

    /// The view height at which the content fills the view exactly (where fit mode ends), for a
    /// slope below one.
    public var fixedPoint: Double? {
        slope < Self.followsSlope ? intercept / (1 - slope) : nil
    }

    public var description: String {
        let sign = intercept < 0 ? "-" : "+"
        return "content = \((slope * 100).rounded() / 100) × view \(sign) \(Pixels.format(abs(intercept).rounded()))"
    }
}

/// Whether the content depends on the view, as fit mode found out; in the report for every page
/// whose view reached the cap or that ran away.
public struct ViewDependence: Codable, Sendable, Equatable {
    /// nil when it could not be told (the content moved while it was checked).
    public var dependsOnView: Bool?
    /// The fitted law, when the content depends on the view.
    public var law: ViewLaw?
    /// The content height at the view height `--no-fit` keeps (`--height`).
    public var noFitHeight: Double?
    /// The elements whose height follows the view, with how: `div.hero: 100vh`.
    public var culprits: [String]?
    /// For a runaway: when the content began to grow with the view (seconds since the load
    /// started); the strategies end there.
    public var runawayStartedAt: Double?

    public init(dependsOnView: Bool?, law: ViewLaw? = nil, noFitHeight: Double? = nil, culprits: [String]? = nil) {
        (self.dependsOnView, self.law, self.noFitHeight, self.culprits) = (dependsOnView, law, noFitHeight, culprits)
    }

    /// What the content did at the cap, from its height there and at a second view height.
    public enum Finding: Sendable, Equatable {
        /// The same at both: a long page, its height its own.
        case independent
        /// It follows the view one for one or faster: no height of its own in fit mode.
        case runaway(ViewLaw)
        /// It depends on the view more weakly: fit mode would end beyond the cap.
        case beyondCap(ViewLaw)
        /// It moved while it was read: nothing can be told.
        case moved
    }

    /// The finding from the content at the capped view and at a check view (nil: it moved).
    public static func finding(cap: (view: Double, content: Double), check: (view: Double, content: Double?),
                               threshold: Double) -> Finding {
        guard let content = check.content else { return .moved }
        if abs(content - cap.content) <= threshold { return .independent }
        guard let law = ViewLaw((check.view, content), cap) else { return .moved }
        return law.growsWithoutEnd ? .runaway(law) : .beyondCap(law)
    }
}
