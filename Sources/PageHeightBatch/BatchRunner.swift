import Foundation
import PageHeightCore
import PageHeightWebKit

/// Measures a list of pages with `jobs` views at once in one engine, telling each page's start and
/// report as they come.
///
/// One slow, hung or crashing page holds back only its own job: every page has its own
/// timeout, and a page whose web process dies is `crashed` (tried again `retries` times in a
/// fresh view) while the other jobs go on. A crash of the engine's own process is the
/// supervisor's to answer (`EngineSupervisor`).
public final class BatchRunner: Sendable {
    public let engine: PageHeightEngine
    public let options: MeasureOptions
    public let jobs: Int
    public let retries: Int
    /// The reader template every entry (an article fragment) goes into (`--template`).
    public let template: ReaderTemplate?
    private let steps: (@Sendable (Int, String) -> Void)?

    /// - Parameter steps: each page's timestamped steps (`--verbose`), with its index in the list.
    public init(engine: PageHeightEngine, options: MeasureOptions, jobs: Int, retries: Int, template: ReaderTemplate? = nil,
                steps: (@Sendable (Int, String) -> Void)? = nil) {
        self.engine = engine
        self.options = options
        self.jobs = max(1, jobs)
        self.retries = max(0, retries)
        (self.template, self.steps) = (template, steps)
    }

    /// A default for `--jobs`: two per core (a page spends most of its time waiting: the quiet
    /// window, the network), at most one per 400 MB of physical memory, at least one.
    public static var defaultJobs: Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memoryJobs = Int(ProcessInfo.processInfo.physicalMemory / (400 << 20))
        return max(1, min(cores * 2, memoryJobs))
    }

    /// Measures `entries` (skipping none: pass only what is left to do): `started` as each page
    /// begins, `measured` with its report (its `index` set) once it is done; returns when all are.
    /// `alone`: one page at a time, the next only once the one before is reported.
    /// `stopStarting`: asked before each page; once true, the pages after it are left unmeasured.
    public func run(_ entries: [PageList.Entry], alone: Bool = false, stopStarting: @escaping @Sendable () -> Bool = { false },
                    started: @escaping @Sendable (PageList.Entry) -> Void,
                    measured: @escaping @Sendable (PageList.Entry, PageReport) async -> Void) async {
        await MeasuringJobs.run(entries, jobs: alone ? 1 : jobs, stopStarting: stopStarting) { [self] entry, upcoming, verdictReached in
            started(entry)
            let report = await measure(entry, upcoming: upcoming, verdictReached: alone ? nil : verdictReached)
            await measured(entry, report)
        }
    }

    /// Measures `entries` in this process and writes their results into `results`; returns the
    /// summary.
    public func run(_ entries: [PageList.Entry], into results: BatchResults) async -> BatchSummary {
        await run(entries, started: { results.started($0.index, name: $0.page) }, measured: { entry, report in
            await results.record(ReportEncoding.jsonLine(report), index: entry.index, name: entry.page, status: report.status,
                                 seconds: report.timings.wallSeconds, waitedForNetwork: report.waitedForNetwork)
        })
        return await results.finish()
    }

    private func measure(_ entry: PageList.Entry, upcoming: PageList.Entry?,
                         verdictReached: (@Sendable () -> Void)?) async -> PageReport {
        var report: PageReport
        do {
            var source = try PageSource.parse(entry.page, standardInput: { nil })
            if let template {
                guard case .file(let path) = source else { throw PageSourceFailure("a template takes a file, not a URL: \(entry.page)") }
                source = try template.page(forFragmentAt: path)
            }
            let steps = self.steps, index = entry.index
            let log: @Sendable (String) -> Void = { line in steps?(index, line) }
            // The next entry's view is made ready meanwhile. Template pages share the template's
            // folder, and so one content filter: nothing to announce.
            let next = template == nil ? upcoming.flatMap { try? PageSource.parse($0.page, standardInput: { nil }) } : nil
            // A page that crashed is measured again: its job is freed only after its last attempt.
            report = await engine.measure(source, options: options, upcoming: next, log: log,
                                          verdictReached: retries == 0 ? verdictReached : nil)
            var attempt = 0
            while report.status == .crashed, attempt < retries {
                attempt += 1
                report = await engine.measure(source, options: options, log: log)
                report.message = (report.message.map { $0 + "; " } ?? "") + "attempt \(attempt + 1) of \(retries + 1)"
            }
        } catch {
            report = ReportBuilder.inputError(url: entry.page, message: "\(error)", options: options)
        }
        if template != nil, case .file(let path)? = try? PageSource.parse(entry.page, standardInput: { nil }),
           let warning = ReaderTemplate.wholeDocumentWarning(path) {
            report.message = (report.message.map { $0 + "; " } ?? "") + "warning: " + warning
        }
        report.index = entry.index
        if let template, report.template == nil { report.template = template.name }
        return report
    }
}

/// Where a batch's results go, in whichever process measured them: each line into the log as soon
/// as it comes, the progress told, the summary counted.
public final class BatchResults: Sendable {
    private let log: ResultLog
    private let progress: RunProgress?
    private let writeFailed: @Sendable (OutputError, BatchSummary) -> Never
    private let summary: SummaryCollector
    private let started = Date()

