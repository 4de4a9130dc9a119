import PageHeightCore
import Testing

@Suite struct GrowingDelayScheduleTests {
    @Test func readerAppPollsAtTheDocumentedTimes() {
        let offsets = GrowingDelaySchedule.readerApp.pollOffsets
        let expected = [0.1, 0.3, 0.8, 1.8, 3.3, 5.3]
        #expect(offsets.count == expected.count)
        for (a, b) in zip(offsets, expected) { #expect(abs(a - b) < 1e-9) }
        #expect(abs(GrowingDelaySchedule.readerApp.duration - 5.3) < 1e-9)
    }

    @Test func parsesCommaSeparatedSleeps() {
        #expect(GrowingDelaySchedule(parsing: "0.1, 0.2,1")?.delays == [0.1, 0.2, 1])
        #expect(GrowingDelaySchedule(parsing: "") == nil)
        #expect(GrowingDelaySchedule(parsing: "0.1,,0.2") == nil)
        #expect(GrowingDelaySchedule(parsing: "0.1,-1") == nil)
        #expect(GrowingDelaySchedule(parsing: "0") == nil)
        #expect(GrowingDelaySchedule(parsing: "fast") == nil)
        #expect(GrowingDelaySchedule(parsing: "inf") == nil)
    }
}

@Suite struct AdoptionRuleTests {
    let rule = AdoptionRule(threshold: 5)

    @Test func firstPositiveValueIsAdopted() {
        #expect(rule.adopts(100, over: nil))
        #expect(!rule.adopts(0, over: nil))
        #expect(!rule.adopts(-3, over: nil))
        #expect(!rule.adopts(nil, over: nil))
    }

    @Test func movesOfThresholdOrLessAreIgnored() {
        #expect(!rule.adopts(105, over: 100))
        #expect(!rule.adopts(95, over: 100))
        #expect(rule.adopts(105.5, over: 100))
        #expect(rule.adopts(94, over: 100))
        #expect(!rule.adopts(0, over: 100), "a zero reading never replaces a height")
    }
}
