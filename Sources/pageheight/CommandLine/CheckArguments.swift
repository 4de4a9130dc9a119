import Foundation
import PageHeightBatch
import PageHeightCore
import PageHeightRegression

/// Measuring options given on a `check`, `sweep` or `replay` command line; only the options
/// actually given override a suite's (or a report's).
struct MeasuringOverrides: Equatable, Sendable {
    /// The switches given (`--no-fit`, not `--fit`, when that was given).
    var names: Set<String> = []
    /// The options given, over the defaults.
    var parsed = MeasureOptions()

    init() {}

    /// Reads `given` into `parsed` if it is a measuring option that a suite file has too;
    /// false if it is not one.
    mutating func read(_ given: inout GivenOption) throws(UsageError) -> Bool {
        if FontChoice.switches.contains(given.name) {
            try FontChoice.read(&given, into: &parsed.fonts)
            names.insert(given.name)
            return true
        }
        guard let option = MeasuringOption.named(given.name), option.suiteKey != .none else { return false }
        try option.read(&given, &parsed)
        names.insert(given.name)
        return true
    }

    /// Whether one of `option`'s switches was given.
    func contains(_ option: String) -> Bool {
        MeasuringOption.named(option)?.switches.contains(where: names.contains) ?? false
    }

    /// Checks the ranges of the options given.
    func validate() throws(UsageError) {
        try MeasuringOption.validate(parsed)
        for directory in parsed.fonts?.directories ?? [] { try FontChoice.checkDirectory(directory) }
    }

    /// `base` with every option given here put over it (width, font size and zoom too).
    func applied(to base: MeasureOptions) -> MeasureOptions {
        var options = base
        if FontChoice.switches.contains(where: names.contains) { options.fonts = parsed.fonts }
        for option in MeasuringOption.all where option.switches.contains(where: names.contains) {
            option.copy(parsed, &options)
        }
        return options
    }
}

/// `pageheight check [options] [suite.json]` and `pageheight sweep [options] <page>...`,
/// parsed from `[String]` (without the subcommand word; pure), then validated. The options they
/// share with other subcommands (`RunOption`) are in `run`, and read as their own.
struct CheckArguments: RunOptionArguments, Equatable, Sendable {
    enum Command: Equatable, Sendable { case check, sweep }

    var command: Command
    /// check: the suite file (default `suite.json`); sweep: the pages.
    var inputs: [String] = []
    var measuring = MeasuringOverrides()
    var run = RunSettings()
    // check
    var update = false
    /// Failure statuses `--update` may record as a case's baseline (`--accept-status`).
    var acceptedStatuses: Set<PageStatus> = []
    var junit: String?
    var report: String?
    var all = false
    /// `--grep PATTERN`: only the cases that match (`CaseSelection`).
    var grep: String?
    /// `--prune`: remove baseline entries whose page is no longer in the suite.
    var prune = false
    /// `--allow-outside`: the suite may name files outside its folder.
    var allowOutside = false
    // sweep
    var widths: [Int]?
    var fontSizes: [Int]?
    var zooms: [Double]?
    var format = SweepTable.Format.table

    init(command: Command) { self.command = command }

    var runOptionCommand: RunOption.Command { command == .check ? .check : .sweep }

    static let defaultSuite = "suite.json"

    /// The suite file `check` reads.
    var suite: String { inputs.first ?? Self.defaultSuite }

