import Foundation
import PageHeightCore

/// One case's current outcome set against its baseline entry under the suite's tolerance.
public struct CaseComparison: Sendable, Equatable {
    public enum Verdict: String, Sendable, Equatable {
        /// Same status and the height within tolerance.
        case pass
        /// Same status, the height moved beyond tolerance.
        case moved
        /// The status changed (ok to fallback, a new runaway, ...).
        case statusChanged = "status-changed"
        /// The case has no baseline entry.
        case noBaseline = "no-baseline"
        /// `--repeat` runs disagreed by more than the tolerance.
        case nondeterministic
    }

    public var testCase: RegressionCase
    public var baseline: Baseline.Entry?
    public var current: CaseOutcome
    public var tolerance: Tolerance
    public var verdict: Verdict
    /// The first step (0-based) whose result left the baseline's, when the page's own did not.
    public var failedStep: Int?

    public init(_ testCase: RegressionCase, baseline: Baseline.Entry?, current: CaseOutcome, tolerance: Tolerance) {
        (self.testCase, self.baseline, self.current, self.tolerance)
            = (testCase, baseline, current, tolerance)
        if let spread = current.spread, spread.nondeterministic,
           spread.outcomes.contains(where: { $0.status != spread.chosen.status }) || spread.spread > tolerance.allowance(from: current.height ?? 0) {
            verdict = .nondeterministic
        } else if let baseline {
            if baseline.status != current.status {
                verdict = .statusChanged
            } else if let old = baseline.height, let new = current.height {
                verdict = tolerance.allows(from: old, to: new) ? .pass : .moved
            } else {
                verdict = baseline.height == nil && current.height == nil ? .pass : .moved
            }
        } else {
            verdict = .noBaseline
        }
        if verdict == .pass, let baseline, let (index, stepVerdict) = Self.firstStepDiffering(baseline.steps ?? [], current.steps ?? [], tolerance) {
            verdict = stepVerdict
            failedStep = index
        }
    }

    /// The first step whose status or height left the baseline's (a step added or removed
    /// counts as a changed status).
    private static func firstStepDiffering(_ old: [Baseline.StepEntry], _ new: [Baseline.StepEntry],
                                           _ tolerance: Tolerance) -> (Int, Verdict)? {
        for index in 0..<max(old.count, new.count) {
            guard index < old.count, index < new.count, old[index].step == new[index].step,
                  old[index].status == new[index].status else { return (index, .statusChanged) }
            switch (old[index].height, new[index].height) {
            case (let was?, let now?) where !tolerance.allows(from: was, to: now): return (index, .moved)
            case (nil, _?), (_?, nil): return (index, .moved)
            default: continue
            }
        }
        return nil
    }

    /// `after step 2 (width=844): baseline 980 px, now 1000 px`.
    private var stepChange: String? {
        guard let index = failedStep else { return nil }
        let old = baseline?.steps ?? [], new = current.steps ?? []
        let name = (index < new.count ? new[index].step : old[index].step)
        let was = index < old.count ? old[index].formatted : "no such step"
        let now = index < new.count ? new[index].formatted : "no such step"
        return "step \(index + 1) (\(name)): baseline \(was), now \(now)"
    }

    public var passed: Bool { verdict == .pass }

    /// The change from the baseline, CSS px (nil without both heights).
    public var delta: Double? {
        guard let old = baseline?.height, let new = current.height else { return nil }
        return new - old
    }

    /// The line printed for the case: its name, the baseline height and the current height.
    public var message: String {
        let now = current.formatted
        let was = baseline.map { CaseOutcome.format(status: $0.status, height: $0.height) } ?? "none"
        var text: String
        if let stepChange {
            return "\(testCase.name): \(now); \(stepChange)" + (verdict == .moved ? " (tolerance \(tolerance.description))" : "")
        }
        switch verdict {
        case .pass:
            text = "\(testCase.name): \(now)" + (delta.map { $0 == 0 ? "" : " (baseline \(was), \(Self.signed($0)) px within \(tolerance.description))" } ?? "")
        case .moved:
            text = "\(testCase.name): baseline \(was), now \(now) (" + (change.map { $0 + "; " } ?? "") + "tolerance \(tolerance.description))"
        case .statusChanged:
            text = "\(testCase.name): status \(baseline!.status.rawValue) → \(current.status.rawValue) (baseline \(was), now \(now))"
        case .noBaseline:
            text = "\(testCase.name): no baseline (now \(now); 'pageheight check --update' records it)"
        case .nondeterministic:
            text = "\(testCase.name): nondeterministic: baseline \(was), now \(current.spread!.description)"
        }
        if current.status != .ok, verdict != .pass, let message = current.message { text += ": " + message }
        if verdict != .nondeterministic, let spread = current.spread, spread.nondeterministic {
            text += " [nondeterministic: \(spread.description)]"
        }
        return text
    }

    /// `+66 px, +5.3%`.
    private var change: String? {
        guard let delta, let old = baseline?.height else { return nil }
        let percent = old == 0 ? "" : ", " + (delta >= 0 ? "+" : "-") + String(format: "%.1f%%", abs(delta / old * 100))
        return "\(Self.signed(delta)) px\(percent)"
    }

    static func signed(_ value: Double) -> String {
        let magnitude = Pixels.format(abs(value)).replacingOccurrences(of: " px", with: "")
        return (value < 0 ? "-" : "+") + magnitude
    }
}
