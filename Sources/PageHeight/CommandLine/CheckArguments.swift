import Foundation

/// The measuring options `check` and `sweep` pass on to `CommandLineArguments.parse`: the
/// names that take a value, and the flags.
private let measuringValueOptions: Set<String> = [
    "--width", "--height", "--font-size", "--zoom", "--metric", "--until", "--quiet", "--timeout", "--threshold",
    "--schedule", "--header", "--footer", "--fonts", "--font-dir",
]
private let measuringFlags: Set<String> = ["--fit", "--no-fit", "--no-javascript", "--offline"]

/// Measuring options given on a `check` or `sweep` command line, parsed by
/// `CommandLineArguments.parse`; only the options actually given override a suite's.
public struct MeasuringOverrides: Equatable, Sendable {
    /// The options as given, in order (`--name value` or `--name=value`).
    public var arguments: [String] = []
    /// The option names given.
    public var names: Set<String> = []
    public var parsed = MeasureOptions()

    public init() {}

    /// Parses and range-checks the collected options with the single-page parser.
    mutating func finish() throws(UsageError) {
        var parsed = try CommandLineArguments.parse(arguments)
        parsed.pages = ["-"]
        try parsed.validate()
        self.parsed = parsed.options
    }

    /// `base` with every option given here put over it (width, font size and zoom too).
    public func applied(to base: MeasureOptions) -> MeasureOptions {
        var options = base
        for name in names {
            switch name {
            case "--width": options.width = parsed.width
            case "--height": options.height = parsed.height
            case "--font-size": options.fontSize = parsed.fontSize
            case "--zoom": options.zoom = parsed.zoom
            case "--metric": options.metric = parsed.metric
            case "--until": options.until = parsed.until
            case "--quiet": options.quiet = parsed.quiet
            case "--timeout": options.timeout = parsed.timeout
            case "--threshold": options.threshold = parsed.threshold
            case "--schedule": options.schedule = parsed.schedule
            case "--header": options.header = parsed.header
            case "--footer": options.footer = parsed.footer
            case "--fit", "--no-fit": options.fit = parsed.fit
            case "--no-javascript": options.javascript = parsed.javascript
            case "--fonts", "--font-dir": options.fonts = parsed.fonts
            case "--offline":
                options.offline = parsed.offline
                options.offlineMode = parsed.offlineMode
            default: preconditionFailure("not a measuring option: \(name)")
            }
        }
        return options
    }
}

/// `pageheight check [options] [suite.json]` and `pageheight sweep [options] <page>...`,
/// parsed from `[String]` (without the subcommand word; pure), then validated.
public struct CheckArguments: Equatable, Sendable {
    public enum Command: Equatable, Sendable { case check, sweep }

    public var command: Command
    /// check: the suite file (default `suite.json`); sweep: the pages.
    public var inputs: [String] = []
    public var measuring = MeasuringOverrides()
    public var help = false
    public var verbose = false
    public var jobs: Int?
    /// `--repeat N`: measure each case N times, each in a fresh view.
    public var repeatCount: Int?
    /// `--template FILE` (or `default`).
    public var template: String?
    // check
    public var update = false
    /// Failure statuses `--update` may record as a case's baseline (`--accept-status`).
    public var acceptedStatuses: Set<PageStatus> = []
    public var junit: String?
    public var report: String?
    public var all = false
    // sweep
    public var widths: [Int]?
    public var fontSizes: [Int]?
    public var zooms: [Double]?
    public var format = SweepTable.Format.table

    public init(command: Command) { self.command = command }

    public static let defaultSuite = "suite.json"

    /// The suite file `check` reads.
    public var suite: String { inputs.first ?? Self.defaultSuite }

