import PageHeightCore

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
    /// What differs between the old baseline's software and this run's, when the update leaves
    /// entries measured with the old one (an update of some cases only): say so, they are mixed.
    public var mixedSoftware: MixedSoftware?

    public struct MixedSoftware: Sendable, Equatable {
        /// Entries the update kept as they were.
        public var kept: Int
        public var differences: [String]
    }

    public init(old: Baseline?, measured: [Baseline.Entry], measuredWith: MeasuredWith? = nil) {
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
        baseline.measuredWith = measuredWith ?? old.measuredWith
        self.changes = changes
        self.unchanged = unchanged
        let kept = baseline.cases.count - measured.count
        if let now = measuredWith, let before = old.measuredWith, kept > 0, now != before {
            mixedSoftware = MixedSoftware(kept: kept, differences: now.differences(from: before))
        }
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

    /// The warning for `mixedSoftware`, if any.
    public var mixedSoftwareWarning: String? {
        mixedSoftware.map { mixed in
            let kept = mixed.kept
            return "warning: \(kept) baseline entr\(kept == 1 ? "y was" : "ies were") not re-measured and \(kept == 1 ? "was" : "were") measured with other software ("
                + mixed.differences.joined(separator: ", ") + "); 'pageheight check --update' without --grep re-measures every case"
        }
    }

    /// `baseline suite.baseline.json: 2 new, 1 changed, 9 unchanged`.
    public func summary(path: String) -> String {
        let added = changes.filter { if case .added = $0 { true } else { false } }.count
        return "baseline \(path): \(added) new, \(changes.count - added) changed, \(unchanged) unchanged"
    }
}
