/// How one candidate did over the recorded pages.
///
/// Pages without a settled height (a status other than `ok`) are not counted at all. Jumps and
/// the time to the final height are summed over the pages whose result is known (right or
/// wrong), so an unknown page adds nothing anywhere but to `unknown`.
public struct CandidateScore: Sendable, Equatable {
    /// A page the candidate leaves wrong.
    public struct WrongPage: Sendable, Equatable {
        public var url: String
        public var index: Int?
        /// The app's height minus the settled height (negative: clipped).
        public var error: Double
    }

    public var candidate: TuneCandidate
    /// Pages with a settled height.
    public var judged: Int
    public var right: Int
    /// The wrong pages, in report order.
    public var wrongPages: [WrongPage]
    public var unknown: Int
    /// Visible jumps per known page.
    public var jumps: Distribution?
    /// Seconds from load finished to the final height, per known page that showed one.
    public var finalAfterLoad: Distribution?
    /// px·s of wrong height (clipped or blank) per known page (`WrongHeightTime`).
    public var wrongTime: Distribution?
    /// px·s of clipped height per known page.
    public var clippedTime: Distribution?
    /// The latest final height over the known pages, seconds after load finished.
    public var latestFinal: Double?

    public init(candidate: TuneCandidate, replays: [PageReplay]) {
        self.candidate = candidate
        var judged = 0, right = 0, unknown = 0
        var wrong: [WrongPage] = []
        var jumps: [Double] = []
        var finals: [Double] = []
        var wrongTimes: [Double] = [], clippedTimes: [Double] = []
        for replay in replays {
            switch replay.verdict {
            case .notJudged: continue
            case .unknown: unknown += 1
            case .right: right += 1
            case .clipped, .blank: wrong.append(WrongPage(url: replay.url, index: replay.index, error: replay.verdict.wrongBy!))
            }
            judged += 1
            guard replay.verdict.isKnown else { continue }
            jumps.append(Double(max(replay.outcome.jumps.count - 1, 0)))
            if let final = replay.finalAfterLoad { finals.append(final) }
            let time = replay.wrongTime ?? .none
            wrongTimes.append(time.total)
            clippedTimes.append(time.clipped)
        }
        self.judged = judged
        self.right = right
        self.unknown = unknown
        self.wrongPages = wrong
        self.jumps = Distribution(jumps)
        self.finalAfterLoad = Distribution(finals)
        self.wrongTime = Distribution(wrongTimes)
        self.clippedTime = Distribution(clippedTimes)
        self.latestFinal = finals.max()
    }

    public var wrong: Int { wrongPages.count }
    public var clipped: [WrongPage] { wrongPages.filter { $0.error < 0 } }
    public var blank: [WrongPage] { wrongPages.filter { $0.error > 0 } }
    /// Pages not known to be right: wrong or unknown.
    public var notRight: Int { wrong + unknown }
    /// Polls per page (the schedule's; the measurement at load comes on top).
    public var polls: Int { candidate.schedule.delays.count }
    /// The largest error among the wrong pages, signed.
    public var worst: Double? { wrongPages.max { abs($0.error) < abs($1.error) }?.error }

    /// What the Pareto front minimizes: pages not known to be right, px·s of wrong height per
    /// page (mean), jumps per page (mean), seconds to the final height (mean).
    public var objectives: [Double] {
        [Double(notRight), wrongTime?.mean ?? 0, jumps?.mean ?? 0, finalAfterLoad?.mean ?? 0]
    }

    /// The order of the front, best first: pages not right, then px·s of wrong height per page
    /// (in steps of `TuneResult.noise.pixelSeconds`: smaller differences are noise), then jumps,
    /// then the final height's time.
    public var rank: [Double] {
        let step = TuneResult.noise.pixelSeconds
        return [Double(notRight), ((wrongTime?.mean ?? 0) / step).rounded(), jumps?.mean ?? 0, finalAfterLoad?.mean ?? 0]
    }
}
