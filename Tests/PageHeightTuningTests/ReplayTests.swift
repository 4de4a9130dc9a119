import Foundation
import PageHeightCore
import PageHeightTuning
import Testing

/// Hand-made recordings, written as a report and read back as `replay` reads them.
struct Recording {
    var load = 800.0
    /// The page's changes: (seconds after load finished, new height).
    var changes: [(Double, Double)] = []
    var schedule = GrowingDelaySchedule.readerApp
    var until = StopRule.quiet
    var url = "file:///page.html"
    static let finishedAt = 0.2

    /// The page's height `offset` seconds after load finished.
    func height(at offset: Double) -> Double {
        changes.last { $0.0 <= offset }?.1 ?? load
    }

    /// A measurement that settles at `settledAt` (seconds after load finished), or ends at
    /// `end` without settling. Polls read the page 4 ms after they are due.
    func report(settledAt: Double? = nil, end: EndReason = .settled, endedAt: Double? = nil) throws -> RecordedReport {
        var options = MeasureOptions()
        options.schedule = schedule
        options.until = until
        var session = MeasurementSession(options: options)
        let f = Self.finishedAt
        let stop = endedAt ?? (settledAt.map { f + $0 } ?? 15)
        session.loadCommitted(at: 0.1)
        session.loadFinished(at: f)
        var events: [HeightSample] = [HeightSample(t: f + 0.003, height: load, source: .load)]
        for (offset, value) in changes { events.append(HeightSample(t: f + offset, height: value, source: .observer, cause: "mutation")) }
        for (index, offset) in schedule.pollOffsets.enumerated() where f + offset + 0.004 <= stop {
            events.append(HeightSample(t: f + offset + 0.004, height: height(at: offset), source: .poll, poll: index + 1))
        }
        if let settledAt { events.append(HeightSample(t: f + settledAt, height: height(at: settledAt), source: .poll, cause: "settle-check")) }
        for event in events.sorted(by: { $0.t < $1.t }) where event.t <= stop { session.record(event) }
        let report = ReportBuilder(url: url, session: session, end: end, endedAt: stop).build()
        let line = ReportEncoding.jsonLine(report)
        return try #require(try ReportFile.parse(Data(line.utf8), name: "test").first)
    }
}

@Suite struct ReplayTests {
    func app(_ sleeps: String, threshold: Double = 5) -> StrategyReplay {
        StrategyReplay(schedule: GrowingDelaySchedule(parsing: sleeps)!, threshold: threshold)
    }

    /// A report with steps (`--then`): replay judges the load's timeline, not what the steps
    /// did after it.
    @Test func aStepsReadingsAreNotTheLoads() throws {
        var options = MeasureOptions()
        options.until = .quiet
        var session = MeasurementSession(options: options)
        session.loadCommitted(at: 0.1)
        session.loadFinished(at: 0.2)
        session.record(HeightSample(t: 0.203, height: 800, source: .load))
        session.record(HeightSample(t: 0.704, height: 800, source: .poll, cause: "settle-check"))
        var report = ReportBuilder(url: "file:///page.html", session: session, end: .settled, endedAt: 0.704).build()
        session.stepStarted(1, at: 1, options: options)
        session.record(HeightSample(t: 1.2, height: 1400, source: .observer, cause: "resize-observer"))
        report.samples = session.samples
        let recorded = try #require(try ReportFile.parse(Data(ReportEncoding.jsonLine(report).utf8), name: "test").first)
        #expect(recorded.samples.count == 3 && recorded.timeline.samples.count == 2)
        let replay = PageReplay(recorded, app: .init(schedule: .readerApp, threshold: 5), tolerance: 5)
        #expect(replay.outcome.height == 800 && replay.jumps.isEmpty)
        #expect(recorded.lastChangeAfterLoad == 0)
    }

    /// Content that arrives 6 s after load, after the default's last poll (5.3 s): the app ends
    /// short by exactly that content.
    @Test func aChangeAfterTheLastPollLeavesThePageWrongByExactlyThatChange() throws {
        let report = try Recording(changes: [(6.0, 1300)]).report(settledAt: 6.6)
        #expect(report.status == .ok && report.height == 1300)
        let replay = PageReplay(report, app: .init(schedule: .readerApp, threshold: 5), tolerance: 5)
        #expect(replay.verdict == .clipped(by: 500))
        #expect(replay.outcome.height == 800 && replay.outcome.error == -500)
        #expect(replay.jumps.isEmpty)
    }

    @Test func aScheduleThatPollsLaterCatchesIt() throws {
        let report = try Recording(changes: [(6.0, 1300)]).report(settledAt: 6.6)
        let replay = PageReplay(report, app: app("0.1,0.2,0.5,1,1.5,2,3"), tolerance: 5)  // last poll at 8.3 s
        #expect(replay.verdict == .right(error: 0))
        #expect(replay.jumps.count == 1)
        #expect(replay.jumps.first?.size == 500 && replay.jumps.first?.height == 1300)
        #expect(abs(try #require(replay.jumps.first?.t) - (Recording.finishedAt + 8.3)) < 1e-9, "at the poll's due time")
        #expect(abs(try #require(replay.finalAfterLoad) - 8.3) < 1e-9)
    }

