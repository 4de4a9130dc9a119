import Foundation
import PageHeightCore
import Testing

extension MeasureOptions {
    /// The options with the earliest stop (`--until quiet`): the tests of the quiet window.
    static var earliestStop: MeasureOptions {
        var options = MeasureOptions()
        options.until = .quiet
        return options
    }
}

/// The settle rule and fit mode, fed with recorded timelines (no WebKit).
@Suite struct MeasurementSessionTests {
    func session(_ configure: (inout MeasureOptions) -> Void = { _ in }) -> MeasurementSession {
        var options = MeasureOptions.earliestStop
        configure(&options)
        return MeasurementSession(options: options)
    }

    /// A child frame still loading holds the virtual clock (the page is not idle) for
    /// `frameGrace` at most: one whose load never ends (a refused ad frame) ran the whole schedule
    /// at real speed.
    @Test func aFrameStillLoadingHoldsTheClockOnlyForTheGrace() {
        var s = session()
        s.loadCommitted(at: 0.1)
        s.loadFinished(at: 0.2)
        #expect(s.pageIsIdle(network: 0, at: 0.2))
        s.updatePending(PendingWork(frames: 1), at: 0.3)
        #expect(!s.pageIsIdle(network: 0, at: 0.3))
        #expect(s.idleBlocker(network: 0, at: 0.5) == "1 frame still loading")
        // The driver's wait at real speed ends where the grace does, not at the next poll.
        #expect(s.frameGraceEnds == 0.3 + MeasurementSession.frameGrace)
        #expect(s.pageIsIdle(network: 0, at: 0.3 + MeasurementSession.frameGrace))
        s.updatePending(PendingWork(frames: 1), at: 0.9) // still the same frame: the grace runs on
        #expect(s.pageIsIdle(network: 0, at: 0.9))
        s.updatePending(PendingWork(), at: 1.0)
        #expect(s.frameGraceEnds == nil)
        s.updatePending(PendingWork(frames: 1), at: 2.0) // a new frame gets its own grace
        #expect(!s.pageIsIdle(network: 0, at: 2.1))
        #expect(!s.pageIsIdle(network: 2, at: 5), "the engine's requests in flight")
    }

    @Test func settlesAfterTheQuietWindowWithAConfirmingReading() {
        var s = session()
        s.loadCommitted(at: 0.1)
        s.loadFinished(at: 0.2)
        s.record(HeightSample(t: 0.2, height: 1000, source: .load))
        #expect(s.settleCheckAt == 0.7)
        #expect(!s.isSettled(at: 0.5))
        #expect(!s.isSettled(at: 0.7), "no reading after the quiet window yet")
        s.record(HeightSample(t: 0.7, height: 1002, source: .poll, cause: "settle-check"))
        #expect(s.isSettled(at: 0.7), "a 2 px move is within the threshold")
    }

    @Test func aMoveRestartsTheQuietWindow() {
        var s = session()
        s.loadFinished(at: 0.2)
        s.record(HeightSample(t: 0.2, height: 1000, source: .load))
        let moved = s.record(HeightSample(t: 0.6, height: 1300, source: .observer, cause: "mutation"))
        #expect(moved)
        #expect(s.settleCheckAt == 1.1)
        s.record(HeightSample(t: 0.7, height: 1300, source: .poll, cause: "settle-check"))
        #expect(!s.isSettled(at: 0.7))
    }

    @Test func pendingWorkHoldsTheVerdictAndTimersAfterTheTimeoutDoNot() {
        var s = session { $0.timeout = 12 }
        s.loadFinished(at: 0.2)
        s.record(HeightSample(t: 0.2, height: 800, source: .load), pending: PendingWork(timers: [6.7]))
        #expect(s.settleCheckAt == nil, "a timer due at 6.7 s is pending")
        s.updatePending(PendingWork(), at: 6.7)
        #expect(s.settleCheckAt == 7.2, "the quiet window starts when the pending work ended")

        var late = session { $0.timeout = 5 }
        late.loadFinished(at: 0.2)
        late.record(HeightSample(t: 0.2, height: 800, source: .load), pending: PendingWork(timers: [6.7]))
        #expect(late.settleCheckAt == 0.7, "a timer due after the timeout never counts")
    }

