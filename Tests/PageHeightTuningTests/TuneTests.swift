import Foundation
import PageHeightCore
import PageHeightTuning
import Testing

@Suite struct TuneTests {
    @Test func familyMembersGrowUpToTheirLastPoll() {
        let doubling = ScheduleFamily.Parameters(polls: 6, first: 0.1, growth: 2, lastPoll: 5)
        #expect(doubling.schedule.pollOffsets.map { ($0 * 1000).rounded() / 1000 } == [0.1, 0.3, 0.7, 1.5, 3.1, 5])
        #expect(doubling.description == "6 polls from 0.1 s, x2, last at 5 s")
        // Polls stop at the last poll time even when more are allowed.
        #expect(ScheduleFamily.Parameters(polls: 10, first: 0.5, growth: 1, lastPoll: 1).schedule.delays == [0.5, 0.5])
        #expect(ScheduleFamily.Parameters(polls: 1, first: 0.3, growth: 3, lastPoll: 2).schedule.delays == [2])
        let family = ScheduleFamily(polls: [1, 2], firstDelays: [0.1, 0.2], growthFactors: [1, 2], lastPolls: [1])
        // One poll at 1 s whatever the first delay and growth; two polls: 0.1+0.9, 0.2+0.8.
        #expect(family.members.map(\.schedule.delays) == [[1], [0.1, 0.9], [0.2, 0.8]])
    }

    @Test func theReaderAppIsAlwaysACandidate() {
        let family = ScheduleFamily(polls: [1], firstDelays: [0.1], growthFactors: [1], lastPolls: [2])
        let candidates = TuneCandidate.all(family: family, given: [GrowingDelaySchedule(delays: [2])], thresholds: [1, 10])
        #expect(candidates.filter(\.isReaderApp).count == 1)
        #expect(candidates.map(\.sleeps) == ["0.1,0.2,0.5,1,1.5,2", "0.1,0.2,0.5,1,1.5,2", "0.1,0.2,0.5,1,1.5,2", "2", "2"])
        #expect(candidates.map(\.threshold) == [1, 10, 5, 1, 10])
        #expect(candidates[3].origin == .given, "a given schedule the family also has keeps 'given'")
    }

    @Test func theParetoFrontKeepsWhatNothingBeats() {
        let points: [[Double]] = [[3, 1, 1], [1, 3, 1], [2, 2, 2], [3, 3, 3], [1, 3, 1], [1, 3, 0.5]]
        #expect(ParetoFront.indices(points) == [0, 2, 5])
        #expect(ParetoFront.dominates([1, 1], [1, 2]) && !ParetoFront.dominates([1, 1], [1, 1]))
    }

    @Test func distributionsUseTheNearestRank() throws {
        let d = try #require(Distribution((1...20).map(Double.init)))
        #expect(d.count == 20 && d.mean == 10.5 && d.median == 11 && d.p95 == 19)
        #expect(Distribution([]) == nil)
    }

    /// Three pages: one that never moves, one that grows 0.5 s after load, one 6 s after load.
    /// The default misses the late one; a schedule with a poll after 6 s gets every page right,
    /// and one poll at 6.5 s does so with the fewest jumps.
    @Test func theSearchFindsTheScheduleThatCatchesTheLatePage() throws {
        let reports = [
            try Recording(url: "file:///static.html").report(settledAt: 0.6),
            try Recording(changes: [(0.5, 1300)], url: "file:///early.html").report(settledAt: 1.1),
            try Recording(changes: [(6.0, 1300)], url: "file:///late.html").report(settledAt: 6.6),
        ]
        let family = ScheduleFamily(polls: [1, 3], firstDelays: [0.1], growthFactors: [2], lastPolls: [1, 6.5])
        let candidates = TuneCandidate.all(family: family, given: [], thresholds: [5])
        let result = TuneSearch(candidates: candidates, tolerance: 5).run(reports)
        let reader = try #require(result.readerApp.map { result.scores[$0] })
        #expect(reader.wrong == 1 && reader.clipped.map(\.url) == ["file:///late.html"] && reader.worst == -500)
        #expect(reader.jumps?.mean == 1.0 / 3)
        let best = try #require(result.recommended.map { result.scores[$0] })
        #expect(best.candidate.sleeps == "6.5" && best.notRight == 0 && best.jumps?.mean == 2.0 / 3)
        // The front: one poll at 6.5 s (every page right; three polls 0.1, 0.3, 6.5 s score
        // the same), and the reader's own, which misses the late page but shows the early growth
        // sooner. One poll at 1 s scores as the reader's but later.
        #expect(result.front.map { result.scores[$0].candidate.sleeps } == ["6.5", "0.1,0.2,0.5,1,1.5,2"])
        #expect(result.alike[result.front[0]] == 1 && result.alike[result.front[1]] == 0)
    }