    static func parse(_ arguments: [String], command: Command) throws(UsageError) -> CheckArguments {
        var result = CheckArguments(command: command)
        try ArgumentScanner.scan(arguments, operand: { result.inputs.append($0) }) { given throws(UsageError) in
            func only(_ wanted: Command) throws(UsageError) {
                if command != wanted { throw UsageError("'\(given.name)' is an option of 'pageheight \(wanted == .check ? "check" : "sweep")'") }
            }
            if try RunOption.read(&given, into: &result.run, for: result.runOptionCommand) { return }
            switch given.name {
            case "--update": try only(.check); try given.flag(); result.update = true
            case "--accept-status":
                try only(.check)
                for text in try given.value().split(separator: ",") {
                    guard let status = PageStatus(rawValue: String(text)) else {
                        throw UsageError("unknown status '\(text)' for '--accept-status' (one of: "
                            + PageStatus.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                    }
                    result.acceptedStatuses.insert(status)
                }
            case "--junit": try only(.check); result.junit = try given.value()
            case "--report": try only(.check); result.report = try given.value()
            case "--all": try only(.check); try given.flag(); result.all = true
            case "--grep": try only(.check); result.grep = try given.value()
            case "--prune": try only(.check); try given.flag(); result.prune = true
            case "--allow-outside": try only(.check); try given.flag(); result.allowOutside = true
            case "--widths": try only(.sweep); result.widths = try given.list(example: "320,390", Int.init)
            case "--font-sizes": try only(.sweep); result.fontSizes = try given.list(example: "320,390", Int.init)
            case "--zooms":
                try only(.sweep)
                result.zooms = try given.list(example: "320,390") { Double($0).flatMap { $0.isFinite ? $0 : nil } }
            case "--format": try only(.sweep); result.format = try given.choice()
            default:
                guard try result.measuring.read(&given) else {
                    throw UsageError.unknownOption(given.name, known: ["--update", "--accept-status", "--junit", "--report", "--all",
                        "--grep", "--prune", "--allow-outside", "--widths", "--font-sizes", "--zooms", "--format", "--fonts",
                        "--font-dir"] + RunOption.all.flatMap(\.switches) + MeasuringOption.allSwitches)
                }
            }
        }
        try result.measuring.validate()
        return result
    }

    /// Checks ranges and combinations that parsing alone cannot.
    func validate() throws(UsageError) {
        if help { return }
        try RunOption.validate(run, for: runOptionCommand)
        switch command {
        case .check:
            guard inputs.count <= 1 else { throw UsageError("'pageheight check' takes one suite file, got \(inputs.count)") }
            if all && report == nil { throw UsageError("'--all' needs '--report DIR' (it puts every case in the report)") }
            if let junit {
                let directory = URL(fileURLWithPath: junit).deletingLastPathComponent().path
                guard isDirectory(directory) else { throw UsageError("'--junit': no such directory: \(directory)") }
            }
            if let report, FileManager.default.fileExists(atPath: report), !isDirectory(report) {
                throw UsageError("'--report' takes a directory, and '\(report)' is a file")
            }
        case .sweep:
            guard !inputs.isEmpty else { throw UsageError("missing page (a file or a URL)") }
            if inputs.contains("-") { throw UsageError("'pageheight sweep' measures a page many times; it cannot read it from standard input") }
            for width in widths ?? [] { try checkRange(width, "--widths", MeasuringOption.widthRange) }
            for size in fontSizes ?? [] { try checkRange(size, "--font-sizes", MeasuringOption.fontSizeRange) }
            for zoom in zooms ?? [] { try checkRange(zoom, "--zooms", MeasuringOption.zoomRange) }
            if let widths { try measuring.applied(to: MeasureOptions()).checkViewSize(widths: widths, widthName: "--widths") }
            if let problem = RegressionSuite.tooManyCases([("pages", inputs.uniqued().count), ("widths", widths?.count ?? 1),
                                                           ("font sizes", fontSizes?.count ?? 1), ("zooms", zooms?.count ?? 1)]) {
                throw UsageError(problem)
            }
            for option in MeasuringOption.all where option.suiteKey.isCases && measuring.names.contains(option.name) {
                throw UsageError("'pageheight sweep' takes '\(option.name)s' (a list), not '\(option.name)'")
            }
        }
    }

    /// `suite` with the command line's measuring options, template and repeat count put over it.
    /// `--width`, `--font-size` and `--zoom` replace the suite's lists with one value.
    func applied(to suite: RegressionSuite) -> RegressionSuite {
        var suite = suite
        suite.options = measuring.applied(to: suite.options)
        if measuring.contains("--width") { suite.widths = [measuring.parsed.width] }
        if measuring.contains("--font-size") { suite.fontSizes = [measuring.parsed.fontSize] }
        if measuring.contains("--zoom") { suite.zooms = [measuring.parsed.zoom] }
        if let repeatCount = run.repeatCount { suite.repeatCount = repeatCount }
        if let template = run.template {
            let choice = RegressionSuite.TemplateChoice(template, relativeTo: FileManager.default.currentDirectoryPath)
            for index in suite.pages.indices { suite.pages[index].template = choice }
        }
        return suite
    }

    static let checkUsage = "USAGE: pageheight check [options] [<suite.json>]"
    static let sweepUsage = "USAGE: pageheight sweep [options] <page> ..."

    var usage: String { Self.usage(of: command) }

    static var checkHelp: String {
        """
        OVERVIEW: Measure a suite of pages and compare each height and status with the baseline.

        Every page is measured at every width × font size × zoom of the suite. A case fails when
        its height moved beyond the suite's tolerance, its status changed, or it has no baseline.
        The baseline is <suite>.baseline.json beside the suite (and its snapshots <suite>.snapshots/).

        \(checkUsage)

        ARGUMENTS:
          <suite.json>            The suite file. (default: \(defaultSuite))

        OPTIONS:
          --update                Write or refresh the baseline for the cases measured; print what changed.
                                  A case that ends load-error, timeout or crashed is not recorded (exit 1).
          --accept-status <list>  With --update, record these statuses too, e.g. timeout,crashed.
          --grep <pattern>        Only the cases whose name contains the pattern, or whose page or name
                                  matches it as a glob (*, ?, [...]); with --update, re-take only those.
          --allow-outside         Let the suite name pages, templates and a cookies file outside its own
                                  folder (by default refused: a suite may come from someone else).
          --prune                 Remove the baseline entries whose page is no longer in the suite (check
                                  lists them as stale).
          --junit <file>          Write JUnit XML: one testcase per case.
          --report <dir>          Write <dir>/index.html: failing cases with heights, timeline and snapshots.
          --all                   Put every case in the report, not only the failing ones.
        \(RunOption.helpLines(for: .check))
        \(HelpText.entry("<measuring>", "Override the suite's: "
            + MeasuringOption.overrideSwitches(for: .check).joined(separator: ", ") + ". See 'pageheight --help'."))

        EXIT STATUS:
          0 every case passed (or --update wrote the baseline); 1 some case failed; 64 the command line
          or the suite file is wrong.
        """
    }

    static var sweepHelp: String {
        """
        OVERVIEW: Measure a page at every combination of widths, font sizes and zooms.

        \(sweepUsage)

        ARGUMENTS:
          <page>                  A file path or an http(s):// file:// data: or about: URL.

        OPTIONS:
          --widths <list>         Viewport widths in CSS px, e.g. 320,390,768,1024. (default: 390)
          --font-sizes <list>     Default font sizes in CSS px, e.g. 14,16,20. (default: 16)
          --zooms <list>          Page zooms, e.g. 1,1.5. (default: 1)
          --format <format>       table, csv or json. (default: table)
        \(RunOption.helpLines(for: .sweep))
        \(HelpText.entry("<measuring>", "As for one page: "
            + MeasuringOption.overrideSwitches(for: .sweep).joined(separator: ", ") + ". See 'pageheight --help'."))

        EXIT STATUS:
          0 every combination is ok; 1 some is not; 64 the command line is wrong.
        """
    }
}