    /// 800 → 803 → 806 → 906: with a 5 px threshold the reader sees two jumps (the 3 px move is
    /// not adopted, the next poll sees 6 px), with 10 px one.
    @Test func jumpsAreTheMovesAboveTheThresholdAsTheReaderSeesThem() throws {
        let report = try Recording(changes: [(0.15, 803), (0.5, 806), (1.3, 906)]).report(settledAt: 1.9)
        let five = PageReplay(report, app: .init(schedule: .readerApp, threshold: 5), tolerance: 5)
        #expect(five.jumps.map(\.size) == [6, 100])
        #expect(five.jumps.map { ($0.t - Recording.finishedAt) * 1000 }.map { $0.rounded() } == [800, 1800])
        #expect(five.verdict == .right(error: 0))
        let ten = PageReplay(report, app: .init(schedule: .readerApp, threshold: 10), tolerance: 5)
        #expect(ten.jumps.map(\.size) == [106])
        #expect(ten.verdict == .right(error: 0))
        // With a 20 px tolerance a page 6 px off is right, with 5 px it is blank space.
        let small = try Recording(load: 806, changes: [(0.5, 800)]).report(settledAt: 1.1)
        #expect(PageReplay(small, app: .init(schedule: .readerApp, threshold: 10), tolerance: 5).verdict == .blank(by: 6))
        #expect(PageReplay(small, app: .init(schedule: .readerApp, threshold: 10), tolerance: 20).verdict == .right(error: 6))
    }

    /// A page quiet at the timeout was watched until then and no further: a poll after that is
    /// unknown, never right, and counts nowhere but as unknown.
    @Test func unknownStaysUnknown() throws {
        let report = try Recording(changes: [(0.5, 1000)]).report(end: .timedOut(stalledSince: nil), endedAt: 3.0)
        #expect(report.status == .ok && report.timings.settledAt == nil && report.height == 1000)
        let early = PageReplay(report, app: app("0.1,0.9,1"), tolerance: 5) // last poll at 2.2 s
        #expect(early.verdict == .right(error: 0))
        let late = PageReplay(report, app: .init(schedule: .readerApp, threshold: 5), tolerance: 5) // 3.5 s, 5.5 s
        #expect(late.verdict == .unknown("polls after the recording ends, 2.80 s after load finished"))
        #expect(!late.outcome.complete)
        let score = CandidateScore(candidate: .readerApp, replays: [late, early])
        #expect(score.unknown == 1 && score.right == 1 && score.wrong == 0 && score.notRight == 1)
        #expect(score.jumps?.count == 1, "only the known page counts its jumps")

        // The quick rule's verdict says nothing about later changes either.
        var quick = Recording(changes: [(0.05, 900)])
        quick.until = .quick
        let quickReport = try quick.report(settledAt: 0.08)
        #expect(PageReplay(quickReport, app: app("0.05"), tolerance: 5).verdict == .right(error: 0))
        #expect(PageReplay(quickReport, app: app("0.5"), tolerance: 5).verdict.word == "unknown")
        #expect(!quickReport.strategies.schedule.complete && quickReport.timeline.horizon == .watched(until: 0.28))
    }

    @Test func pagesWithoutASettledHeightAreNotJudged() throws {
        let report = try Recording(changes: [(0.5, 1000)]).report(end: .timedOut(stalledSince: 0.4), endedAt: 3.0)
        #expect(report.status == .timeout)
        let replay = PageReplay(report, app: .init(schedule: .readerApp, threshold: 5), tolerance: 5)
        #expect(replay.verdict == .notJudged("status timeout"))
        #expect(CandidateScore(candidate: .readerApp, replays: [replay]).judged == 0)
    }

    @Test func aRecordingInTheOtherFitModeCannotTell() throws {
        let report = try Recording().report(settledAt: 1)
        let app = StrategyReplay(schedule: .readerApp, threshold: 5)
        #expect(PageReplay(report, app: app, tolerance: 5, fit: true).verdict == .right(error: 0))
        #expect(PageReplay(report, app: app, tolerance: 5, fit: false).verdict == .unknown("recorded with fit mode"))
    }

    /// Replaying a report under its own schedule and threshold gives its `strategies.schedule`,
    /// as the report wrote it: the replay is the code that filled it.
    @Test func replayingUnderItsOwnScheduleGivesTheReportsStrategy() throws {
        var reports = [
            try Recording(changes: [(6.0, 1300)]).report(settledAt: 6.6),
            try Recording(changes: [(0.15, 803), (0.5, 806), (1.3, 906)]).report(settledAt: 1.9),
            try Recording(load: 0, changes: [(0.25, 700), (2.0, 0), (2.2, 720)]).report(settledAt: 2.8),
            try Recording(changes: [(0.5, 1000)]).report(end: .timedOut(stalledSince: nil), endedAt: 3.0),
            try Recording(changes: [(0.5, 1000), (4.0, 1001)]).report(end: .timedOut(stalledSince: 0.6), endedAt: 5.0),
        ]
        var other = Recording(changes: [(0.33, 950), (0.9, 990)])
        other.schedule = GrowingDelaySchedule(parsing: "0.25,0.25,1")!
        reports.append(try other.report(settledAt: 1.6))
        for report in reports {
            let own = StrategyReplay(schedule: report.options.schedule, threshold: report.options.threshold)
            let replay = PageReplay(report, app: own, tolerance: 5)
            #expect(ReportEncoding.rounded(replay.outcome) == report.strategies.schedule, "\(report.samples)")
        }
    }