    @Test func fontsStopCountingOnceTheEngineStoppedThePagesLoads() {
        var s = session()
        s.loadFinished(at: 0.1)
        s.record(HeightSample(t: 0.3, height: 900, source: .load), pending: PendingWork(fonts: true))
        #expect(s.settleCheckAt == nil, "fonts loading hold the verdict")
        s.stoppedLoads(at: 0.4)
        #expect(s.settleCheckAt == 0.9, "the quiet window starts when the stop cleared the fonts")
        s.updatePending(PendingWork(fonts: true), at: 0.5)
        #expect(s.settleCheckAt == 0.9, "a cancelled font load stays 'loading' in WebKit; it no longer counts")
        s.updatePending(PendingWork(images: 1, fonts: true), at: 0.6)
        #expect(s.settleCheckAt == nil, "other pending work still counts")
    }

    /// The default runs through the app's whole schedule: the settle check comes no sooner than
    /// its last poll, and a move after it restarts the quiet window as ever.
    @Test func theDefaultWaitsForTheLastPoll() {
        #expect(MeasureOptions().until == .schedule)
        var s = MeasurementSession(options: MeasureOptions())
        s.loadFinished(at: 0.2)
        s.record(HeightSample(t: 0.2, height: 800, source: .load))
        #expect(abs(s.settleCheckAt! - 5.5) < 1e-9)
        s.record(HeightSample(t: 5.4, height: 900, source: .observer, cause: "timer"))
        #expect(abs(s.settleCheckAt! - 5.9) < 1e-9)
    }