    public static func parse(_ arguments: [String], command: Command) throws(UsageError) -> CheckArguments {
        var result = CheckArguments(command: command)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                result.inputs.append(argument)
                index += 1
                continue
            }
            if argument == "--" {
                optionsEnded = true
                index += 1
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                index += 1
                guard index < arguments.count else { throw UsageError("missing value for '\(name)'") }
                return arguments[index]
            }
            func flag() throws(UsageError) {
                if inline != nil { throw UsageError("'\(name)' takes no value") }
            }
            func only(_ wanted: Command) throws(UsageError) {
                if command != wanted { throw UsageError("'\(name)' is an option of 'pageheight \(wanted == .check ? "check" : "sweep")'") }
            }
            switch name {
            case "-h", "--help": try flag(); result.help = true
            case "-v", "--verbose": try flag(); result.verbose = true
            case "-j", "--jobs": result.jobs = try integer(name, try value())
            case "--repeat": result.repeatCount = try integer(name, try value())
            case "--template": result.template = try value()
            case "--update": try only(.check); try flag(); result.update = true
            case "--accept-status":
                try only(.check)
                for text in try value().split(separator: ",") {
                    guard let status = PageStatus(rawValue: String(text)) else {
                        throw UsageError("unknown status '\(text)' for '--accept-status' (one of: "
                            + PageStatus.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                    }
                    result.acceptedStatuses.insert(status)
                }
            case "--junit": try only(.check); result.junit = try value()
            case "--report": try only(.check); result.report = try value()
            case "--all": try only(.check); try flag(); result.all = true
            case "--widths": try only(.sweep); result.widths = try list(name, try value(), Int.init)
            case "--font-sizes": try only(.sweep); result.fontSizes = try list(name, try value(), Int.init)
            case "--zooms": try only(.sweep); result.zooms = try list(name, try value()) { Double($0).flatMap { $0.isFinite ? $0 : nil } }
            case "--format":
                try only(.sweep)
                let text = try value()
                guard let format = SweepTable.Format(rawValue: text) else {
                    throw UsageError("unknown value '\(text)' for '--format' (one of: table, csv, json)")
                }
                result.format = format
            default:
                if measuringFlags.contains(name) {
                    // As given: the single-page parser reads `--offline=MODE` and refuses a value
                    // on the others.
                    result.measuring.arguments.append(argument)
                } else if measuringValueOptions.contains(name) {
                    result.measuring.arguments += [name, try value()]
                } else {
                    throw UsageError("unknown option '\(name)'")
                }
                result.measuring.names.insert(name)
            }
            index += 1
        }
        try result.measuring.finish()
        return result
    }

    /// Checks ranges and combinations that parsing alone cannot.
    public func validate() throws(UsageError) {
        if help { return }
        if let jobs { try check(jobs, "--jobs", 1...64) }
        if let repeatCount { try check(repeatCount, "--repeat", 1...100) }
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
            for width in widths ?? [] { try check(width, "--widths", 1...100_000) }
            for size in fontSizes ?? [] { try check(size, "--font-sizes", 1...500) }
            for zoom in zooms ?? [] { try check(zoom, "--zooms", 0.1...10) }
            for name in ["--width", "--font-size", "--zoom"] where measuring.names.contains(name) {
                throw UsageError("'pageheight sweep' takes '\(name)s' (a list), not '\(name)'")
            }
        }
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path.isEmpty ? "." : path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func check<T: Comparable>(_ value: T, _ name: String, _ range: ClosedRange<T>) throws(UsageError) {
        guard range.contains(value) else {
            throw UsageError("'\(name)' must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
    }

    /// `suite` with the command line's measuring options, template and repeat count put over it.
    /// `--width`, `--font-size` and `--zoom` replace the suite's lists with one value.
    public func applied(to suite: RegressionSuite) -> RegressionSuite {
        var suite = suite
        suite.options = measuring.applied(to: suite.options)
        if measuring.names.contains("--width") { suite.widths = [measuring.parsed.width] }
        if measuring.names.contains("--font-size") { suite.fontSizes = [measuring.parsed.fontSize] }
        if measuring.names.contains("--zoom") { suite.zooms = [measuring.parsed.zoom] }
        if let repeatCount { suite.repeatCount = repeatCount }
        if let template {
            let choice = RegressionSuite.TemplateChoice(template, relativeTo: FileManager.default.currentDirectoryPath)
            for index in suite.pages.indices { suite.pages[index].template = choice }
        }
        return suite
    }

    public static let checkUsage = "USAGE: pageheight check [options] [<suite.json>]"
    public static let sweepUsage = "USAGE: pageheight sweep [options] <page> ..."

    public var usage: String { command == .check ? Self.checkUsage : Self.sweepUsage }

    public static var checkHelp: String {
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
          --junit <file>          Write JUnit XML: one testcase per case.
          --report <dir>          Write <dir>/index.html: failing cases with heights, timeline and snapshots.
          --all                   Put every case in the report, not only the failing ones.
          --repeat <n>            Measure each case n times, each in a fresh view; report the spread and
                                  flag runs that disagree. (default: the suite's "repeat", else 1)
          --template <file>       Insert every page (an article fragment) into this reader template
                                  ("default": the built-in one). (default: the suite's "template")
          -j, --jobs <n>          Cases measured at once. (default: \(BatchRunner.defaultJobs) here)
          -v, --verbose           Print every case's result and timestamped steps on stderr.
          -h, --help              Print this help.
          Measuring options (--offline, --timeout, --width, --fonts, --font-dir, ...) override the suite's.

        EXIT STATUS:
          0 every case passed (or --update wrote the baseline); 1 some case failed; 64 the command line
          or the suite file is wrong.
        """
    }

    public static var sweepHelp: String {
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
          --template <file>       Insert the page (an article fragment) into this reader template
                                  ("default": the built-in one).
          --repeat <n>            Measure each combination n times, each in a fresh view. (default: 1)
          -j, --jobs <n>          Combinations measured at once. (default: \(BatchRunner.defaultJobs) here)
          -v, --verbose           Print timestamped steps on stderr.
          -h, --help              Print this help.
          Every measuring option of 'pageheight' applies (--offline, --timeout, --metric, ...).

        EXIT STATUS:
          0 every combination is ok; 1 some is not; 64 the command line is wrong.
        """
    }
}

private func integer(_ name: String, _ text: String) throws(UsageError) -> Int {
    guard let value = Int(text) else { throw UsageError("'\(name)' takes a whole number, got '\(text)'") }
    return value
}

private func list<T: Hashable>(_ name: String, _ text: String, _ convert: (String) -> T?) throws(UsageError) -> [T] {
    let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    let values = items.compactMap(convert)
    guard !items.isEmpty, values.count == items.count else {
        throw UsageError("'\(name)' takes a comma-separated list of numbers, e.g. 320,390; got '\(text)'")
    }
    return values.uniqued()
}
