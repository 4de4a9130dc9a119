import Foundation
import PageHeightCore

/// Where a step (`--then`) is applied: the view, the page or the settings changed as the step
/// says, then the page measured again until its next verdict under the same rules as after the
/// load. Applying and measuring are one phase under one deadline (`--timeout` from the step's
/// start): a page that spins while a step is applied ends as a timeout, not a hang.
@GLibActor
final class StepRunner {
    private let page: MeasuredPage
    private let fitting: ViewFitting
    private unowned let driver: MeasurementDriver
    /// The text zoom a step set (1: none).
    private var textZoom = 1.0
    /// The settings as the step under way changes them.
    private var stepOptions = MeasureOptions()
    /// Why the step under way could not be applied.
    private var failure: String?
    private var appliedNote: String?
    /// When the step under way started measuring (page time: after a `wait` step's pause).
    private var measuringFrom = 0.0

    init(page: MeasuredPage, fitting: ViewFitting, driver: MeasurementDriver) {
        (self.page, self.fitting, self.driver) = (page, fitting, driver)
    }

    private static let oneZoom = "a text zoom and a page zoom other than 1 cannot both hold (WebKitGTK zooms either the page or its text)"
    /// The page shows a step's change (its viewport, its color scheme, its click) within this
    /// many seconds, or the step goes on without.
    private static let changeWithin = 0.5
    /// The page's next rendering update comes within this many seconds, or is not waited for.
    private static let renderingWithin = 0.1

    /// Applies each step in turn and measures the page again until its verdict. A step runs only
    /// from a page whose verdict is `ok`: once one does not settle (or cannot be applied) the rest
    /// are skipped. Returns the steps' results and the last end.
    func run(_ steps: [PageStep], after reason: EndReason, base: PageReport) async -> ([StepReport], EndReason) {
        var reports: [StepReport] = []
        var last = reason
        var shown = StepStrategyReplay.Shown(observe: base.strategies.observe.height, schedule: base.strategies.schedule.height,
                                             scheduleAgain: base.strategies.schedule.height)
        // From a page that has a height of its own: settled, or quiet at the timeout (`ok` either way).
        var stopped = base.status == .ok ? nil : "not applied: the page ended \(base.status.rawValue) before its first step"
        for (offset, step) in steps.enumerated() {
            if let stopped {
                reports.append(StepReport(step: "\(step)", status: .skipped, message: stopped))
                continue
            }
            let (report, end) = await measure(step, index: offset + 1, before: shown)
            reports.append(report)
            last = end
            if let strategies = report.strategies {
                shown = .init(observe: strategies.observe.height, schedule: strategies.schedule.height,
                              scheduleAgain: strategies.scheduleAgain.height)
            }
            if report.status != .ok { stopped = "not applied: step \(offset + 1) (\(step)) ended \(report.status.rawValue)" }
        }
        return (reports, last)
    }

    /// Applies one step and measures until the page's next verdict.
    private func measure(_ step: PageStep, index: Int, before: StepStrategyReplay.Shown) async -> (StepReport, EndReason) {
        var timings = StepTimings()
        let appliedAt = page.now
        let realStart = page.realNow
        timings.appliedAt = appliedAt
        let navigations = driver.stoppedNavigationsTotal
        page.note("step \(index): \(step)")
        stepOptions = page.session.options
        (failure, appliedNote) = (nil, nil)
        measuringFrom = appliedAt
        let (end, endedAt) = await driver.phase(from: GLibClock.now) {
            try await self.apply(step)
            if self.failure != nil { return .settled }
            self.measuringFrom = try await self.startMeasuring(after: step, index: index)
            return try await self.driver.settle()
        }
        let from = measuringFrom
        if let failure {
            page.note("step \(index) failed: \(failure)")
            return (StepReport(step: "\(step)", status: .failed, message: "\(step): \(failure)", timings: timings), .settled)
        }
        page.note("step \(index) ended: \(end)")
        timings.total = endedAt
        timings.settledAt = end == .settled ? endedAt : nil
        timings.realSeconds = page.virtualClock ? page.realNow - realStart : nil

        var builder = ReportBuilder(url: page.source.url, session: page.session, end: end, endedAt: endedAt)
        builder.verdictDue = page.session.settleCheckAt
        let (pageStatus, verdictMessage, height) = builder.verdict()
        let status: StepStatus = switch pageStatus {
        case .ok: .ok
        case .unstable: .unstable
        case .timeout: .timeout
        case .runaway: .runaway
        case .crashed: .crashed
        case .cancelled: .cancelled
        case .fallback, .loadError: .failed
        }
        var notes = [verdictMessage, appliedNote].compactMap { $0 }
        if driver.stoppedNavigationsTotal > navigations, let target = driver.stoppedNavigations.last {
            notes.append("the page tried to navigate to \(target.prefix(200)); stopped, measured as it was")
        }
        let samples = page.session.samples.filter { $0.step == index }
        let replay = StepStrategyReplay(schedule: page.session.options.schedule, threshold: page.session.options.threshold)
        let strategies = replay.replay(samples, appliedAt: from, before: before, height: height, settled: end == .settled)
        return (StepReport(step: "\(step)", status: status, message: notes.isEmpty ? nil : notes.joined(separator: "; "),
                           height: height, timings: timings, strategies: strategies), end)
    }