    /// `settled`, the earliest stop's name while it was the default, still names it: in options
    /// and in the reports recorded with it.
    @Test func settledIsTheFormerNameOfQuiet() throws {
        #expect(StopRule(rawValue: "settled") == .quiet && StopRule(rawValue: "quiet") == .quiet)
        #expect(StopRule.quiet.rawValue == "quiet" && !StopRule.allCases.map(\.rawValue).contains("settled"))
        let decoded = try JSONDecoder().decode([StopRule].self, from: Data(#"["settled","schedule"]"#.utf8))
        #expect(decoded == [.quiet, .schedule])
    }

    @Test func errorsDoNotMoveTheAnchor() {
        var s = session()
        s.loadFinished(at: 0.1)
        s.record(HeightSample(t: 0.1, height: 800, source: .load))
        let moved = s.record(HeightSample(t: 0.2, height: nil, source: .poll), error: "boom")
        #expect(!moved)
        #expect(s.anchor == 800)
        #expect(s.lastError == "boom")
    }

    @Test func fitModeAsksForTheAdoptedHeightCappedForTheOffscreenSurface() {
        var s = session()
        s.loadFinished(at: 0.1)
        s.record(HeightSample(t: 0.1, height: 1233.4, source: .load))
        #expect(s.fitTarget == 1234)
        _ = s.resized(to: 1234, at: 0.15, contentHeight: 1233.4)
        #expect(s.fitTarget == nil)
        s.record(HeightSample(t: 0.3, height: 50_000, source: .observer))
        #expect(s.fitTarget == MeasurementSession.maxViewDevicePixels)

        var noFit = session { $0.fit = false }
        noFit.record(HeightSample(t: 0.1, height: 2000, source: .load))
        #expect(noFit.fitTarget == nil)
    }
}

@Suite struct RunawayDetectorTests {
    /// view + 100 (a 100vh block and a footer): the law from two steps, confirmed by the third.
    @Test func contentThatGrowsWithTheViewIsARunawayOnceTheLawIsConfirmed() {
        var detector = RunawayDetector(threshold: 5)
        let steps = [(944.0, 1044.0), (1044, 1144), (1144, 1244)].map {
            detector.record(view: $0.0, content: $0.1)
        }
        #expect(steps == [false, false, true])
        let law = detector.law ?? ViewLaw(slope: 0, intercept: 0)
        #expect(abs(law.slope - 1) < 0.001 && abs(law.intercept - 100) < 0.1)
        #expect(detector.evidence.contains("view 944 px → content 1044 px"))
    }

    /// Three 80vh sections and 6000 px of text: 2.4 × view + 6000; its excess over the view is
    /// never the same twice, and it is a runaway all the same.
    @Test func contentThatIsAMultipleOfTheViewIsARunaway() {
        var detector = RunawayDetector(threshold: 5)
        var results: [Bool] = []
        for view in [8026.0, 25262, 16384] { results.append(detector.record(view: view, content: 2.4 * view + 6000)) }
        #expect(results == [false, false, true])
        #expect(abs((detector.law?.slope ?? 0) - 2.4) < 0.001)
    }

    /// A law the next step does not follow (growth that came from the page itself), and a
    /// fitting step, prove nothing.
    @Test func growthThatBreaksItsLawOrAFittingStepIsNot() {
        var detector = RunawayDetector(threshold: 5)
        _ = detector.record(view: 800, content: 820)
        _ = detector.record(view: 820, content: 870)
        _ = detector.record(view: 870, content: 870)
        let last = detector.record(view: 870, content: 890)
        #expect(!last && !detector.isRunaway)
    }

    /// A step whose content kept moving starts the evidence afresh.
    @Test func aMovingStepStartsTheEvidenceAfresh() {
        var detector = RunawayDetector(threshold: 5)
        _ = detector.record(view: 944, content: 1044)
        _ = detector.record(view: 1044, content: 1144)
        detector.reset()
        let proofs = [(1144.0, 1244.0), (1244, 1344), (1344, 1444)].map { detector.record(view: $0.0, content: $0.1) }
        #expect(proofs == [false, false, true])
    }
}

@Suite struct ViewDependenceTests {
    @Test func aLongArticleThatDoesNotDependOnTheViewIsIndependent() {
        #expect(ViewDependence.finding(cap: (16384, 90000), check: (844, 90000), threshold: 5) == .independent)
        #expect(ViewDependence.finding(cap: (16384, 30000), check: (844, 30000), threshold: 5) == .independent)
    }

    @Test func contentThatFollowsTheViewPastTheCapIsARunawayWithItsLaw() {
        guard case .runaway(let law) = ViewDependence.finding(cap: (16384, 21810), check: (844, 6270), threshold: 5) else {
            Issue.record("not a runaway")
            return
        }
        #expect(abs(law.slope - 1) < 0.001 && abs(law.intercept - 5426) < 0.5)
        #expect(law.description == "content = 1.0 × view + 5426 px")
    }

    @Test func aWeakerDependenceEndsBeyondTheCapAndMovingContentTellsNothing() {
        guard case .beyondCap(let law) = ViewDependence.finding(cap: (16384, 28192), check: (844, 20422), threshold: 5)
        else {
            Issue.record("not beyond the cap")
            return
        }
        #expect(abs(law.slope - 0.5) < 0.001 && abs((law.fixedPoint ?? 0) - 40000) < 1)
        #expect(ViewDependence.finding(cap: (16384, 28192), check: (844, nil), threshold: 5) == .moved)
    }
}

@Suite struct FixedPointTests {
    /// Fit mode: content that does not fill the view (below its cap) is no height the reader app
    /// keeps, however quiet; it settles once the view holds it.
    @Test func fitModeSettlesOnlyAtAFixedPoint() {
        var s = MeasurementSession(options: .earliestStop)
        s.loadFinished(at: 0.1)
        s.record(HeightSample(t: 0.1, height: 6660, source: .load))
        _ = s.resized(to: 12476, at: 0.2, contentHeight: nil)
        s.record(HeightSample(t: 0.3, height: 18292, source: .poll, cause: "after-resize"))
        s.record(HeightSample(t: 1.0, height: 18292, source: .poll, cause: "settle-check"))
        #expect(s.missesFixedPoint && !s.isSettled(at: 1.0))
        _ = s.resized(to: 18292, at: 1.1, contentHeight: nil)
        s.record(HeightSample(t: 1.7, height: 18292, source: .poll, cause: "settle-check"))
        #expect(!s.missesFixedPoint && s.isSettled(at: 1.7))
        var noFit = MeasureOptions.earliestStop
        noFit.fit = false
        var n = MeasurementSession(options: noFit)
        n.loadFinished(at: 0.1)
        n.record(HeightSample(t: 0.1, height: 6660, source: .load))
        n.record(HeightSample(t: 0.7, height: 6660, source: .poll, cause: "settle-check"))
        #expect(!n.missesFixedPoint && n.isSettled(at: 0.7))
    }
}

@Suite struct FontRuleTests {
    /// Fonts said to be loading with no request of the view in flight (WebKit's set status stuck
    /// after every face failed) count for the grace period only, and the report says so.
    @Test func fontsWithNoRequestInFlightAreGivenUpAfterTheGrace() {
        var s = MeasurementSession(options: .earliestStop)
        s.loadFinished(at: 0.2)
        s.updatePending(PendingWork(fonts: true, network: 0), at: 0.3)
        #expect(s.pending.fonts, "a font just asked for may not have its request yet")
        s.updatePending(PendingWork(fonts: true, network: 0), at: 0.3 + MeasurementSession.fontGrace)
        #expect(!s.pending.fonts && s.pending.isEmpty)
        #expect(s.fontsGivenUp?.reason == "fonts said to be loading with no request in flight")
        #expect(s.settleCheckAt == 0.8 + MeasureOptions().quiet)
    }

    /// With a request in flight fonts count, up to the patience, and no longer.
    @Test func fontsWithARequestInFlightCountUpToThePatience() {
        var s = MeasurementSession(options: .earliestStop)
        s.loadFinished(at: 0.2)
        s.updatePending(PendingWork(fonts: true, network: 1), at: 0.3)
        s.updatePending(PendingWork(fonts: true, network: 1), at: 4.0)
        #expect(s.pending.fonts && s.fontsGivenUp == nil)
        s.updatePending(PendingWork(fonts: true, network: 1), at: 0.3 + MeasurementSession.fontPatience)
        #expect(!s.pending.fonts)
        #expect(s.fontsGivenUp?.reason.hasPrefix("fonts still loading after") == true)
    }

    /// Fonts that finish start the count afresh.
    @Test func fontsThatFinishStartTheCountAfresh() {
        var s = MeasurementSession(options: .earliestStop)
        s.updatePending(PendingWork(fonts: true, network: 0), at: 0.3)
        s.updatePending(PendingWork(), at: 0.5)
        s.updatePending(PendingWork(fonts: true, network: 0), at: 0.9)
        #expect(s.pending.fonts && s.fontsGivenUp == nil)
    }
}

@Suite struct QuickRuleTests {
    @Test func quickRuleWaitsOnlyForFontsAndImagesAndNeedsNoQuietWindow() {
        var options = MeasureOptions()
        options.until = .quick
        var s = MeasurementSession(options: options)
        s.loadFinished(at: 0.2)
        s.record(HeightSample(t: 0.2, height: 800, source: .load),
                 pending: PendingWork(images: 1, requests: 2, timers: [3.0], animations: 1))
        #expect(s.settleCheckAt == nil, "an image is loading")
        s.updatePending(PendingWork(requests: 2, timers: [3.0], animations: 1), at: 0.4)
        #expect(s.settleCheckAt == 0.4, "timers, requests and animations are not waited for")
        s.record(HeightSample(t: 0.41, height: 900, source: .poll, cause: "settle-check"))
        #expect(s.isSettled(at: 0.41))
    }
}
