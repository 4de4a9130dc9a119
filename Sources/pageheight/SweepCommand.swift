import Foundation
import PageHeightBatch
import PageHeightCore
import PageHeightRegression
import PageHeightWebKit

/// `pageheight sweep [options] <page>...` (arguments without the word `sweep`): the height at
/// every width × font size × zoom, as a table, CSV or JSON.
func runSweep(_ arguments: [String]) async -> Int32 {
    let parsed: CheckArguments
    switch parseSubcommand(CheckArguments.self, arguments, .sweep) {
    case .run(let arguments): parsed = arguments
    case .exit(let code): return code
    }
    let template: ReaderTemplate?
    do {
        template = try parsed.template.map {
            try RegressionSuite.TemplateChoice($0, relativeTo: FileManager.default.currentDirectoryPath).load()
        }
    } catch {
        return subcommandUsageError("\(error)", usage: CheckArguments.sweepUsage)
    }
    var sources: [String: PageSource] = [:]
    for page in parsed.inputs {
        do {
            let source = try PageSource.parse(page, standardInput: { nil })
            if let template {
                guard case .file(let path) = source else {
                    return subcommandUsageError("'--template' takes a file page, not a URL: \(page)", usage: CheckArguments.sweepUsage)
                }
                sources[page] = try template.page(forFragmentAt: path)
            } else {
                sources[page] = source
            }
        } catch {
            return subcommandUsageError("\(error)", usage: CheckArguments.sweepUsage)
        }
    }
    let base = parsed.measuring.applied(to: MeasureOptions())
    let files = FileJail.Access(readable: [], pages: Array(Set(sources.values.flatMap(\.readableFolders))).sorted())
    guard let engine = startEngine(for: base, sandbox: parsed.run.sandbox, files: files) else { return 70 }
    let defaults = MeasureOptions()
    var jobs: [RegressionRunner.Job] = []
    for page in parsed.inputs.uniqued() {
        for width in parsed.widths ?? [defaults.width] {
            for fontSize in parsed.fontSizes ?? [defaults.fontSize] {
                for zoom in parsed.zooms ?? [defaults.zoom] {
                    var options = base
                    options.width = width
                    options.fontSize = fontSize
                    options.zoom = zoom
                    jobs.append(RegressionRunner.Job(testCase: RegressionCase(page: page, width: width, fontSize: fontSize, zoom: zoom),
                                                     source: .success(sources[page]!), options: options, snapshot: nil))
                }
            }
        }
    }
    let verbose = parsed.verbose
    let stepLog: @Sendable (String) -> Void = { standardError($0) }
    let runner = RegressionRunner(engine: engine, jobs: parsed.jobs ?? BatchRunner.defaultJobs, repeatCount: parsed.repeatCount ?? 1)
    let results = await runner.run(jobs, verbose: verbose ? stepLog : nil)
    StandardOutput.line(SweepTable(results.map { SweepTable.Row($0.testCase, $0.outcome) }).render(parsed.format))
    return results.allSatisfy { $0.outcome.status == .ok } ? 0 : 1
}
