import Foundation
import Synchronization
import PageHeightBatch
import PageHeightCore
import PageHeightRegression
import PageHeightWebKit

/// `pageheight check [options] [suite.json]` (arguments without the word `check`): measure the
/// suite, compare with its baseline, write JUnit and the HTML report; or `--update` the baseline.
func runCheck(_ arguments: [String]) async -> Int32 {
    let parsed: CheckArguments
    switch parseSubcommand(CheckArguments.self, arguments, .check) {
    case .run(let arguments): parsed = arguments
    case .exit(let code): return code
    }
    do throws(CheckExit) {
        var (suite, baseline) = try loadSuite(parsed)
        let scratch = SnapshotScratch(wanted: parsed.report != nil || (parsed.update && suite.keepsSnapshots))
        defer { scratch.remove() }
        let stale = try prune(&baseline, of: suite, parsed)
        let cases = try selectCases(of: suite, parsed)
        // The engine's processes open the suite's pages' folders and write into the scratch folder only.
        let readable = Set(cases.flatMap { testCase in
            suite.page(named: testCase.page).map { (try? suite.source(for: $0).get())?.readableFolders ?? [] } ?? []
        })
        let files = FileJail.Access(readable: [], writable: scratch.path.map { [$0] } ?? [], pages: readable.sorted())
        guard let engine = startEngine(for: suite.options, sandbox: parsed.run.sandbox, files: files) else { return 70 }
        let started = Date()
        let results = await measure(cases, of: suite, parsed, engine: engine, scratch: scratch)
        let comparisons = results.map {
            CaseComparison($0.testCase, baseline: baseline?.entry(for: $0.testCase), current: $0.outcome, tolerance: suite.tolerance)
        }
        let summary = CheckSummary(comparisons)
        let software = softwareNote(baseline: baseline, now: engine.measuredWith, failed: !summary.passed)
        let elapsed = Date().timeIntervalSince(started)
        let wall = String(format: "%.1f", elapsed)
        try writeJUnit(results, comparisons, of: suite, parsed, wall: elapsed)
        try writeReport(results, comparisons, summary: summary, software: software, of: suite, parsed)
        let resources = ResourceWarnings(results, verbose: parsed.verbose)
        if parsed.update {
            return try update(baseline, with: results, comparisons, of: suite, parsed, engine: engine, resources: resources, wall: wall)
        }
        return printVerdict(summary, comparisons, software: software, resources: resources, stale: stale, baseline: baseline,
                            of: suite, parsed, wall: wall)
    } catch {
        return error.code
    }
}

/// How `check` ends early: the exit code, its message already printed.
private struct CheckExit: Error {
    var code: Int32
}

/// The suite with the command line's options put over it, and its baseline.
private func loadSuite(_ parsed: CheckArguments) throws(CheckExit) -> (RegressionSuite, Baseline?) {
    let suite: RegressionSuite
    let baseline: Baseline?
    do {
        suite = parsed.applied(to: try RegressionSuite.load(parsed.suite, allowingOutside: parsed.allowOutside))
        try suite.checkViewSize()
        baseline = try Baseline.load(suite.baselinePath)
    } catch let error as SuiteError {
        throw CheckExit(code: subcommandUsageError(error.description, usage: CheckArguments.checkUsage))
    } catch let error as UsageError {
        throw CheckExit(code: subcommandUsageError("\(parsed.suite): \(error.message)", usage: CheckArguments.checkUsage))
    } catch {
        throw CheckExit(code: subcommandUsageError("\(error)", usage: CheckArguments.checkUsage))
    }
    for page in suite.pages {
        if case .file(let path)? = page.template, !FileManager.default.fileExists(atPath: path) {
            throw CheckExit(code: subcommandUsageError("the template \(path) does not exist", usage: CheckArguments.checkUsage))
        }
    }
    return (suite, baseline)
}

/// Where the current run's snapshots go: the report inlines them, `--update` keeps them.
private struct SnapshotScratch {
    let path: String?

