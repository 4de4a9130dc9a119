import Foundation
import PageHeightCore
import PageHeightTuning

/// `pageheight replay [options] <reports>...` (arguments without the word `replay`): what an app
/// with another schedule and threshold would have shown on recorded pages.
func runReplay(_ arguments: [String]) -> Int32 {
    let parsed: TuneArguments, reports: [RecordedReport]
    switch parseTuneSubcommand(arguments, .replay) {
    case .run(let (arguments, read)): (parsed, reports) = (arguments, read)
    case .exit(let code): return code
    }
    let replays = reports.map { report in
        let app = StrategyReplay(schedule: parsed.schedule ?? report.options.schedule,
                                 threshold: parsed.threshold ?? report.options.threshold)
        return PageReplay(report, app: app, tolerance: parsed.tolerance, fit: parsed.fit)
    }
    StandardOutput.line(parsed.json ? ReplayTable.jsonLines(replays) : ReplayTable.text(replays, schedule: parsed.schedule, threshold: parsed.threshold))
    return 0
}

/// Parses and validates `replay` or `tune` arguments and reads their reports (in order): on to
/// the command, or out with the usage error (64) or after the help (0).
func parseTuneSubcommand(_ arguments: [String], _ command: TuneArguments.Command) -> ParsedSubcommand<(TuneArguments, [RecordedReport])> {
    switch parseSubcommand(TuneArguments.self, arguments, command) {
    case .exit(let code): return .exit(code)
    case .run(let parsed):
        do {
            return .run((parsed, try parsed.inputs.flatMap { input throws(ReportFileError) in try ReportFile.read(input) }))
        } catch {
            return .exit(subcommandUsageError("\(error)", usage: parsed.usage))
        }
    }
}
