import PageHeightCore

/// What `--repeat N` found: the outcomes of N runs of one case, each in a fresh view.
///
/// The case's answer is the most frequent outcome (on a tie, the lower height); the runs
/// disagree (`nondeterministic`) when they gave more than one status or height.
public struct RepeatSpread: Sendable, Equatable, Codable {
    /// One distinct outcome and how many runs gave it.
    public struct Outcome: Sendable, Equatable, Codable {
        public var status: PageStatus
        public var height: Double?
        public var count: Int
    }

    public var runs: Int
    /// Distinct outcomes, most frequent first.
    public var outcomes: [Outcome]

    public init(_ results: [(status: PageStatus, height: Double?)]) {
        precondition(!results.isEmpty, "a spread needs at least one run")
        runs = results.count
        var outcomes: [Outcome] = []
        for result in results {
            let height = result.height.map { ($0 * 100).rounded() / 100 }
            if let index = outcomes.firstIndex(where: { $0.status == result.status && $0.height == height }) {
                outcomes[index].count += 1
            } else {
                outcomes.append(Outcome(status: result.status, height: height, count: 1))
            }
        }
        self.outcomes = outcomes.sorted {
            $0.count != $1.count ? $0.count > $1.count : ($0.height ?? .infinity) < ($1.height ?? .infinity)
        }
    }

    /// The answer: the most frequent outcome.
    public var chosen: Outcome { outcomes[0] }

    public var nondeterministic: Bool { outcomes.count > 1 }

    /// Highest minus lowest height over the runs that gave one, CSS px.
    public var spread: Double {
        let heights = outcomes.compactMap(\.height)
        guard let low = heights.min(), let high = heights.max() else { return 0 }
        return high - low
    }

    /// `5 runs: 2583 px ×3, 2560 px ×2 (spread 23 px)` or `5 runs: 2583 px every time`.
    public var description: String {
        guard nondeterministic else { return "\(runs) runs: \(Self.format(chosen)) every time" }
        return "\(runs) runs: " + outcomes.map { "\(Self.format($0)) ×\($0.count)" }.joined(separator: ", ")
            + " (spread \(Pixels.format(spread)))"
    }

    static func format(_ outcome: Outcome) -> String {
        CaseOutcome.format(status: outcome.status, height: outcome.height)
    }
}
