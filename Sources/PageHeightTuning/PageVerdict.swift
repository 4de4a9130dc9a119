import PageHeightCore

/// Whether a reader app ends a page at the right height, judged against the settled height.
public enum PageVerdict: Sendable, Equatable {
    /// Within the tolerance; `error` is the app's height minus the settled height, px.
    case right(error: Double)
    /// The app ends this many px short: the end of the article is cut off.
    case clipped(by: Double)
    /// The app ends this many px too tall: blank space after the article.
    case blank(by: Double)
    /// The app polls where the recording cannot answer; never counted as right.
    case unknown(String)
    /// The report has no settled height to judge against (its status says why).
    case notJudged(String)

    /// Judges an app's outcome on a page whose settled height is `settled`.
    /// - Parameters:
    ///   - tolerance: the largest error, px, that still counts as right.
    public static func judge(_ outcome: StrategyOutcome, settled: Double, tolerance: Double) -> PageVerdict {
        guard let shown = outcome.height else { return .clipped(by: settled) }
        let error = shown - settled
        if abs(error) <= tolerance { return .right(error: error) }
        return error < 0 ? .clipped(by: -error) : .blank(by: error)
    }

    public var isWrong: Bool {
        switch self {
        case .clipped, .blank: true
        default: false
        }
    }

    public var isJudged: Bool {
        if case .notJudged = self { return false }
        return true
    }

    public var isKnown: Bool {
        switch self {
        case .right, .clipped, .blank: true
        default: false
        }
    }

    /// The signed error of a wrong page (negative: clipped).
    public var wrongBy: Double? {
        switch self {
        case .clipped(let by): -by
        case .blank(let by): by
        default: nil
        }
    }

    /// A short word for tables and JSON: right, clipped, blank, unknown, not-judged.
    public var word: String {
        switch self {
        case .right: "right"
        case .clipped: "clipped"
        case .blank: "blank"
        case .unknown: "unknown"
        case .notJudged: "not-judged"
        }
    }

    /// In words, e.g. `clipped by 500 px`, `blank space of 20 px`, `unknown: ...`.
    public var description: String {
        switch self {
        case .right(let error): error == 0 ? "right" : "right (\(Pixels.signed(error)))"
        case .clipped(let by): "clipped by \(Pixels.format(by))"
        case .blank(let by): "blank space of \(Pixels.format(by))"
        case .unknown(let why): "unknown: \(why)"
        case .notJudged(let why): "not judged: \(why)"
        }
    }
}