    /// - Parameter writeFailed: called, once, when a result cannot be written, with the summary of
    ///   the results written before it; it must end the process (the pages in flight are lost,
    ///   and the output says which are done).
    public init(log: ResultLog, total: Int, progress: RunProgress?,
                writeFailed: @escaping @Sendable (OutputError, BatchSummary) -> Never) {
        (self.log, self.progress, self.writeFailed) = (log, progress, writeFailed)
        summary = SummaryCollector(total: total)
    }

    /// The page `index` (named `name`) began.
    public func started(_ index: Int, name: String) {
        progress?.started(index, name: name)
    }

    /// Writes the result line of page `index` (with one write: see `ResultLog`), then counts it.
    /// - Parameters:
    ///   - seconds: the page's wall-clock seconds.
    ///   - waitedForNetwork: the page timed out waiting only for the network, which never answered.
    public func record(_ line: String, index: Int, name: String, status: PageStatus, seconds: Double,
                       waitedForNetwork: Bool = false) async {
        do throws(OutputError) {
            try log.write(line)
        } catch {
            writeFailed(error, await summary.result(wall: Date().timeIntervalSince(started)))
        }
        await summary.add(status: status, seconds: seconds, name: name, waitedForNetwork: waitedForNetwork)
        progress?.finished(index, name: name, status: status)
    }

    /// Ends the progress display; the summary of what was recorded.
    public func finish() async -> BatchSummary {
        progress?.finish()
        return await summary.result(wall: Date().timeIntervalSince(started))
    }
}

/// What a batch did: counts per status and seconds per page.
public struct BatchSummary: Sendable, Equatable {
    public var total: Int
    public var counts: [PageStatus: Int]
    /// Wall-clock seconds per page (each page's `Timings.wallSeconds`), sorted.
    public var seconds: [Double]
    public var wall: Double
    /// The first pages not ok, as `name (status)`.
    public var notOKNames: [String] = []
    /// How many pages timed out waiting only for requests to the network, none of which answered.
    public var waitedForNetwork = 0

    /// Of `done`, the results a resumed run found already in its file (`including`).
    public var earlier = 0

    public var done: Int { counts.values.reduce(0, +) }
    public var notOK: Int { done - (counts[.ok] ?? 0) }

    /// The summary of the whole file a resumed run completes: `earlier` (its results from before,
    /// each named as `names` has its index) counted with this run's, out of `total` pages.
    public func including(_ earlier: [ResumeCheck.Recorded], names: [Int: String], total: Int) -> BatchSummary {
        var whole = self
        whole.total = total
        whole.earlier = earlier.count
        var earlierNotOK: [String] = []
        for result in earlier.sorted(by: { $0.index < $1.index }) {
            let status = result.status ?? .loadError // a line without a status
            whole.counts[status, default: 0] += 1
            if status != .ok, earlierNotOK.count < RunProgress.namedNotOK {
                earlierNotOK.append("\(names[result.index] ?? result.url) (\(status.rawValue))")
            }
            if let seconds = result.seconds { whole.seconds.append(seconds) }
        }
        whole.seconds.sort()
        whole.notOKNames = Array((earlierNotOK + notOKNames).prefix(RunProgress.namedNotOK))
        return whole
    }

    public func percentile(_ p: Double) -> Double? {
        guard !seconds.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(seconds.count - 1)).rounded())
        return seconds[min(max(rank, 0), seconds.count - 1)]
    }

    /// The summary lines printed on stderr at the end.
    public var text: String {
        let statuses = PageStatus.allCases.compactMap { status in counts[status].map { "\(status.rawValue) \($0)" } }
        let rate = wall > 0 ? Double(done - earlier) / wall : 0
        let resumed = earlier > 0 ? " (\(earlier) from before this run, \(done - earlier) measured now)" : ""
        var lines = ["\(done) of \(total) pages\(resumed): " + (statuses.isEmpty ? "none" : statuses.joined(separator: ", "))]
        if let p50 = percentile(50), let p95 = percentile(95) {
            lines.append(String(format: "seconds per page (wall clock): p50 %.2f, p95 %.2f; the whole run %.1f s, %.2f pages/s", p50, p95, wall, rate))
        }
        if notOK > 0 {
            let more = notOK > notOKNames.count ? ["and \(notOK - notOKNames.count) more"] : []
            lines.append("not ok: " + (notOKNames + more).joined(separator: ", "))
        }
        if waitedForNetwork > 0 {
            lines.append("\(waitedForNetwork) page\(waitedForNetwork == 1 ? "" : "s") timed out waiting only for requests to the network, "
                + "none of which answered: without a network, measure with --offline")
        }
        return lines.joined(separator: "\n")
    }
}

private actor SummaryCollector {
    private var summary: BatchSummary
    init(total: Int) { summary = BatchSummary(total: total, counts: [:], seconds: [], wall: 0) }

    func add(status: PageStatus, seconds t: Double, name: String, waitedForNetwork: Bool) {
        summary.counts[status, default: 0] += 1
        if waitedForNetwork { summary.waitedForNetwork += 1 }
        if status != .ok, summary.notOKNames.count < RunProgress.namedNotOK {
            summary.notOKNames.append("\(name) (\(status.rawValue))")
        }
        let position = summary.seconds.firstIndex(where: { $0 > t }) ?? summary.seconds.count
        summary.seconds.insert(t, at: position)
    }

    func result(wall: Double) -> BatchSummary {
        summary.wall = wall
        return summary
    }
}

