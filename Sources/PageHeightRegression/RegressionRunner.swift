import Foundation
import PageHeightCore
import PageHeightWebKit

/// Measures regression cases with the engine: `jobs` at once, each `repeatCount` times (in a
/// fresh view every time when more than once, so the runs share nothing), with an optional
/// full-document snapshot of the run whose outcome is the case's answer.
public final class RegressionRunner: @unchecked Sendable {
    /// What to measure for one case.
    public struct Job: Sendable {
        public var testCase: RegressionCase
        /// The page to load, or why it cannot be loaded (the case is then `load-error`).
        public var source: Result<PageSource, PageSourceFailure>
        public var options: MeasureOptions
        /// Where to write the chosen run's snapshot.
        public var snapshot: String?

        public init(testCase: RegressionCase, source: Result<PageSource, PageSourceFailure>, options: MeasureOptions, snapshot: String?) {
            (self.testCase, self.source, self.options, self.snapshot) = (testCase, source, options, snapshot)
        }
    }

    public struct CaseResult: Sendable {
        public var testCase: RegressionCase
        public var outcome: CaseOutcome
        /// The run whose outcome is the answer (nil when the page could not be loaded).
        public var report: PageReport?
        /// The snapshot written for the answer's run.
        public var snapshot: String?
        /// The longest run, wall-clock seconds.
        public var seconds: Double
    }

    public let engine: PageHeightEngine
    public let jobs: Int
    public let repeatCount: Int

    public init(engine: PageHeightEngine, jobs: Int, repeatCount: Int) {
        self.engine = engine
        self.jobs = max(1, jobs)
        self.repeatCount = max(1, repeatCount)
    }

    /// Measures every job; `started` is called as each case starts, with its place in `work`,
    /// and `finished` as each ends (from any task).
    public func run(_ work: [Job], verbose: (@Sendable (String) -> Void)? = nil,
                    started: @escaping @Sendable (Int, RegressionCase) -> Void = { _, _ in },
                    finished: @escaping @Sendable (CaseResult) -> Void = { _ in }) async -> [CaseResult] {
        let results = ResultStore()
        await MeasuringJobs.run(Array(work.enumerated()), jobs: jobs) { [self] place, upcoming, _ in
            started(place.offset, place.element.testCase)
            let result = await measure(place.element, upcoming: upcoming?.element, verbose: verbose)
            finished(result)
            await results.add(result)
        }
        return await results.all.sorted { $0.testCase < $1.testCase }
    }

    private func measure(_ job: Job, upcoming: Job?, verbose: (@Sendable (String) -> Void)?) async -> CaseResult {
        let source: PageSource
        switch job.source {
        case .failure(let failure):
            return CaseResult(testCase: job.testCase, outcome: CaseOutcome(status: .loadError, height: nil, message: failure.message),
                              report: nil, snapshot: nil, seconds: 0)
        case .success(let page):
            source = page
        }
        var reports: [PageReport] = []
        var snapshots: [String?] = []
        for run in 0..<repeatCount {
            let snapshot = job.snapshot.map { repeatCount == 1 ? $0 : $0 + ".run\(run + 1).png" }
            let name = job.testCase.name
            let log: @Sendable (String) -> Void = { line in verbose?("[\(name)\(self.repeatCount > 1 ? " run \(run + 1)" : "")] \(line)") }
            // With one run, a view is made ready for the next case meanwhile (with --repeat, every
            // run has a fresh view).
            let next = repeatCount == 1 && upcoming?.options == job.options ? try? upcoming?.source.get() : nil
            let report = await engine.measure(source, options: job.options, snapshot: snapshot, freshView: repeatCount > 1,
                                              upcoming: next, log: log)
            reports.append(report)
            snapshots.append(report.snapshot)
        }
        let spread = repeatCount > 1 ? RepeatSpread(reports.map { ($0.status, $0.height) }) : nil
        var chosenIndex = 0
        if let spread {
            chosenIndex = reports.firstIndex { r in
                r.status == spread.chosen.status && r.height.map { ($0 * 100).rounded() / 100 } == spread.chosen.height
            } ?? 0
        }
        let chosen = reports[chosenIndex]
        var snapshot = snapshots[chosenIndex]
        if repeatCount > 1, let target = job.snapshot {
            for (index, path) in snapshots.enumerated() {
                guard let path else { continue }
                if index == chosenIndex {
                    try? FileManager.default.removeItem(atPath: target)
                    snapshot = (try? FileManager.default.moveItem(atPath: path, toPath: target)) != nil ? target : path
                } else {
                    try? FileManager.default.removeItem(atPath: path)
                }
            }
        }
        let outcome = CaseOutcome(status: chosen.status, height: chosen.height, message: chosen.message ?? chosen.snapshotError, spread: spread,
                                  steps: Baseline.StepEntry.of(chosen))
        return CaseResult(testCase: job.testCase, outcome: outcome, report: chosen, snapshot: snapshot,
                          seconds: reports.map(\.timings.wallSeconds).max() ?? 0)
    }
}

private actor ResultStore {
    var all: [RegressionRunner.CaseResult] = []
    func add(_ result: RegressionRunner.CaseResult) { all.append(result) }
}

extension RegressionSuite {
    /// The page to load for a suite page: the file or URL itself, or the fragment inserted
    /// into the page's reader template.
    public func source(for page: Page) -> Result<PageSource, PageSourceFailure> {
        do {
            if let choice = page.template {
                guard !PageGlob.isURL(page.location) else {
                    return .failure(.init("a template takes a file, not a URL: \(page.location)"))
                }
                return .success(try choice.load().page(forFragmentAt: page.location))
            }
            return .success(try PageSource.parse(page.location, standardInput: { nil }))
        } catch {
            return .failure(.init("\(error)"))
        }
    }
}
