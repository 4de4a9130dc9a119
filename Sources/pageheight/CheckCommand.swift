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
    let suite: RegressionSuite
    var baseline: Baseline?
    do {
        suite = parsed.applied(to: try RegressionSuite.load(parsed.suite))
        baseline = try Baseline.load(suite.baselinePath)
    } catch let error as SuiteError {
        return subcommandUsageError(error.description, usage: CheckArguments.checkUsage)
    } catch {
        return subcommandUsageError("\(error)", usage: CheckArguments.checkUsage)
    }
    for page in suite.pages {
        if case .file(let path)? = page.template, !FileManager.default.fileExists(atPath: path) {
            return subcommandUsageError("the template \(path) does not exist", usage: CheckArguments.checkUsage)
        }
    }
    guard let engine = startEngine(for: suite.options) else { return 70 }

    // Current snapshots go to a scratch directory: the report inlines them, --update keeps them.
    let wantsSnapshots = parsed.report != nil || (parsed.update && suite.keepsSnapshots)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-check-\(getpid())").path
    if wantsSnapshots { try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true) }
    defer { if wantsSnapshots { try? FileManager.default.removeItem(atPath: scratch) } }

    let stale = baseline?.staleEntries(for: suite) ?? []
    if parsed.prune, let old = baseline, !stale.isEmpty {
        baseline = old.removing(stale)
        do {
            try baseline!.write(to: suite.baselinePath)
        } catch {
            standardError("Error: \(error)")
            return 73
        }
        for entry in stale {
            try? FileManager.default.removeItem(atPath: suite.snapshotPath(entry.testCase))
            try? FileManager.default.removeItem(atPath: suite.timelinePath(entry.testCase))
        }
        print("pruned \(stale.count) stale baseline entr\(stale.count == 1 ? "y" : "ies"): \(Baseline.staleText(stale))")
    }
    let selection = parsed.grep.map(CaseSelection.init)
    let cases = suite.cases.filter { selection?.matches($0) ?? true }
    if cases.isEmpty, let grep = parsed.grep {
        return subcommandUsageError("'--grep \(grep)' matches no case of \(parsed.suite)", usage: CheckArguments.checkUsage)
    }
    let jobs = cases.map { testCase in
        RegressionRunner.Job(testCase: testCase, source: suite.source(for: suite.page(named: testCase.page)!),
                             options: suite.options(for: testCase),
                             snapshot: wantsSnapshots ? scratch + "/" + testCase.fileStem + ".png" : nil)
    }
    let jobCount = parsed.jobs ?? BatchRunner.defaultJobs
    let suiteName = URL(fileURLWithPath: suite.path).lastPathComponent
    standardError("\(suiteName): measuring \(cases.count) case\(cases.count == 1 ? "" : "s")"
        + (suite.repeatCount > 1 ? ", \(suite.repeatCount) runs each in fresh views" : "") + ", \(min(jobCount, max(cases.count, 1))) at once")
    let verbose = parsed.verbose
    let stepLog: @Sendable (String) -> Void = { standardError($0) }
    let started = Date()
    let runner = RegressionRunner(engine: engine, jobs: jobCount, repeatCount: suite.repeatCount)
    let progressDisplay: RunProgress.Display = parsed.progress == false || verbose ? .none
        : isatty(STDERR_FILENO) == 1 ? .live : parsed.progress == true ? .lines : .none
    let progress = RunProgress(total: cases.count, unit: "case", display: progressDisplay)
    Interruption.shared.onSignal {
        progress.finish()
        var lines = ["interrupted: " + progress.line()]
        if let notOK = progress.notOKText { lines.append(notOK) }
        lines.append(parsed.update ? "the baseline was not changed" : "nothing was compared; run the check again")
        FileHandle.standardError.write(Data(("\n" + lines.joined(separator: "\n") + "\n").utf8))
    }
    let places = Dictionary(cases.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    let results = await runner.run(jobs, verbose: verbose ? stepLog : nil,
                                   started: { place, testCase in progress.started(place, name: testCase.name) }) { result in
        progress.finished(places[result.testCase] ?? -1, name: result.testCase.name, status: result.outcome.status)
        if verbose { standardError("measured \(result.testCase.name): \(result.outcome.formatted)") }
    }
    progress.finish()
    let comparisons = results.map {
        CaseComparison($0.testCase, baseline: baseline?.entry(for: $0.testCase), current: $0.outcome, tolerance: suite.tolerance)
    }
    let summary = CheckSummary(comparisons)
    let software = softwareNote(baseline: baseline, now: engine.measuredWith, failed: !summary.passed)
    let wall = String(format: "%.1f", Date().timeIntervalSince(started))

    if let junit = parsed.junit {
        var seconds: [RegressionCase: Double] = [:]
        for result in results { seconds[result.testCase] = result.seconds }
        do {
            try JUnitReport.xml(suiteName: suiteName, comparisons: comparisons, seconds: seconds)
                .write(toFile: junit, atomically: true, encoding: .utf8)
        } catch {
            standardError("Error: writing the JUnit file \(junit): \(error.localizedDescription)")
            return 73
        }
    }
    if let directory = parsed.report {
        let shown = results.enumerated().filter { parsed.all || !comparisons[$0.offset].passed }
        try? FileManager.default.removeItem(atPath: directory + "/fullSize")
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
        let entries = made.withLock { $0.compactMap { $0 } }
        let notes = [parsed.update ? "Compared with the baseline as it was before --update." : nil, software].compactMap { $0 }
        let html = HTMLReport.html(suiteName: suiteName, summary: summary.text, entries: entries,
                                   note: notes.isEmpty ? nil : notes.joined(separator: " "),
                                   suiteArgument: parsed.suite)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try html.write(toFile: directory + "/index.html", atomically: true, encoding: .utf8)
        } catch {
            standardError("Error: writing the report \(directory)/index.html: \(error.localizedDescription)")
            return 73
        }
        standardError("report: \(directory)/index.html")
    }

    // A resource that failed to load changes the page silently: say so for every case. What the
    // suite's own offline setting stopped is expected: counted on stdout, listed with --verbose.
    var offlineStopped = 0
    var resourceWarnings: [String] = []
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
        if let warning = FailedResource.warning(others, total: total) { resourceWarnings.append("\(result.testCase.name): \(warning)") }
    }
    let offlineNote = offlineStopped == 0 ? ""
        : "; \(offlineStopped) case\(offlineStopped == 1 ? "" : "s") had requests the offline setting stopped (--verbose lists them)"

    if parsed.update {
        // A page that could not be measured is a broken case, not a baseline: recorded, a typo in a
        // path would keep CI green for good. A runaway has no height of its own to regress against.
        let broken: Set<PageStatus> = [.loadError, .timeout, .crashed, .runaway]
        let refused = results.filter { broken.contains($0.outcome.status) && !parsed.acceptedStatuses.contains($0.outcome.status) }
        let measured = results.filter { result in !refused.contains { $0.testCase == result.testCase } }
            .map { Baseline.Entry($0.testCase, status: $0.outcome.status, height: $0.outcome.height, steps: $0.outcome.steps) }
        let update = BaselineUpdate(old: baseline, measured: measured, measuredWith: engine.measuredWith)
        do {
            try update.baseline.write(to: suite.baselinePath)
        } catch {
            standardError("Error: \(error)")
            return 73
        }
        if suite.keepsSnapshots {
            try? FileManager.default.createDirectory(atPath: suite.snapshotDirectory, withIntermediateDirectories: true)
            for result in results where !refused.contains(where: { $0.testCase == result.testCase }) {
                let target = suite.snapshotPath(result.testCase)
                try? FileManager.default.removeItem(atPath: target)
                if let snapshot = result.snapshot { try? FileManager.default.copyItem(atPath: snapshot, toPath: target) }
                if let samples = result.report?.samples { suite.recordTimeline(samples, for: result.testCase) }
            }
        }
        for line in update.lines { print(line) }
        if let warning = update.mixedSoftwareWarning { print(warning) }
        for warning in resourceWarnings { print("warning: " + warning) }
        for comparison in comparisons where comparison.current.spread?.nondeterministic == true {
            print("! \(comparison.testCase.name): nondeterministic: \(comparison.current.spread!.description)")
        }
        for result in refused {
            let why = result.outcome.status == .runaway
                ? "a runaway has no height of its own to regress against: fix the page, measure it with --no-fit, or"
                : "fix the page, or"
            print("! \(result.testCase.name): \(result.outcome.formatted): not recorded "
                + "(\(why) --accept-status \(result.outcome.status.rawValue) to record it)")
        }
        print(update.summary(path: suite.baselinePath) + (refused.isEmpty ? "" : ", \(refused.count) not recorded") + " (\(wall) s)" + offlineNote)
        return refused.isEmpty ? 0 : 1
    }

    if let software { print(software) }
    for failure in summary.failures { print("FAIL " + failure.message) }
    for warning in resourceWarnings { print("warning: " + warning) }
    if verbose { for comparison in comparisons where comparison.passed { standardError("ok   " + comparison.message) } }
    print(summary.text + " (\(wall) s)" + offlineNote)
    if !stale.isEmpty && !parsed.prune {
        print("stale baseline entries (their page is no longer in the suite; 'pageheight check --prune' removes them): "
            + Baseline.staleText(stale))
    }
    if baseline == nil {
        print("no baseline at \(suite.baselinePath): run 'pageheight check --update \(parsed.suite)' to record one")
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
