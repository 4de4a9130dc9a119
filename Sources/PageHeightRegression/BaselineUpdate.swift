/// What `check --update` changed in a baseline: cases added and cases whose status or height
/// differs from the old entry; cases not measured keep their entries.
public struct BaselineUpdate: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        case added(Baseline.Entry)
        case changed(from: Baseline.Entry, to: Baseline.Entry)
    }

    public var baseline: Baseline
    public var changes: [Change]
    public var unchanged: Int

    public init(old: Baseline?, measured: [Baseline.Entry]) {
        let old = old ?? Baseline()
        var changes: [Change] = []
        var unchanged = 0
        for entry in measured.sorted(by: { $0.testCase < $1.testCase }) {
            if let previous = old.entry(for: entry.testCase) {
                if previous == entry { unchanged += 1 } else { changes.append(.changed(from: previous, to: entry)) }
            } else {
                changes.append(.added(entry))
            }
        }
        baseline = old.merging(measured)
        self.changes = changes
        self.unchanged = unchanged
    }

    /// One line a change, `+ name: 1234 px (new)` or `~ name: 1234 px → 1300 px`.
    public var lines: [String] {
        changes.map { change in
            switch change {
            case .added(let entry):
                "+ \(entry.testCase.name): \(CaseOutcome.format(status: entry.status, height: entry.height)) (new)"
            case .changed(let old, let new):
                "~ \(new.testCase.name): \(CaseOutcome.format(status: old.status, height: old.height)) → "
                    + CaseOutcome.format(status: new.status, height: new.height)
            }
        }
    }

    /// `baseline suite.baseline.json: 2 new, 1 changed, 9 unchanged`.
    public func summary(path: String) -> String {
        let added = changes.filter { if case .added = $0 { true } else { false } }.count
        return "baseline \(path): \(added) new, \(changes.count - added) changed, \(unchanged) unchanged"
    }
}
