/// The one-line human answer for a page, e.g.
/// `1234 px (settled at 0.82 s; the 5.3 s schedule would show 1198 px)`.
public enum SummaryLine {
    public static func format(_ report: PageReport) -> String {
        var line = body(report)
        for step in report.steps ?? [] { line += "; " + after(step, threshold: report.options.threshold) }
        if let failed = report.failedResources,
           let warning = FailedResource.warning(failed, total: report.failedResourcesTotal ?? failed.count) {
            line += "; warning: " + warning
        }
        if let error = report.snapshotError {
            // Cairo draws at most 32767 px in one piece; WebKit then says only that it failed.
            let tall = (report.metrics?.max ?? report.height ?? 0) * report.options.zoom > 32767
            line += "; error: the snapshot was not written: " + error
                + (tall ? " (the page is taller than 32767 px, the most a snapshot can be drawn in one piece)" : "")
        }
        if report.quirksMode == true, report.options.metric == .bodyScroll {
            line += "; warning: quirks mode (no <!DOCTYPE html>): body.scrollHeight is at least the view's height"
        }
        if let disagreement = report.metricsDisagree, report.status == .ok { line += "; " + disagreement }
        return line
    }

    /// ` of page time` on the virtual clock, whose seconds are the page's, not the wall clock's
    /// (the report's `timings.realTotal` has those); nothing on the real clock, where they are one.
    static func pageTime(_ report: PageReport) -> String {
        report.timings.realTotal == nil ? "" : " of page time"
    }

    private static func body(_ report: PageReport) -> String {
        let options = report.options
        let schedule = "the \(Seconds.format(options.schedule.duration)) schedule"
        var head: String
        if let height = report.height {
            head = (report.status == .fallback ? "~" : "") + Pixels.format(height)
        } else {
            head = "no height"
        }
        if (options.header != 0 || options.footer != 0), let total = report.total {
            head += " (total \(Pixels.format(total)) with header \(Pixels.format(options.header)) and footer \(Pixels.format(options.footer)))"
        }
        switch report.status {
        case .ok where options.until == .quick:
            // The quick rule ran no schedule: say what it measured, nothing about polls it never took.
            let at = report.timings.settledAt.map { "measured at \(Seconds.format($0))\(pageTime(report))" } ?? "quiet at the timeout"
            return head + " (quick rule: \(at), once the load finished and fonts and images were done)"
        case .ok:
            var details: [String] = []
            if let settled = report.timings.settledAt {
                details.append("settled at \(Seconds.format(settled))\(pageTime(report))")
            } else if let message = report.message, message.hasPrefix(ReportBuilder.navigationLoopNote) {
                details.append(message)
            } else {
                details.append("quiet at the timeout")
            }
            if let shown = report.strategies.schedule.height, report.scheduleMissed {
                details.append("\(schedule) would show \(Pixels.format(shown))")
            } else if !report.strategies.schedule.complete {
                details.append("\(schedule) polls past what was recorded")
            } else if options.until == .quiet, let settled = report.timings.settledAt, let finished = report.timings.finished,
                      settled < finished + options.schedule.duration {
                // The earliest stop took the schedule's later polls to read the settled value.
                details.append("stopped before \(schedule)'s end, which shows the same if nothing changes later")
            } else {
                details.append("\(schedule) shows the same")
            }
            if let once = report.strategies.once.height, abs(once - (report.height ?? once)) > options.threshold {
                details.append("one measurement at load would show \(Pixels.format(once))")
            }
            return head + " (" + details.joined(separator: "; ") + ")"
        default:
            return "\(report.status.rawValue): \(head)" + (report.message.map { " (\($0))" } ?? "")
        }
    }

    /// A step's part of the line, e.g. `after width=844: 980 px (observe follows; measured after
    /// load only, the app would keep 1300 px: 320 px of blank space; re-running the schedule
    /// shows the same)`.
    public static func after(_ step: StepReport, threshold: Double) -> String {
        let head = "after \(step.step): "
        let height = step.height.map { Pixels.format($0) } ?? "no height"
        guard step.status == .ok, let strategies = step.strategies else {
            return head + "\(step.status.rawValue)" + (step.status == .failed || step.status == .skipped ? "" : " \(height)")
                + (step.message.map { " (\($0))" } ?? "")
        }
        func shows(_ outcome: StrategyOutcome, _ same: String, _ differs: String) -> String {
            guard let error = outcome.error, abs(error) > threshold, let shown = outcome.height else { return same }
            let cost = error > 0 ? "\(Pixels.format(error)) of blank space" : "\(Pixels.format(-error)) clipped"
            return "\(differs) \(Pixels.format(shown)): \(cost)"
        }
        let parts = [
            shows(strategies.observe, "observe follows", "observe would show"),
            shows(strategies.schedule, "measured after load only, the app shows the same",
                  "measured after load only, the app would keep"),
            shows(strategies.scheduleAgain, "re-running the schedule shows the same", "re-running the schedule would show"),
        ]
        return head + height + " (" + (parts + (step.message.map { [$0] } ?? [])).joined(separator: "; ") + ")"
    }
}
