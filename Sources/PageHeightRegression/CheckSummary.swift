/// The end of `pageheight check`: how many cases passed and why the others failed.
public struct CheckSummary: Sendable, Equatable {
    public var comparisons: [CaseComparison]

    public init(_ comparisons: [CaseComparison]) {
        self.comparisons = comparisons.sorted { $0.testCase < $1.testCase }
    }

    public var failures: [CaseComparison] { comparisons.filter { !$0.passed } }
    public var passed: Bool { failures.isEmpty }

    /// `12 cases: 10 passed, 2 failed (1 moved, 1 without baseline)`.
    public var text: String {
        let failed = failures
        var line = "\(comparisons.count) case\(comparisons.count == 1 ? "" : "s"): \(comparisons.count - failed.count) passed"
        guard !failed.isEmpty else { return line }
        let kinds: [(CaseComparison.Verdict, String)] = [
            (.moved, "moved"), (.statusChanged, "status changed"), (.noBaseline, "without baseline"),
            (.nondeterministic, "nondeterministic"),
        ]
        let counts = kinds.compactMap { verdict, label -> String? in
            let count = failed.filter { $0.verdict == verdict }.count
            return count == 0 ? nil : "\(count) \(label)"
        }
        line += ", \(failed.count) failed (" + counts.joined(separator: ", ") + ")"
        return line
    }
}
