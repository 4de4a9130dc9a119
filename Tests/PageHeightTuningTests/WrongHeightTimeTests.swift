import Foundation
@testable import PageHeightCore
import PageHeightTuning
import Testing

/// Issue 61.2: `tune` scores the time a reader looks at a wrong height, can cap when the final
/// height must come, and prints a short front.
@Suite struct WrongHeightTimeTests {
    func jump(_ t: Double, _ height: Double) -> StrategyOutcome.Jump { StrategyOutcome.Jump(t: t, height: height) }
    func reading(_ t: Double, _ height: Double) -> HeightSample { HeightSample(t: t, height: height, source: .observer) }

    @Test func theAreaBetweenTheShownHeightAndThePagesCountsClippedAndBlankApart() {
        // The page grows by 500 px at 0.5 s; the app shows it at 2 s: clipped 500 px for 1.5 s.
        let late = WrongHeightTime(shown: [jump(0, 800), jump(2, 1300)], content: [reading(0, 800), reading(0.5, 1300)], tolerance: 5)
        #expect(late == WrongHeightTime(clipped: 750, blank: 0))
        // It shrinks by 300 px at 1 s, the app follows at 3 s: blank 300 px for 2 s.
        let shrunk = WrongHeightTime(shown: [jump(0, 1300), jump(3, 1000)], content: [reading(0, 1300), reading(1, 1000)], tolerance: 5)
        #expect(shrunk == WrongHeightTime(clipped: 0, blank: 600))
        // Within the tolerance is right; a page the app never catches counts until the recording ends.
        #expect(WrongHeightTime(shown: [jump(0, 800)], content: [reading(0, 800), reading(1, 804)], tolerance: 5) == .none)
        let missed = WrongHeightTime(shown: [jump(0, 800)], content: [reading(0, 800), reading(1, 900)], tolerance: 5, recordingEnd: 4)
        #expect(missed.clipped == 300 && missed.total == 300)
    }

    /// The reader app team's case: lazy images that arrive 0.2-2.7 s after load. One late poll
    /// shows each page once (fewer jumps) but leaves it clipped for seconds; the search ranks
    /// that time first, and `--max-final` leaves such schedules out altogether.
    @Test func aScheduleThatLeavesPagesClippedForSecondsIsNotTheBest() throws {
        let reports = try [0.2, 0.6, 1.1, 1.7, 2.7].enumerated().map { index, t in
            try Recording(changes: [(t, 1400)], url: "file:///lazy-\(index).html").report(settledAt: t + 0.6)
        }
        let late = GrowingDelaySchedule(delays: [0.05, 0.05, 7.9])
        let family = ScheduleFamily(polls: [3, 6], firstDelays: [0.1], growthFactors: [1.5], lastPolls: [3])
        let candidates = TuneCandidate.all(family: family, given: [late], thresholds: [5])
        let result = TuneSearch(candidates: candidates, tolerance: 5).run(reports)
        let lateScore = try #require(result.scores.first { $0.candidate.schedule == late })
        #expect(lateScore.notRight == 0 && (lateScore.jumps?.mean ?? 9) <= 1)
        #expect((lateScore.wrongTime?.mean ?? 0) > 2000, "600 px clipped for 6-7.5 s on every page")
        let best = try #require(result.recommended.map { result.scores[$0] })
        #expect(best.candidate.schedule != late && best.notRight == 0, "\(best.candidate.sleeps)")
        #expect((best.wrongTime?.mean ?? 9999) < (lateScore.wrongTime?.mean ?? 0) / 4)
        #expect((lateScore.latestFinal ?? 0) > 7)

        let capped = TuneSearch(candidates: candidates, tolerance: 5, maxFinal: 4).run(reports)
        #expect(!capped.front.contains { capped.scores[$0].candidate.schedule == late } && capped.pastMaxFinal >= 1)
        #expect(capped.front.allSatisfy { (capped.scores[$0].latestFinal ?? 0) <= 4 })
        let text = TuneTable.text(capped, family: family, thresholds: [5], given: 1)
        #expect(text.contains("--max-final 4 s: \(capped.pastMaxFinal) candidates that show a final height later are left out."), "\(text)")
    }

    @Test func theTablePrintsAShortFrontUnlessAskedForAll() throws {
        let reports = try [0.2, 0.6, 1.1, 1.7, 2.7, 4.5].enumerated().map { index, t in
            try Recording(changes: [(t, 1000 + 100 * Double(index))], url: "file:///p\(index).html").report(settledAt: t + 0.6)
        }
        let family = ScheduleFamily()
        let result = TuneSearch(candidates: TuneCandidate.all(family: family, given: [], thresholds: [0, 5, 20]), tolerance: 5).run(reports)
        try #require(result.front.count > 2)
        let short = TuneTable.text(result, family: family, thresholds: [0, 5, 20], given: 0, rows: 2)
        let all = TuneTable.text(result, family: family, thresholds: [0, 5, 20], given: 0, rows: nil)
        #expect(short.contains("its first 2 of \(result.front.count) rows (--all shows every one):"), "\(short)")
        #expect(all.split(separator: "\n").count - short.split(separator: "\n").count >= result.front.count - 3)
        #expect(!all.contains("--all shows every one"))
        let widest = short.split(separator: "\n").filter { $0.hasPrefix("best") || $0.hasPrefix("app") || $0.hasPrefix("    ") }.map(\.count).max() ?? 0
        #expect(widest <= 160, "table rows of \(widest) columns")
    }
}