    /// A runaway's timeline ends where the runaway began, read back from the fit steps.
    @Test func aRunawayReplaysFromItsFitSteps() throws {
        var session = MeasurementSession(options: MeasureOptions())
        session.loadCommitted(at: 0.1)
        session.loadFinished(at: 0.7)
        session.record(HeightSample(t: 0.71, height: 4064, source: .load))
        for (step, t) in [0.72, 0.80, 0.88, 0.96].enumerated() {
            let view = 4064 + Double(step) * 1000
            _ = session.resized(to: view, issuedAt: t, at: t + 0.05, contentHeight: view + 1000)
            session.record(HeightSample(t: t + 0.05, height: view + 1000, source: .poll, cause: "after-resize"))
        }
        session.record(HeightSample(t: 0.8, height: 6000, source: .poll, poll: 1))
        let built = ReportBuilder(url: "u", session: session, end: .runaway, endedAt: 1.1).build()
        let report = try #require(try ReportFile.parse(Data(ReportEncoding.jsonLine(built).utf8), name: "t").first)
        #expect(report.status == .runaway)
        let replay = PageReplay(report, app: .init(schedule: .readerApp, threshold: 5), tolerance: 5)
        #expect(ReportEncoding.rounded(replay.outcome) == report.strategies.schedule)
        #expect(replay.outcome.height == 4064 && !replay.outcome.complete)
        #expect(replay.verdict == .notJudged("status runaway"))
    }

    @Test func theTimelineAnswersForAnyMoment() {
        let samples = [
            HeightSample(t: 0.21, height: 500, source: .load),
            HeightSample(t: 0.29, height: 510, source: .observer),
            HeightSample(t: 0.305, height: 512, source: .poll, poll: 1),  // due at 0.3
            HeightSample(t: 0.6, height: nil, source: .poll, cause: "settle-check"),
        ]
        let timeline = RecordedTimeline(samples: samples, finishedAt: 0.2, recordedSchedule: GrowingDelaySchedule(delays: [0.1]),
                                        horizon: .watched(until: 0.7))
        #expect(timeline.reading(atOffset: 0.1) == .value(512), "the recorded poll answers for its due time")
        #expect(timeline.reading(atOffset: 0.0) == .value(nil), "nothing read yet")
        #expect(timeline.reading(atOffset: 0.095) == .value(510))
        #expect(timeline.reading(atOffset: 0.2) == .value(512))
        #expect(timeline.reading(atOffset: 0.45) == .value(nil), "JavaScript gave no value")
        #expect(timeline.reading(atOffset: 0.55) == .unknown)
        let settled = RecordedTimeline(samples: samples, finishedAt: 0.2, recordedSchedule: .readerApp, horizon: .settled)
        #expect(settled.reading(atOffset: 100) == .value(nil))
    }

    @Test func aReportFileIsJSONLinesOrOnePrettyReport() throws {
        let report = try Recording().report(settledAt: 1)
        var session = MeasurementSession(options: MeasureOptions())
        session.loadFinished(at: 0.2)
        session.record(HeightSample(t: 0.2, height: 640, source: .load))
        session.record(HeightSample(t: 0.8, height: 640, source: .poll, cause: "settle-check"))
        let built = ReportBuilder(url: "file:///b.html", session: session, end: .settled, endedAt: 0.8).build()
        let pretty = try ReportFile.parse(Data(ReportEncoding.prettyJSON(built).utf8), name: "one.json")
        #expect(pretty.count == 1 && pretty[0].height == 640 && pretty[0].url == "file:///b.html")
        let lines = ReportEncoding.jsonLine(built) + "\n\n" + ReportEncoding.jsonLine(built) + "\n"
        #expect(try ReportFile.parse(Data(lines.utf8), name: "two.jsonl").count == 2)
        #expect(report.options.schedule == .readerApp)
        #expect(throws: ReportFileError.malformed("bad.jsonl", line: 2, detail: "no 'url'")) {
            try ReportFile.parse(Data((ReportEncoding.jsonLine(built) + "\n{\"status\": \"ok\"}\n").utf8), name: "bad.jsonl")
        }
        #expect(throws: ReportFileError.empty("empty")) { try ReportFile.parse(Data("\n \n".utf8), name: "empty") }
        #expect(throws: ReportFileError.malformed("x", line: nil, detail: "not JSON")) { try ReportFile.parse(Data("{\nnope".utf8), name: "x") }
    }
}
