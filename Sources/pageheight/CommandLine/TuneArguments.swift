import Foundation
import PageHeightCore
import PageHeightTuning

/// `pageheight replay [options] <reports>...` and `pageheight tune [options] <reports>...`,
/// parsed from `[String]` (without the subcommand word; pure), then validated. The options they
/// share with other subcommands (`RunOption`) are in `run`, and read as their own.
struct TuneArguments: RunOptionArguments, Equatable, Sendable {
    enum Command: Equatable, Sendable { case replay, tune }

    var command: Command
    /// Report files (JSON Lines or one `--json` report; `-` for standard input).
    var inputs: [String] = []
    var run = RunSettings()
    // replay
    /// nil: each report's own schedule.
    var schedule: GrowingDelaySchedule?
    /// nil: each report's own threshold.
    var threshold: Double?
    /// nil: each report's own fit mode.
    var fit: Bool?
    // tune
    var candidates: [GrowingDelaySchedule] = []
    var thresholds = TuneArguments.defaultThresholds
    var family = ScheduleFamily()
    /// `--report FILE`: the HTML report.
    var report: String?
    /// `--max-final SECONDS`: candidates whose final height comes later on some page are left off the front.
    var maxFinal: Double?
    /// `--all`: every row of the front, not the first `TuneTable.shortFront`.
    var allRows = false

    static let defaultThresholds: [Double] = [0, 2, 5, 10, 20]

    init(command: Command) { self.command = command }

    var runOptionCommand: RunOption.Command { command == .replay ? .replay : .tune }

    static func parse(_ arguments: [String], command: Command) throws(UsageError) -> TuneArguments {
        var result = TuneArguments(command: command)
        var replayed = MeasuringOverrides()
        try ArgumentScanner.scan(arguments, operand: { result.inputs.append($0) }) { given throws(UsageError) in
            func only(_ wanted: Command) throws(UsageError) {
                if command != wanted { throw UsageError("'\(given.name)' is an option of 'pageheight \(wanted == .replay ? "replay" : "tune")'") }
            }
            if try RunOption.read(&given, into: &result.run, for: result.runOptionCommand) { return }
            switch given.name {
            case "--schedule", "--threshold", "--fit", "--no-fit": try only(.replay); _ = try replayed.read(&given)
            case "--candidate": try only(.tune); result.candidates.append(try given.sleeps())
            case "--thresholds": try only(.tune); result.thresholds = try given.list(example: "1,2,5", Double.init)
            case "--polls": try only(.tune); result.family.polls = try given.list(example: "1,2,5", Int.init)
            case "--first": try only(.tune); result.family.firstDelays = try given.list(example: "1,2,5", Double.init)
            case "--growth": try only(.tune); result.family.growthFactors = try given.list(example: "1,2,5", Double.init)
            case "--last": try only(.tune); result.family.lastPolls = try given.list(example: "1,2,5", Double.init)
            case "--report": try only(.tune); result.report = try given.value()
            case "--max-final":
                try only(.tune)
                let text = try given.value()
                guard let seconds = Double(text), seconds.isFinite else { throw UsageError("'--max-final' takes seconds, not '\(text)'") }
                result.maxFinal = seconds
            case "--all": try only(.tune); result.allRows = true
            default:
                throw UsageError.unknownOption(given.name, known: ["--schedule", "--threshold", "--fit", "--no-fit", "--candidate",
                    "--thresholds", "--polls", "--first", "--growth", "--last", "--report", "--max-final", "--all"]
                    + RunOption.all.flatMap(\.switches))
            }
        }
        if replayed.contains("--schedule") { result.schedule = replayed.parsed.schedule }
        if replayed.contains("--threshold") { result.threshold = replayed.parsed.threshold }
        if replayed.contains("--fit") { result.fit = replayed.parsed.fit }
        return result
    }

