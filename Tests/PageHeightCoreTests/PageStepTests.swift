import Foundation
import PageHeightCore
import Testing

/// Steps (`--then`): parsing, the rules after a step, what each app strategy shows, the line.
@Suite struct PageStepTests {
    @Test func everyStepReadsAndPrintsAsGiven() throws {
        let given = ["width=844", "height=600", "font-size=20", "text-zoom=1.5", "zoom=2", "color-scheme=dark",
                     "click=details > summary", "scroll=bottom", "scroll=1200", "wait=2.5"]
        let steps = try given.map { text throws(UsageError) in try PageStep(parsing: text) }
        #expect(steps == [.width(844), .height(600), .fontSize(20), .textZoom(1.5), .zoom(2), .colorScheme(.dark),
                          .click("details > summary"), .scroll(.bottom), .scroll(.y(1200)), .wait(2.5)])
        #expect(steps.map(\.description) == given)
        let encoded = try JSONEncoder().encode(steps)
        #expect(try JSONDecoder().decode([PageStep].self, from: encoded) == steps)
    }

    @Test func aBadStepSaysWhatStepsThereAre() {
        for text in ["rotate=90", "width", "width=wide", "width=0", "font-size=1.5", "zoom=0", "color-scheme=sepia",
                     "click=", "scroll=top", "wait=-1"] {
            #expect(throws: UsageError.self, "\(text)") { try PageStep(parsing: text) }
        }
        do {
            _ = try PageStep(parsing: "rotate=90")
            Issue.record("rotate=90 was read")
        } catch {
            #expect(error.message.contains("unknown step 'rotate'"))
            #expect(error.message.contains("width=PX") && error.message.contains("click=SELECTOR") && error.message.contains("wait=SECONDS"))
        }
    }

    /// Issue 61.6: a rotation is one step; two sides in one `--then` say which step that is.
    @Test func sizeSetsBothSidesInOneStep() throws {
        #expect(try PageStep(parsing: "size=844x390") == .size(width: 844, height: 390))
        #expect(try PageStep(parsing: "size = 844X390").description == "size=844x390")
        for text in ["size=844", "size=844x", "size=0x390", "size=axb", "size=844x390x2"] {
            #expect(throws: UsageError.self, "\(text)") { try PageStep(parsing: text) }
        }
        do {
            _ = try PageStep(parsing: "width=844,height=390")
            Issue.record("two steps in one were read")
        } catch {
            #expect(error.message == "'width=844,height=390' is two steps in one: a rotation is one step, size=844x390 "
                + "(or give --then width=… and --then height=… apart)")
        }
        var options = MeasureOptions()
        options.device = .iphone
        options.steps = [.size(width: 844, height: 40_000)]
        #expect(throws: UsageError.self) { try options.checkViewSize() }
    }

    @Test func aTextZoomAndAPageZoomCannotBothHold() throws {
        try PageStep.checkZoom([.textZoom(1.5), .textZoom(1), .zoom(2)], pageZoom: 1)
        #expect(throws: UsageError.self) { try PageStep.checkZoom([.zoom(2), .textZoom(1.5)], pageZoom: 1) }
        #expect(throws: UsageError.self) { try PageStep.checkZoom([.textZoom(1.5)], pageZoom: 1.25) }
    }

    /// After a step the rules start over from it: polls on the schedule from there, the quiet
    /// window, the timeout; readings carry the step's index.
    @Test func theRulesStartOverFromAStep() {
        var options = MeasureOptions()
        options.timeout = 15
        var session = MeasurementSession(options: options)
        session.loadCommitted(at: 0.05)
        session.loadFinished(at: 0.2)
        session.record(HeightSample(t: 0.2, height: 1300, source: .load), pending: PendingWork())
        #expect(session.settleCheckAt == 0.2 + 5.3)
        var wide = options
        wide.width = 844
        session.stepStarted(1, at: 6, options: wide)
        #expect(session.options.width == 844)
        #expect(session.pollTimes.first == 6.1)
        #expect(abs((session.pollTimes.last ?? 0) - 11.3) < 1e-9)
        #expect(session.deadline == 21)
        #expect(abs((session.settleCheckAt ?? 0) - 11.3) < 1e-9)
        session.record(HeightSample(t: 6.05, height: 980, source: .poll, cause: "step"))
        #expect(session.samples.last?.step == 1)
        #expect(session.samples.first?.step == nil)
        #expect(!session.isSettled(at: 7))
    }

    @Test func strategiesAfterAStep() {
        let replay = StepStrategyReplay(schedule: .readerApp, threshold: 5)
        // The page re-lays out 0.5 s after a rotation: the app that re-runs its schedule sees it
        // at its 0.8 s poll; the one that measured after load only keeps 1300.
        let samples = [
            HeightSample(t: 6.0, height: 1300, source: .poll, cause: "step"),
            HeightSample(t: 6.1, height: 1300, source: .poll, poll: 1),
            HeightSample(t: 6.3, height: 1300, source: .poll, poll: 2),
            HeightSample(t: 6.5, height: 980, source: .observer, cause: "resize-observer"),
            HeightSample(t: 6.8, height: 980, source: .poll, poll: 3),
            HeightSample(t: 11.3, height: 980, source: .poll, poll: 6),
        ]
        let before = StepStrategyReplay.Shown(observe: 1300, schedule: 1300, scheduleAgain: 1300)
        let result = replay.replay(samples, appliedAt: 6, before: before, height: 980, settled: true)
        #expect(result.observe.height == 980 && result.observe.error == 0)
        #expect(result.observe.jumps.map(\.t) == [6.5])
        #expect(result.schedule.height == 1300 && result.schedule.error == 320)
        #expect(result.schedule.jumps.isEmpty)
        #expect(result.scheduleAgain.height == 980 && result.scheduleAgain.error == 0)
        #expect(result.scheduleAgain.jumps.map(\.t) == [6.8])
        // A step that never settled leaves the polls after its last reading unknown.
        let cut = replay.replay(Array(samples.prefix(3)), appliedAt: 6, before: before, height: 1300, settled: false)
        #expect(!cut.scheduleAgain.complete)
    }

    @Test func theLineSaysWhatEachStrategyShowsAfterAStep() {
        var step = StepReport(step: "width=844", status: .ok, height: 980)
        var schedule = StrategyOutcome()
        schedule.height = 1300
        schedule.error = 320
        var follows = StrategyOutcome()
        follows.height = 980
        follows.error = 0
        step.strategies = StepStrategies(observe: follows, schedule: schedule, scheduleAgain: follows)
        #expect(SummaryLine.after(step, threshold: 5) == "after width=844: 980 px (observe follows; measured after load only, "
            + "the app would keep 1300 px: 320 px of blank space; re-running the schedule shows the same)")
        let failed = StepReport(step: "click=#more", status: .failed, message: "click=#more: no element matches the selector")
        #expect(SummaryLine.after(failed, threshold: 5) == "after click=#more: failed (click=#more: no element matches the selector)")
    }
}