    /// After the change: the page's next rendering, fit mode's start again where the content
    /// became shorter than the view, and the step's first reading. Returns when the step's
    /// measuring starts (after a `wait` step's pause).
    private func startMeasuring(after step: PageStep, index: Int) async throws -> Double {
        // The page's next rendering update dispatches what the change causes (resize, scroll and
        // media-query events): it comes before the first reading.
        try await nextRendering()
        if stepOptions.fit, !step.isScroll, let value = try await page.silentRead(), value <= page.session.viewHeight + 0.5 {
            // Content that became shorter than the fitted view may read as tall as the view (a
            // document without a doctype, a body of height 100%): fit mode measures it from the
            // view a load starts with, as a fresh load does, and grows the view back to it.
            try await fitting.resizeView(to: Double(stepOptions.height))
            _ = page.session.resized(to: Double(stepOptions.height), at: page.now, contentHeight: nil)
            try await nextRendering()
        }
        var from = page.now
        if case .wait(let seconds) = step { from += seconds }
        page.session.stepStarted(index, at: from, options: stepOptions)
        driver.startPhase()
        try await page.read(.poll, cause: "step")
        return from
    }

    /// Changes the view, the page or the settings as `step` says, and waits until the page has
    /// the change (its viewport, its color scheme, its click); `stepOptions` takes the new
    /// settings, `failure` why it could not be applied.
    private func apply(_ step: PageStep) async throws {
        let view = page.view
        switch step {
        case .width(let width):
            stepOptions.width = width
            view.setViewportWidth(width, height: page.session.viewHeight)
            try await fitting.resizeView(to: page.session.viewHeight, width: width)
        case .height(let height):
            stepOptions.height = height
            try await fitting.resizeView(to: Double(height))
            _ = page.session.resized(to: Double(height), at: page.now, contentHeight: nil)
        case .size(let width, let height):
            (stepOptions.width, stepOptions.height) = (width, height)
            view.setViewportWidth(width, height: Double(height))
            try await fitting.resizeView(to: Double(height), width: width)
            _ = page.session.resized(to: Double(height), at: page.now, contentHeight: nil)
        case .fontSize(let px):
            stepOptions.fontSize = px
            view.setFontSize(px)
        case .textZoom(let factor):
            // A suite's zooms are not checked against its steps when it is read.
            if stepOptions.zoom != 1, factor != 1 { return failure = Self.oneZoom }
            textZoom = factor
            view.setTextZoom(factor, height: page.session.viewHeight)
            try await fitting.resizeView(to: page.session.viewHeight, width: stepOptions.width)
        case .zoom(let factor):
            if textZoom != 1, factor != 1 { return failure = Self.oneZoom }
            stepOptions.zoom = factor
            // The view stays within the tallest surface fit mode sets, in device px at the new zoom.
            let height = min(page.session.viewHeight, (MeasurementSession.maxViewDevicePixels / factor).rounded(.down))
            view.setPageZoom(factor, height: height)
            try await fitting.resizeView(to: height, width: stepOptions.width)
            _ = page.session.resized(to: height, at: page.now, contentHeight: nil)
        case .colorScheme(let scheme):
            stepOptions.colorScheme = scheme == .light ? nil : scheme
            await ColorSchemeGate.shared.change(to: scheme)
            _ = try await page.poll(ProbeScript.dark, every: 0.005, for: Self.changeWithin) { $0 == (scheme == .dark) }
        case .click(let selector):
            try await click(selector)
        case .scroll(let target):
            let y: Double? = if case .y(let y) = target { y } else { nil }
            if let reached = try await page.ask(ProbeScript.scroll(to: y)) { page.note("scrolled to \(reached)") }
        case .wait:
            break
        }
    }

    /// Waits for the page's next rendering update (`renderingWithin` at most).
    private func nextRendering() async throws {
        guard let mark = try await page.ask(ProbeScript.renderingMark) else { return }
        _ = try await page.poll(ProbeScript.rendered(since: mark), every: 0.002, for: Self.renderingWithin) { $0 }
    }

    /// Taps the first element `selector` matches: a pointer click at its centre, once the page
    /// tells where that is; waits until the page saw the click (`changeWithin` at most).
    private func click(_ selector: String) async throws {
        guard let target = try await page.ask(ProbeScript.clickTarget(selector)) else {
            return failure = "the page did not answer where the element is"
        }
        if let error = target.error { return failure = error }
        guard let x = target.x, let y = target.y else { return failure = "the page did not answer where the element is" }
        page.note("click at \(Pixels.format(x)), \(Pixels.format(y))" + (target.covered.map { " (on \($0), which covers the element)" } ?? ""))
        page.view.click(x: x, y: y)
        guard try await page.poll(ProbeScript.clickSeen, every: 0.002, for: Self.changeWithin, until: { $0 }) else {
            return appliedNote = "the page saw no click within \(Self.changeWithin) s"
        }
        appliedNote = target.covered.map { "the tap landed on \($0), which covers the element" }
    }
}
