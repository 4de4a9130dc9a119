import Foundation

/// The report as JSON: pretty for one page, one compact line for JSON Lines.
public enum ReportEncoding {
    public static func prettyJSON(_ report: PageReport) -> String {
        encode(report, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    public static func jsonLine(_ report: PageReport) -> String {
        encode(report, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// A strategy's outcome as a report writes it: jump times to milliseconds, heights and the
    /// error to hundredths of a px.
    public static func rounded(_ outcome: StrategyOutcome) -> StrategyOutcome {
        var copy = outcome
        copy.jumps = outcome.jumps.map { StrategyOutcome.Jump(t: ms($0.t), height: px($0.height)) }
        copy.height = outcome.height.map(px)
        copy.error = outcome.error.map(px)
        return copy
    }

    private static func encode(_ report: PageReport, formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(RoundedReport(report)) else { return "{}" }
        return PageText.printableJSON(String(decoding: data, as: UTF8.self))
    }
}

/// Times in the JSON are rounded to milliseconds, heights to hundredths of a px.
private struct RoundedReport: Encodable {
    var report: PageReport
    init(_ report: PageReport) {
        var copy = report
        copy.samples = report.samples.map { sample in
            var s = sample
            s.t = ms(s.t)
            s.height = s.height.map(px)
            return s
        }
        for keyPath in [\Strategies.once, \Strategies.schedule, \Strategies.observe] {
            copy.strategies[keyPath: keyPath] = ReportEncoding.rounded(report.strategies[keyPath: keyPath])
        }
        copy.timings.committed = report.timings.committed.map(ms)
        copy.timings.finished = report.timings.finished.map(ms)
        copy.timings.firstMeasurement = report.timings.firstMeasurement.map(ms)
        copy.timings.settledAt = report.timings.settledAt.map(ms)
        copy.timings.total = ms(report.timings.total)
        copy.pendingAtEnd?.timers = report.pendingAtEnd?.timers.map(ms) ?? []
        copy.engine?.loadEventEnd = report.engine?.loadEventEnd.map(ms)
        copy.engine?.loadLayout = report.engine?.loadLayout.map(ms)
        copy.engine?.loadWorkEnd = report.engine?.loadWorkEnd.map(ms)
        copy.engine?.layout = ms(report.engine?.layout ?? 0)
        copy.overhead = report.overhead.map { ($0 * 1_000_000).rounded() / 1_000_000 }
        copy.fitSteps = report.fitSteps?.map { RunawayDetector.Step(view: $0.view, content: $0.content, t: ms($0.t)) }
        self.report = copy
    }

    func encode(to encoder: Encoder) throws { try report.encode(to: encoder) }
}

private func ms(_ t: Double) -> Double { (t * 1000).rounded() / 1000 }
private func px(_ h: Double) -> Double { (h * 100).rounded() / 100 }