    /// Checks ranges and combinations that parsing alone cannot.
    func validate() throws(UsageError) {
        if help { return }
        guard !inputs.isEmpty else { throw UsageError("missing reports (a JSON Lines file from 'pageheight batch', or a --json report)") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input ('-') can be read only once") }
        try RunOption.validate(run, for: runOptionCommand)
        if let threshold { try checkRange(threshold, "--threshold", MeasuringOption.thresholdRange) }
        guard command == .tune else { return }
        for threshold in thresholds { try checkRange(threshold, "--thresholds", MeasuringOption.thresholdRange) }
        for polls in family.polls { try checkRange(polls, "--polls", 1...100) }
        for first in family.firstDelays { try checkRange(first, "--first", 0.001...600) }
        for growth in family.growthFactors { try checkRange(growth, "--growth", 1...100) }
        for last in family.lastPolls { try checkRange(last, "--last", 0.001...600) }
        if let maxFinal { try checkRange(maxFinal, "--max-final", 0...600) }
        let size = family.polls.count * family.firstDelays.count * family.growthFactors.count * family.lastPolls.count
        if size * thresholds.count > 200_000 {
            throw UsageError("the family is too large: \(size) schedules x \(thresholds.count) thresholds (at most 200000 candidates)")
        }
        if let report {
            let directory = URL(fileURLWithPath: report).deletingLastPathComponent().path
            guard isDirectory(directory) else {
                throw UsageError("'--report': no such directory: \(directory)")
            }
        }
    }

    static let replayUsage = "USAGE: pageheight replay [options] <reports> ..."
    static let tuneUsage = "USAGE: pageheight tune [options] <reports> ..."

    var usage: String { Self.usage(of: command) }

    static var replayHelp: String {
        """
        OVERVIEW: What a reader app with another schedule and threshold would have shown on recorded pages.

        Replays each report's timeline (nothing is loaded again) with the code that fills the report's
        "strategies": the app measures when the load finished, then polls on its schedule and takes a
        height that moved more than its threshold. Prints per page the height the app ends with, its
        error against the settled height, the jumps the reader sees and when the final height came.
        A poll the recording cannot answer (after the end of a page that did not settle) makes the
        page unknown, never right.

        \(replayUsage)

        ARGUMENTS:
          <reports>               JSON Lines from 'pageheight batch', or a report from '--json'; - for stdin.

        OPTIONS:
          --schedule <sleeps>     The app's sleeps between polls, comma-separated. (default: each report's own)
          --threshold <px>        Moves of this much or less are not taken. (default: each report's own)
          --fit / --no-fit        The app's fit mode; a report recorded in the other mode is unknown.
                                  (default: as recorded)
        \(RunOption.helpLines(for: .replay))

        EXIT STATUS:
          0 the replay ran; 64 the command line or a report file is wrong.
        """
    }

    static var tuneHelp: String {
        let family = ScheduleFamily()
        func items<T>(_ values: [T], _ text: (T) -> String) -> String { values.map(text).joined(separator: ",") }
        return """
        OVERVIEW: Which delays should a reader app poll at? Searched on recorded pages.

        Replays every recorded page under every candidate (a schedule and a threshold) and scores each:
        pages left wrong at the end (clipped, or blank space, by more than the tolerance), pages it
        cannot be judged on (unknown), the wrong height the reader looks at over time (px·s per page:
        the area between the height shown and the page's own), visible jumps per page, seconds from load
        finished to the final height, polls per page. Prints the Pareto front: no other candidate is
        better on all four (pages wrong or unknown, wrong height over time, jumps, final height) at once,
        best first, its first \(TuneTable.shortFront) rows. The first row is the recommendation; the reader app's
        default is always scored and shown:
        \(TuneCandidate.readerApp.sleeps) s at 5 px.

        The family: at most <polls> polls, the first <first> s after load finished, each sleep <growth>
        times the one before, and the last poll at <last> s (polls that would come later are dropped).

        \(tuneUsage)

        ARGUMENTS:
          <reports>               JSON Lines from 'pageheight batch', or a report from '--json'; - for stdin.

        OPTIONS:
          --candidate <sleeps>    Also score these sleeps, comma-separated; repeatable.
          --thresholds <list>     Thresholds in px. (default: \(items(defaultThresholds, DecimalText.format)))
          --polls <list>          The family's numbers of polls. (default: \(items(family.polls, String.init)))
          --first <list>          The family's first delays, s. (default: \(items(family.firstDelays, DecimalText.format)))
          --growth <list>         The family's growth factors. (default: \(items(family.growthFactors, DecimalText.format)))
          --last <list>           The family's last poll times, s. (default: \(items(family.lastPolls, DecimalText.format)))
          --max-final <seconds>   Leave off the front every candidate that shows some page's final height
                                  later than this after load finished. (default: no cap)
          --all                   Print every row of the front. (default: the first \(TuneTable.shortFront))
          --report <file.html>    Write a self-contained HTML report: the Pareto chart, the front, and the
                                  pages the recommended and the default schedule get wrong, with timelines.
        \(RunOption.helpLines(for: .tune))

        EXIT STATUS:
          0 the search ran; 64 the command line or a report file is wrong; 73 the HTML report could not
          be written.
        """
    }
}
