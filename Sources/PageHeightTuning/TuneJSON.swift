import Foundation

/// `tune --json`: every candidate's score, the front and the recommendation.
///
/// Times are seconds after load finished; errors px, negative when clipped.
public enum TuneJSON {
    public static func encode(_ result: TuneResult) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(Document(result)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    struct Document: Encodable {
        var reports: Int
        var judged: Int
        var notJudged: [String: Int]
        var tolerance: Double
        var candidates: [Candidate]
        /// Indices into `candidates`, best first.
        var front: [Int]
        /// The front's first.
        var recommended: Int?
        /// What to use: `recommended` when it beats the default by more than noise and the
        /// recording can judge it, else the reader app's default (`TuneResult.advice`).
        var advice: Int?
        var readerApp: Int?
        /// False when every page stopped changing within 0.5 s of its load.
        var judgesLatePolls: Bool
        /// `--max-final`: the cap on the latest final height, and how many candidates it left out.
        var maxFinal: Double?
        var pastMaxFinal: Int

        init(_ result: TuneResult) {
            reports = result.reports.count
            judged = result.reports.filter(\.hasSettledHeight).count
            notJudged = Dictionary(uniqueKeysWithValues: result.notJudged.map { ($0.key.rawValue, $0.value) })
            tolerance = result.tolerance
            front = result.front
            recommended = result.recommended
            advice = result.advice
            readerApp = result.readerApp
            judgesLatePolls = result.judgesLatePolls
            maxFinal = result.maxFinal
            pastMaxFinal = result.pastMaxFinal
            let names = PageNames.shortened(result.reports.map(\.url))
            var nameOf: [String: String] = [:]
            for (report, name) in zip(result.reports, names) { nameOf[report.url] = name }
            let shown = Set(result.front + [result.readerApp].compactMap { $0 })
            candidates = result.scores.enumerated().map { index, score in
                Candidate(score, alike: result.alike[index], pages: shown.contains(index) ? nameOf : nil)
            }
        }
    }

    struct Stats: Encodable {
        var mean: Double
        var median: Double
        var p95: Double
        init?(_ distribution: Distribution?) {
            guard let distribution else { return nil }
            mean = (distribution.mean * 1000).rounded() / 1000
            median = (distribution.median * 1000).rounded() / 1000
            p95 = (distribution.p95 * 1000).rounded() / 1000
        }
    }

    struct WrongPage: Encodable {
        var url: String
        var page: String
        var index: Int?
        var error: Double
    }

    struct Candidate: Encodable {
        var sleeps: [Double]
        var pollTimes: [Double]
        var threshold: Double
        var origin: String
        var family: [String: Double]?
        var polls: Int
        var lastPoll: Double
        var judged: Int
        var right: Int
        var wrong: Int
        var clipped: Int
        var blank: Int
        var unknown: Int
        var worst: Double?
        var jumpsPerPage: Stats?
        var finalAfterLoad: Stats?
        /// px·s of wrong height per page (`WrongHeightTime`), and of it clipped.
        var wrongHeightPixelSeconds: Stats?
        var clippedPixelSeconds: Stats?
        /// Candidates that score the same (front entries only).
        var alike: Int?
        /// The pages it gets wrong (front entries and the reader app's only).
        var wrongPages: [WrongPage]?

        init(_ score: CandidateScore, alike: Int?, pages names: [String: String]?) {
            let candidate = score.candidate
            sleeps = candidate.schedule.delays
            pollTimes = candidate.schedule.pollOffsets.map { ($0 * 1000).rounded() / 1000 }
            threshold = candidate.threshold
            switch candidate.origin {
            case .readerApp: origin = "reader-app"
            case .given: origin = "given"
            case .family(let parameters):
                origin = "family"
                family = ["polls": Double(parameters.polls), "first": parameters.first, "growth": parameters.growth,
                          "lastPoll": parameters.lastPoll]
            }
            polls = score.polls
            lastPoll = candidate.schedule.duration
            judged = score.judged
            right = score.right
            wrong = score.wrong
            clipped = score.clipped.count
            blank = score.blank.count
            unknown = score.unknown
            worst = score.worst
            jumpsPerPage = Stats(score.jumps)
            finalAfterLoad = Stats(score.finalAfterLoad)
            wrongHeightPixelSeconds = Stats(score.wrongTime)
            clippedPixelSeconds = Stats(score.clippedTime)
            self.alike = alike
            wrongPages = names.map { names in
                score.wrongPages.map { WrongPage(url: $0.url, page: names[$0.url] ?? $0.url, index: $0.index, error: $0.error) }
            }
        }
    }
}
