/// Fit mode's guard against content that grows with the view (100vh plus a footer).
///
/// After each resize the driver reports the view height it set and the content height read
/// right after the viewport took it. Content that is taller than the view by the same
/// amount, step after step, grows with the view and would grow without end.
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
    /// How many growing steps in a row, each by the same amount, prove a runaway.
    public var stepsNeeded: Int
    public private(set) var steps: [Step] = []
    private var streak = 0

    public static let defaultStepsNeeded = 4

    public init(threshold: Double, stepsNeeded: Int = RunawayDetector.defaultStepsNeeded) {
        self.threshold = threshold
        self.stepsNeeded = stepsNeeded
    }

    /// Records one resize; returns true once the content has grown with the view `stepsNeeded` times.
    public mutating func record(view: Double, content: Double, at t: Double = 0) -> Bool {
        let growth = content - view
        if growth > threshold, let last = steps.last, last.content - last.view > threshold,
           abs((last.content - last.view) - growth) <= 1 {
            streak += 1
        } else {
            streak = growth > threshold ? 1 : 0
        }
        steps.append(Step(view: view, content: content, t: t))
        return isRunaway
    }

    public var isRunaway: Bool { streak >= stepsNeeded }

    /// When the content began to grow with the view (the first step of the proving streak).
    public var runawayStartedAt: Double? {
        guard isRunaway else { return nil }
        return steps[steps.count - streak].t
    }

    /// When a runaway began, from the steps of the measurement it ended: that measurement stops
    /// at the step that proves it, so the proving streak is its last `stepsNeeded` steps.
    public static func runawayStart(provenBy steps: [Step], stepsNeeded: Int = defaultStepsNeeded) -> Double? {
        guard steps.count >= stepsNeeded else { return nil }
        return steps[steps.count - stepsNeeded].t
    }

    /// Breaks the streak: a step that proved nothing (the content moved by itself).
    public mutating func reset() {
        streak = 0
    }

    /// The evidence in words: `view 844 → content 944, view 944 → content 1044, ...`.
    public var evidence: String {
        steps.suffix(stepsNeeded).map { "view \(Pixels.format($0.view)) → content \(Pixels.format($0.content))" }
            .joined(separator: ", ")
    }
}

/// Formatting of CSS pixel values for messages: whole numbers without decimals.
enum Pixels {
    static func format(_ value: Double) -> String {
        if value == value.rounded() { return "\(Int(value)) px" }
        return "\((value * 100).rounded() / 100) px"
    }

    /// A signed value, e.g. `+500 px`, `-3.5 px`.
    static func signed(_ value: Double) -> String {
        (value > 0 ? "+" : value < 0 ? "-" : "") + format(abs(value))
    }
}