    /// Issue 45.1: the advice. A shorter schedule that beats the default only by noise, or on a
    /// recording where nothing changed late (saved pages offline), is not recommended: the
    /// default stays, and the text says why; a real gain on a recording that can judge it is.
    @Test func theDefaultStaysUnlessSomethingBeatsItByMoreThanNoise() throws {
        // Everything settles within 0.3 s of the load: a recording that cannot judge late polls.
        let early = [
            try Recording(url: "file:///static.html").report(settledAt: 0.6),
            try Recording(changes: [(0.02, 1300)], url: "file:///early.html").report(settledAt: 0.6),
            try Recording(changes: [(0.3, 1500)], url: "file:///later.html").report(settledAt: 0.9),
        ]
        let family = ScheduleFamily(polls: [1, 2], firstDelays: [0.05], growthFactors: [9], lastPolls: [0.5])
        let candidates = TuneCandidate.all(family: family, given: [], thresholds: [5])
        let result = TuneSearch(candidates: candidates, tolerance: 5).run(early)
        #expect(!result.judgesLatePolls && (result.latestChange ?? 9) < 0.5)
        let reader = try #require(result.readerApp)
        #expect(result.advice == reader, "\(result.advice.map { result.scores[$0].candidate.sleeps } ?? "-")")
        let text = TuneTable.text(result, family: family, thresholds: [5], given: 0)
        #expect(text.contains("Recommended: keep the default; the default is as good as anything on these pages ("), "\(text)")
        #expect(text.contains("cannot tell late polls apart"), "\(text)")

        // A page that changes 6 s after load: the recording judges late polls, and a schedule
        // that catches it beats the default by a page.
        let late = early + [try Recording(changes: [(6.0, 1300)], url: "file:///late.html").report(settledAt: 6.6)]
        let wide = ScheduleFamily(polls: [1, 3], firstDelays: [0.1], growthFactors: [2], lastPolls: [1, 6.5])
        let found = TuneSearch(candidates: TuneCandidate.all(family: wide, given: [], thresholds: [5]), tolerance: 5).run(late)
        #expect(found.judgesLatePolls)
        let advice = try #require(found.advice)
        #expect(advice == found.recommended && advice != found.readerApp && found.scores[advice].notRight == 0)
        #expect(TuneTable.text(found, family: wide, thresholds: [5], given: 0).contains("Recommended: sleeps "))
    }

    /// Candidates that tie with the default exactly are shown as the default (the tie rule).
    @Test func aTieWithTheDefaultIsShownAsTheDefault() throws {
        let reports = [try Recording(url: "file:///static.html").report(settledAt: 0.6)]
        let result = TuneSearch(candidates: TuneCandidate.all(family: ScheduleFamily(polls: [1], firstDelays: [0.1], growthFactors: [2], lastPolls: [0.1]),
                                                              given: [], thresholds: [5]), tolerance: 5).run(reports)
        let reader = try #require(result.readerApp)
        if result.scores[reader].objectives == result.scores[try #require(result.recommended)].objectives {
            #expect(result.recommended == reader)
        }
        #expect(result.advice == reader)
    }
}
