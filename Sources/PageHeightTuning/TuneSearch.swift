import PageHeightCore

/// `tune`'s search: every candidate replayed on every recorded page, scored, and the Pareto
/// front of the scores.
public struct TuneSearch: Sendable {
    public var candidates: [TuneCandidate]
    /// The largest error, px, that still counts as right.
    public var tolerance: Double
    /// The latest a candidate may show a page's final height, seconds after load finished
    /// (`--max-final`): later ones are left off the front. nil: no cap.
    public var maxFinal: Double?

    public init(candidates: [TuneCandidate], tolerance: Double, maxFinal: Double? = nil) {
        (self.candidates, self.tolerance, self.maxFinal) = (candidates, tolerance, maxFinal)
    }

    public func run(_ reports: [RecordedReport]) -> TuneResult {
        let timelines = reports.map(\.timeline)
        let scores = candidates.map { candidate in
            let app = candidate.replay
            let replays = reports.indices.map { PageReplay(reports[$0], timeline: timelines[$0], app: app, tolerance: tolerance) }
            return CandidateScore(candidate: candidate, replays: replays)
        }
        return TuneResult(reports: reports, scores: scores, tolerance: tolerance, maxFinal: maxFinal)
    }
}

/// The scores, the front and the recommendation.
public struct TuneResult: Sendable {
    public var reports: [RecordedReport]
    /// One per candidate, in candidate order.
    public var scores: [CandidateScore]
    public var tolerance: Double
    /// Indices into `scores` of the Pareto front, one per distinct point, best first
    /// (`CandidateScore.rank`: fewest pages not right, then least wrong height over time, then
    /// fewest jumps, then earliest final height).
    public var front: [Int]
    /// For each front entry, how many other candidates scored the very same.
    public var alike: [Int: Int]
    /// The cap on the latest final height (`--max-final`), seconds after load finished.
    public var maxFinal: Double?
    /// How many candidates the cap left out.
    public var pastMaxFinal: Int

    public init(reports: [RecordedReport], scores: [CandidateScore], tolerance: Double, maxFinal: Double? = nil) {
        self.reports = reports
        self.scores = scores
        self.tolerance = tolerance
        self.maxFinal = maxFinal
        let eligible = scores.indices.filter { Self.withinCap(scores[$0], maxFinal) }
        pastMaxFinal = scores.count - eligible.count
        let points = scores.map(\.objectives)
        var groups: [[Double]: [Int]] = [:]
        for member in ParetoFront.indices(eligible.map { points[$0] }) {
            let index = eligible[member]
            groups[points[index], default: []].append(index)
        }
        var front: [Int] = []
        var alike: [Int: Int] = [:]
        for members in groups.values {
            let chosen = members.min { Self.simpler(scores[$0], than: scores[$1]) || (!Self.simpler(scores[$1], than: scores[$0]) && $0 < $1) }!
            front.append(chosen)
            alike[chosen] = members.count - 1
        }
        let ranks = scores.map(\.rank)
        self.front = front.sorted { ranks[$0].lexicographicallyPrecedes(ranks[$1]) }
        self.alike = alike
    }

    /// Whether `score` shows every page's final height by `maxFinal` (true without a cap).
    static func withinCap(_ score: CandidateScore, _ maxFinal: Double?) -> Bool {
        guard let maxFinal, let latest = score.latestFinal else { return true }
        return latest <= maxFinal + 1e-9
    }

    /// Among candidates that score alike, the one shown: the reader app's own (a tie with the
    /// default is no reason to change it), else fewest polls, then the earliest last poll, then the threshold nearest the reader app's, then the
    /// sleeps shortest to write.
    static func simpler(_ a: CandidateScore, than b: CandidateScore) -> Bool {
        if a.candidate.isReaderApp != b.candidate.isReaderApp { return a.candidate.isReaderApp }
        if a.polls != b.polls { return a.polls < b.polls }
        if a.candidate.schedule.duration != b.candidate.schedule.duration {
            return a.candidate.schedule.duration < b.candidate.schedule.duration
        }
        let reader = TuneCandidate.readerAppThreshold
        if abs(a.candidate.threshold - reader) != abs(b.candidate.threshold - reader) {
            return abs(a.candidate.threshold - reader) < abs(b.candidate.threshold - reader)
        }
        return a.candidate.sleeps.count < b.candidate.sleeps.count
    }

    /// The front's first (fewest pages not right, then least wrong height over time, then fewest
    /// jumps, then earliest final height): the chart's and the table's `best`.
    public var recommended: Int? { front.first }

    /// Differences this small are noise, not a gain: jumps per page (mean), seconds to the final
    /// height (mean), px·s of wrong height per page (mean: 100 px for 0.1 s, or a line of text
    /// for about a second). The recordings' own readings come tens of milliseconds apart.
    public static let noise = (jumps: 0.05, seconds: 0.1, pixelSeconds: 10.0)
    /// A recording whose pages all stopped changing within this many seconds of their load
    /// cannot tell a short schedule from the app's: nothing late happened in it to catch.
    public static let lateWindow = 0.5

    /// The latest last change (seconds after load finished) among the pages with a settled height.
    public var latestChange: Double? {
        reports.filter(\.hasSettledHeight).compactMap(\.lastChangeAfterLoad).max()
    }

    /// What the recording can tell: false when every page stopped changing within `lateWindow`
    /// (an offline recording of saved pages, typically), so a schedule that stops early looks as
    /// good as the app's on it and would clip what arrives late on live pages.
    public var judgesLatePolls: Bool { (latestChange ?? 0) >= Self.lateWindow }

    /// Whether `best` beats the reader app's default by more than noise: fewer pages wrong or
    /// unknown, or as many and less wrong height over time, or as much and fewer jumps, or as
    /// many and an earlier final height.
    public func beatsDefault(_ best: Int) -> Bool {
        guard let reader = readerApp, best != reader else { return false }
        let (a, b) = (scores[best].objectives, scores[reader].objectives)
        if a[0] != b[0] { return a[0] < b[0] }
        if abs(a[1] - b[1]) > Self.noise.pixelSeconds { return a[1] < b[1] }
        if abs(a[2] - b[2]) > Self.noise.jumps { return a[2] < b[2] }
        return b[3] - a[3] > Self.noise.seconds
    }

    /// The advice: `recommended` when it beats the default by more than noise, and the recording
    /// can judge it (a schedule that stops before the app's last poll needs late changes in the
    /// recording to be judged by); else the reader app's default.
    public var advice: Int? {
        guard let best = recommended, let reader = readerApp else { return recommended ?? readerApp }
        guard Self.withinCap(scores[reader], maxFinal) else { return best }
        guard beatsDefault(best) else { return reader }
        let shorter = scores[best].candidate.schedule.duration < scores[reader].candidate.schedule.duration
        return shorter && !judgesLatePolls ? reader : best
    }

    /// The reader app's own setting (always among the candidates).
    public var readerApp: Int? { scores.firstIndex { $0.candidate.isReaderApp } }

    /// Reports without a settled height, by status.
    public var notJudged: [PageStatus: Int] {
        var counts: [PageStatus: Int] = [:]
        for report in reports where !report.hasSettledHeight { counts[report.status, default: 0] += 1 }
        return counts
    }
}