    init(wanted: Bool) {
        guard wanted else { path = nil; return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-check-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory
    }

    func snapshot(for testCase: RegressionCase) -> String? { path.map { $0 + "/" + testCase.fileStem + ".png" } }

    func remove() {
        if let path { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// The baseline entries whose page is no longer in the suite; with `--prune`, removed from the
/// baseline file (and their snapshots and timelines).
private func prune(_ baseline: inout Baseline?, of suite: RegressionSuite, _ parsed: CheckArguments) throws(CheckExit) -> [Baseline.Entry] {
    let stale = baseline?.staleEntries(for: suite) ?? []
    guard parsed.prune, let old = baseline, !stale.isEmpty else { return stale }
    baseline = old.removing(stale)
    do {
        try baseline!.write(to: suite.baselinePath)
    } catch {
        standardError("Error: \(error)")
        throw CheckExit(code: 73)
    }
    for entry in stale {
        try? FileManager.default.removeItem(atPath: suite.snapshotPath(entry.testCase))
        try? FileManager.default.removeItem(atPath: suite.timelinePath(entry.testCase))
    }
    StandardOutput.line("pruned \(stale.count) stale baseline entr\(stale.count == 1 ? "y" : "ies"): \(Baseline.staleText(stale))")
    return stale
}

/// The suite's cases that `--grep` selects (all without it).
private func selectCases(of suite: RegressionSuite, _ parsed: CheckArguments) throws(CheckExit) -> [RegressionCase] {
    let selection = parsed.grep.map(CaseSelection.init)
    let cases = suite.cases.filter { selection?.matches($0) ?? true }
    if cases.isEmpty, let grep = parsed.grep {
        throw CheckExit(code: subcommandUsageError("'--grep \(grep)' matches no case of \(parsed.suite)", usage: CheckArguments.checkUsage))
    }
    return cases
}

/// Measures every case, with progress on stderr (and what an interruption leaves).
private func measure(_ cases: [RegressionCase], of suite: RegressionSuite, _ parsed: CheckArguments,
                     engine: PageHeightEngine, scratch: SnapshotScratch) async -> [RegressionRunner.CaseResult] {
    let jobs = cases.map { testCase in
        RegressionRunner.Job(testCase: testCase, source: suite.source(for: suite.page(named: testCase.page)!),
                             options: suite.options(for: testCase), snapshot: scratch.snapshot(for: testCase))
    }
    let jobCount = parsed.jobs ?? BatchRunner.defaultJobs
    let suiteName = URL(fileURLWithPath: suite.path).lastPathComponent
    standardError("\(suiteName): measuring \(cases.count) case\(cases.count == 1 ? "" : "s")"
        + (suite.repeatCount > 1 ? ", \(suite.repeatCount) runs each in fresh views" : "") + ", \(min(jobCount, max(cases.count, 1))) at once")
    let verbose = parsed.verbose
    let stepLog: @Sendable (String) -> Void = { standardError($0) }
    let runner = RegressionRunner(engine: engine, jobs: jobCount, repeatCount: suite.repeatCount)
    let progressDisplay: RunProgress.Display = verbose ? .none : parsed.run.progressDisplay(terminal: isatty(STDERR_FILENO) == 1)
    let progress = RunProgress(total: cases.count, unit: "case", display: progressDisplay)
    let update = parsed.update
    Interruption.shared.onSignal {
        progress.finish()
        var lines = ["interrupted: " + progress.line()]
        if let notOK = progress.notOKText { lines.append(notOK) }
        lines.append(update ? "the baseline was not changed" : "nothing was compared; run the check again")
        StandardError.write("\n" + lines.joined(separator: "\n") + "\n")
    }
    let places = Dictionary(cases.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    let results = await runner.run(jobs, verbose: verbose ? stepLog : nil,
                                   started: { place, testCase in progress.started(place, name: testCase.name) }) { result in
        progress.finished(places[result.testCase] ?? -1, name: result.testCase.name, status: result.outcome.status)
        if verbose { standardError("measured \(result.testCase.name): \(result.outcome.formatted)") }
    }
    progress.finish()
    return results
}

/// `--junit FILE`: one testcase per case.
private func writeJUnit(_ results: [RegressionRunner.CaseResult], _ comparisons: [CaseComparison], of suite: RegressionSuite,
                        _ parsed: CheckArguments, wall: Double) throws(CheckExit) {
    guard let junit = parsed.junit else { return }
    var seconds: [RegressionCase: Double] = [:]
    for result in results { seconds[result.testCase] = result.seconds }
    do {
        try JUnitReport.xml(suiteName: URL(fileURLWithPath: suite.path).lastPathComponent, comparisons: comparisons, seconds: seconds,
                             wall: wall)
            .write(toFile: junit, atomically: true, encoding: .utf8)
    } catch {
        standardError("Error: writing the JUnit file \(junit): \(error.localizedDescription)")
        throw CheckExit(code: 73)
    }
}

/// `--report DIR`: the failing cases (every case with `--all`) with heights, timelines and snapshots.
private func writeReport(_ results: [RegressionRunner.CaseResult], _ comparisons: [CaseComparison], summary: CheckSummary,
                         software: String?, of suite: RegressionSuite, _ parsed: CheckArguments) throws(CheckExit) {
    guard let directory = parsed.report else { return }
    let shown = results.enumerated().filter { parsed.all || !comparisons[$0.offset].passed }
    try? FileManager.default.removeItem(atPath: directory + "/fullSize")
    try? FileManager.default.removeItem(atPath: directory + "/thumbnails")
    let failed = comparisons.filter { !$0.passed }.count
    // Decoding, comparing and scaling snapshots is CPU work: one case per core at a time.
    let made = Mutex<[HTMLReport.Entry?]>(Array(repeating: nil, count: shown.count))
    DispatchQueue.concurrentPerform(iterations: shown.count) { place in
        let (index, result) = shown[place]
        var entry = HTMLReport.Entry(
            comparison: comparisons[index], samples: result.report?.samples ?? [], baselineSamples: suite.baselineTimeline(result.testCase),
            baselinePNG: suite.snapshotPath(result.testCase), currentPNG: result.snapshot,
            currentSnapshotError: result.report?.snapshotError, reportDirectory: directory,
            thumbnailWidth: HTMLReport.Entry.thumbnailWidth(passed: comparisons[index].passed, failedCases: failed))
        entry.steps = result.report?.steps ?? []
        made.withLock { $0[place] = entry }
    }
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let entries = HTMLReport.linkingThumbnails(made.withLock { $0.compactMap { $0 } }, in: directory)
    let notes = [parsed.update ? "Compared with the baseline as it was before --update." : nil, software].compactMap { $0 }
    let html = HTMLReport.html(suiteName: URL(fileURLWithPath: suite.path).lastPathComponent, summary: summary.text, entries: entries,
                               note: notes.isEmpty ? nil : notes.joined(separator: " "), suiteArgument: parsed.suite)
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try html.write(toFile: directory + "/index.html", atomically: true, encoding: .utf8)
    } catch {
        standardError("Error: writing the report \(directory)/index.html: \(error.localizedDescription)")
        throw CheckExit(code: 73)
    }
    standardError("report: \(directory)/index.html")
}

/// A resource that failed to load changes the page silently: said for every case. What the
/// suite's own offline setting stopped is expected: counted, listed with `--verbose`.
private struct ResourceWarnings {
    var lines: [String] = []
    var offlineStopped = 0

    init(_ results: [RegressionRunner.CaseResult], verbose: Bool) {
        for result in results {
            guard let report = result.report, let failed = report.failedResources else { continue }
            let stopped = failed.filter(\.stoppedByOffline)
            let others = failed.filter { !$0.stoppedByOffline }
            let total = (report.failedResourcesTotal ?? failed.count) - stopped.count
            if !stopped.isEmpty {
                offlineStopped += 1
                if verbose, let warning = FailedResource.warning(stopped, total: stopped.count) {
                    standardError("note: \(result.testCase.name): \(warning)")
                }
            }
            if let warning = FailedResource.warning(others, total: total) { lines.append("\(result.testCase.name): \(warning)") }
        }
    }

    /// The summary line's note on the requests the offline setting stopped.
    var offlineNote: String {
        offlineStopped == 0 ? ""
            : "; \(offlineStopped) case\(offlineStopped == 1 ? "" : "s") had requests the offline setting stopped (--verbose lists them)"
    }
}

/// `--update`: writes the measured cases into the baseline (and their snapshots and timelines),
/// prints what changed; a case that could not be measured is not recorded unless accepted.
private func update(_ baseline: Baseline?, with results: [RegressionRunner.CaseResult], _ comparisons: [CaseComparison],
                    of suite: RegressionSuite, _ parsed: CheckArguments, engine: PageHeightEngine, resources: ResourceWarnings,
                    wall: String) throws(CheckExit) -> Int32 {
    // A page that could not be measured is a broken case, not a baseline: recorded, a typo in a
    // path would keep CI green for good. A runaway has no height of its own to regress against.
    let broken: Set<PageStatus> = [.loadError, .timeout, .crashed, .runaway]
    let refused = results.filter { broken.contains($0.outcome.status) && !parsed.acceptedStatuses.contains($0.outcome.status) }
    let kept = results.filter { result in !refused.contains { $0.testCase == result.testCase } }
    let measured = kept.map { Baseline.Entry($0.testCase, status: $0.outcome.status, height: $0.outcome.height, steps: $0.outcome.steps) }
    let update = BaselineUpdate(old: baseline, measured: measured, measuredWith: engine.measuredWith)
    do {
        try update.baseline.write(to: suite.baselinePath)
    } catch {
        standardError("Error: \(error)")
        throw CheckExit(code: 73)
    }
    if suite.keepsSnapshots {
        try? FileManager.default.createDirectory(atPath: suite.snapshotDirectory, withIntermediateDirectories: true)
        for result in kept {
            let target = suite.snapshotPath(result.testCase)
            try? FileManager.default.removeItem(atPath: target)
            if let snapshot = result.snapshot { try? FileManager.default.copyItem(atPath: snapshot, toPath: target) }
            if let samples = result.report?.samples { suite.recordTimeline(samples, for: result.testCase) }
        }
    }
    for line in update.lines { StandardOutput.line(line) }
    if let warning = update.mixedSoftwareWarning { StandardOutput.line(warning) }
    for warning in resources.lines { StandardOutput.line("warning: " + warning) }
    for comparison in comparisons where comparison.current.spread?.nondeterministic == true {
        StandardOutput.line("! \(comparison.testCase.name): nondeterministic: \(comparison.current.spread!.description)")
    }
    for result in refused {
        let why = result.outcome.status == .runaway
            ? "a runaway has no height of its own to regress against: fix the page, measure it with --no-fit, or"
            : "fix the page, or"
        StandardOutput.line("! \(result.testCase.name): \(result.outcome.formatted): not recorded "
            + "(\(why) --accept-status \(result.outcome.status.rawValue) to record it)")
    }
    StandardOutput.line(update.summary(path: suite.baselinePath) + (refused.isEmpty ? "" : ", \(refused.count) not recorded") + " (\(wall) s)"
        + resources.offlineNote)
    return refused.isEmpty ? 0 : 1
}

/// The check's verdict on stdout: the failures, the warnings, the summary, stale entries and a
/// missing baseline.
private func printVerdict(_ summary: CheckSummary, _ comparisons: [CaseComparison], software: String?, resources: ResourceWarnings,
                          stale: [Baseline.Entry], baseline: Baseline?, of suite: RegressionSuite, _ parsed: CheckArguments,
                          wall: String) -> Int32 {
    if let software { StandardOutput.line(software) }
    for failure in summary.failures { StandardOutput.line("FAIL " + failure.message) }
    for warning in resources.lines { StandardOutput.line("warning: " + warning) }
    if parsed.verbose { for comparison in comparisons where comparison.passed { standardError("ok   " + comparison.message) } }
    StandardOutput.line(summary.text + " (\(wall) s)" + resources.offlineNote)
    if !stale.isEmpty && !parsed.prune {
        StandardOutput.line("stale baseline entries (their page is no longer in the suite; 'pageheight check --prune' removes them): "
            + Baseline.staleText(stale))
    }
    if baseline == nil {
        StandardOutput.line("no baseline at \(suite.baselinePath): run 'pageheight check --update \(parsed.suite)' to record one")
    }
    return summary.passed ? 0 : 1
}

/// Above the failures: what differs between the software the baseline was measured with and
/// this run's (always said), or that the baseline does not record it (said when a case failed).
func softwareNote(baseline: Baseline?, now: MeasuredWith, failed: Bool) -> String? {
    guard let baseline else { return nil }
    guard let then = baseline.measuredWith else {
        return failed ? "note: the baseline does not record what it was measured with ('pageheight check --update' records it)" : nil
    }
    let differences = now.differences(from: then)
    if differences.isEmpty { return nil }
    return "note: measured with other software than the baseline: " + differences.joined(separator: ", ")
        + (failed ? " (a height may have moved for that reason)" : "")
}

func standardError(_ line: String) {
    StandardError.write(line + "\n")
}
