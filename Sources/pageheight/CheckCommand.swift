import Foundation
import PageHeight

/// `pageheight check [options] [suite.json]` (arguments without the word `check`): measure the
/// suite, compare with its baseline, write JUnit and the HTML report; or `--update` the baseline.
func runCheck(_ arguments: [String]) async -> Int32 {
    let parsed: CheckArguments
    switch parseSubcommand(arguments, .check) {
    case .run(let arguments): parsed = arguments
    case .exit(let code): return code
    }
    let suite: RegressionSuite
    let baseline: Baseline?
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
    guard let engine = startEngine(fonts: suite.options.fonts) else { return 70 }

    // Current snapshots go to a scratch directory: the report inlines them, --update keeps them.
    let wantsSnapshots = parsed.report != nil || (parsed.update && suite.keepsSnapshots)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-check-\(getpid())").path
    if wantsSnapshots { try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true) }
    defer { if wantsSnapshots { try? FileManager.default.removeItem(atPath: scratch) } }

    let cases = suite.cases
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
    let results = await runner.run(jobs, verbose: verbose ? stepLog : nil) { result in
        if verbose { standardError("measured \(result.testCase.name): \(result.outcome.formatted)") }
    }
    let comparisons = results.map {
        CaseComparison($0.testCase, baseline: baseline?.entry(for: $0.testCase), current: $0.outcome, tolerance: suite.tolerance)
    }
    let summary = CheckSummary(comparisons)
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
        let entries = shown.map { index, result in
            HTMLReport.Entry(comparison: comparisons[index], samples: result.report?.samples ?? [],
                             baselineSnapshot: FileManager.default.contents(atPath: suite.snapshotDirectory + "/" + result.testCase.fileStem + ".png"),
                             currentSnapshot: result.snapshot.flatMap { FileManager.default.contents(atPath: $0) })
        }
        let html = HTMLReport.html(suiteName: suiteName, summary: summary.text, entries: entries,
                                   note: parsed.update ? "Compared with the baseline as it was before --update." : nil)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try html.write(toFile: directory + "/index.html", atomically: true, encoding: .utf8)
        } catch {
            standardError("Error: writing the report \(directory)/index.html: \(error.localizedDescription)")
            return 73
        }
        standardError("report: \(directory)/index.html")
    }

    if parsed.update {
        // A page that could not be measured is a broken case, not a baseline: recorded, a typo in a
        // path would keep CI green for good.
        let broken: Set<PageStatus> = [.loadError, .timeout, .crashed]
        let refused = results.filter { broken.contains($0.outcome.status) && !parsed.acceptedStatuses.contains($0.outcome.status) }
        let measured = results.filter { result in !refused.contains { $0.testCase == result.testCase } }
            .map { Baseline.Entry($0.testCase, status: $0.outcome.status, height: $0.outcome.height) }
        let update = BaselineUpdate(old: baseline, measured: measured)
        do {
            try update.baseline.write(to: suite.baselinePath)
        } catch {
            standardError("Error: \(error)")
            return 73
        }
        if suite.keepsSnapshots {
            try? FileManager.default.createDirectory(atPath: suite.snapshotDirectory, withIntermediateDirectories: true)
            for result in results {
                let target = suite.snapshotDirectory + "/" + result.testCase.fileStem + ".png"
                try? FileManager.default.removeItem(atPath: target)
                if let snapshot = result.snapshot { try? FileManager.default.copyItem(atPath: snapshot, toPath: target) }
            }
        }
        for line in update.lines { print(line) }
        for comparison in comparisons where comparison.current.spread?.nondeterministic == true {
            print("! \(comparison.testCase.name): nondeterministic: \(comparison.current.spread!.description)")
        }
        for result in refused {
            print("! \(result.testCase.name): \(result.outcome.formatted): not recorded "
                + "(fix the page, or --accept-status \(result.outcome.status.rawValue) to record it)")
        }
        print(update.summary(path: suite.baselinePath) + (refused.isEmpty ? "" : ", \(refused.count) not recorded") + " (\(wall) s)")
        return refused.isEmpty ? 0 : 1
    }

    for failure in summary.failures { print("FAIL " + failure.message) }
    if verbose { for comparison in comparisons where comparison.passed { standardError("ok   " + comparison.message) } }
    print(summary.text + " (\(wall) s)")
    if baseline == nil {
        print("no baseline at \(suite.baselinePath): run 'pageheight check --update \(parsed.suite)' to record one")
    }
    return summary.passed ? 0 : 1
}

/// A usage error of a subcommand: `Error: …`, the subcommand's usage line and the hint; 64.
enum ParsedSubcommand {
    case run(CheckArguments)
    case exit(Int32)
}

/// Parses and validates `check` or `sweep` arguments: on to the command, or out with the usage
/// error (64) or after the help (0).
func parseSubcommand(_ arguments: [String], _ command: CheckArguments.Command) -> ParsedSubcommand {
    let usage = command == .check ? CheckArguments.checkUsage : CheckArguments.sweepUsage
    do {
        let parsed = try CheckArguments.parse(arguments, command: command)
        try parsed.validate()
        if parsed.help {
            print(command == .check ? CheckArguments.checkHelp : CheckArguments.sweepHelp)
            return .exit(0)
        }
        return .run(parsed)
    } catch {
        return .exit(subcommandUsageError(error.message, usage: usage))
    }
}

func subcommandUsageError(_ message: String, usage: String) -> Int32 {
    FileHandle.standardError.write(Data("Error: \(message)\n\(usage)\n\(HelpText.hint)\n".utf8))
    return 64
}

func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
