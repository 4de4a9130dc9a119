import Foundation
import PageHeight

/// `pageheight replay [options] <reports>...` (arguments without the word `replay`): what an app
/// with another schedule and threshold would have shown on recorded pages.
func runReplay(_ arguments: [String]) -> Int32 {
    let parsed: TuneArguments, reports: [RecordedReport]
    switch parseTuneSubcommand(arguments, .replay) {
    case .run(let arguments, let read): (parsed, reports) = (arguments, read)
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

/// The reports of every input file, in order.
enum ParsedTuneSubcommand {
    case run(TuneArguments, [RecordedReport])
    case exit(Int32)
}

/// Parses and validates `replay` or `tune` arguments and reads their reports: on to the command,
/// or out with the usage error (64) or after the help (0).
func parseTuneSubcommand(_ arguments: [String], _ command: TuneArguments.Command) -> ParsedTuneSubcommand {
    let usage = command == .replay ? TuneArguments.replayUsage : TuneArguments.tuneUsage
    do {
        let parsed = try TuneArguments.parse(arguments, command: command)
        try parsed.validate()
        if parsed.help {
            print(command == .replay ? TuneArguments.replayHelp : TuneArguments.tuneHelp)
            return .exit(0)
        }
        do {
            return .run(parsed, try parsed.inputs.flatMap { input throws(ReportFileError) in try ReportFile.read(input) })
        } catch {
            return .exit(subcommandUsageError("\(error)", usage: usage))
        }
    } catch {
        return .exit(subcommandUsageError(error.message, usage: usage))
    }
}
