import PageHeightBatch
import PageHeightCore

/// The arguments of a command that takes run options: they are kept in `run`, and read and set
/// as the arguments' own (`arguments.jobs` is `arguments.run.jobs`).
@dynamicMemberLookup
protocol RunOptionArguments {
    var run: RunSettings { get set }
    /// Which command's run options these are (`RunOption.read`, `RunOption.validate`).
    var runOptionCommand: RunOption.Command { get }
}

extension RunOptionArguments {
    subscript<Value>(dynamicMember keyPath: WritableKeyPath<RunSettings, Value>) -> Value {
        get { run[keyPath: keyPath] }
        set { run[keyPath: keyPath] = newValue }
    }

    /// `-h` or `--help` was given.
    var help: Bool { run.help }
}

/// How a subcommand runs, as its command line said: the options that are not measuring options
/// (`MeasuringOption`) and that more than one subcommand takes, read into one place.
struct RunSettings: Equatable, Sendable {
    var help = false
    var verbose = false
    var json = false
    /// `--jobs`: nil for `BatchRunner.defaultJobs`.
    var jobs: Int?
    /// `--repeat N`: measure each case N times, each in a fresh view; nil for the suite's.
    var repeatCount: Int?
    /// `--template FILE` (or `default`): every page is an article fragment put into it.
    var template: String?
    /// `--progress`: a progress line also when stderr is not a terminal (every 10 s);
    /// `--no-progress`: none; nil: a live line on a terminal only.
    var progress: Bool?
    /// `--tolerance PX`: the largest error that still counts as right.
    var tolerance = 5.0
    /// `--no-sandbox` clears it: the web processes run without WebKit's sandbox.
    var sandbox = true

    /// How progress shows on stderr: a live line on a terminal, lines every 10 s elsewhere when
    /// `--progress` asked for them, nothing with `--no-progress`.
    func progressDisplay(terminal: Bool) -> RunProgress.Display {
        progress == false ? .none : terminal ? .live : progress == true ? .lines : .none
    }
}

/// An option of more than one subcommand, declared once: its switches, its value, the
/// subcommands that take it with its help in each, how it is read, and its range.
struct RunOption: Sendable {
    /// Where an option is given: `pageheight` itself (one page or `batch`) or a subcommand.
    enum Command: String, Sendable, CaseIterable {
        case measure = "pageheight", batch, check, sweep, replay, tune

        var name: String { self == .measure ? "pageheight" : "pageheight \(rawValue)" }
    }

    let switches: [String]
    /// The value's placeholder (`<n>`); nil for a switch without one.
    let placeholder: String?
    /// Its help in each subcommand that takes it, in the order help lists them.
    let help: [Command: String]
    let read: @Sendable (inout GivenOption, inout RunSettings) throws(UsageError) -> Void
    let validate: @Sendable (RunSettings) throws(UsageError) -> Void

    init(_ switches: [String], _ placeholder: String? = nil, help: [Command: String],
         read: @escaping @Sendable (inout GivenOption, inout RunSettings) throws(UsageError) -> Void,
         validate: @escaping @Sendable (RunSettings) throws(UsageError) -> Void = { _ throws(UsageError) in }) {
        (self.switches, self.placeholder, self.help, self.read, self.validate) = (switches, placeholder, help, read, validate)
    }

    var name: String { switches.last ?? "" }

    /// `-j, --jobs <n>`.
    var synopsis: String { switches.joined(separator: ", ") + (placeholder.map { " \($0)" } ?? "") }

    static let jobsDefault = "(default: \(BatchRunner.defaultJobs) here: two per core, at most one per 400 MB of memory)"

    static let all: [RunOption] = [
        RunOption(["-j", "--jobs"], "<n>", help: [
            .batch: "Pages measured at once, in one process. \(jobsDefault)",
            .check: "Cases measured at once. \(jobsDefault)",
            .sweep: "Combinations measured at once. \(jobsDefault)",
        ], read: { given, settings throws(UsageError) in settings.jobs = try given.integer() },
        validate: { settings throws(UsageError) in if let jobs = settings.jobs { try checkRange(jobs, "--jobs", 1...64) } }),
        RunOption(["--repeat"], "<n>", help: [
            .check: "Measure each case n times, each in a fresh view; report the spread and flag runs that disagree. "
                + "(default: the suite's \"repeat\", else 1)",
            .sweep: "Measure each combination n times, each in a fresh view. (default: 1)",
        ], read: { given, settings throws(UsageError) in settings.repeatCount = try given.integer() },
        validate: { settings throws(UsageError) in if let count = settings.repeatCount { try checkRange(count, "--repeat", 1...100) } }),
        RunOption(["--template"], "<file>", help: [
            .measure: "Every page (a file: an article fragment) goes into this reader template at {{article}}; the "
                + "template's links resolve beside it, the fragment's beside the fragment (\"default\": the built-in one).",
            .check: "Insert every page (an article fragment) into this reader template (\"default\": the built-in one). "
                + "(default: the suite's \"template\")",
            .sweep: "Insert the page (an article fragment) into this reader template (\"default\": the built-in one).",
        ], read: { given, settings throws(UsageError) in settings.template = try given.value() }),
        RunOption(["--tolerance"], "<px>", help: [
            .replay: "The largest error that is still right. (default: 5)",
            .tune: "The largest error that is still right. (default: 5)",
        ], read: { given, settings throws(UsageError) in settings.tolerance = try given.number() },
        validate: { settings throws(UsageError) in try checkRange(settings.tolerance, "--tolerance", 0...100_000) }),
        RunOption(["--json"], help: [
            .measure: "Print the full report as JSON.",
            .replay: "Print JSON Lines, one object per page.",
            .tune: "Print every candidate's score as JSON instead of the table.",
        ], read: { given, settings throws(UsageError) in try given.flag(); settings.json = true }),
        RunOption(["--progress"], help: [
            .batch: "Print progress on stderr every 10 s also when it is not a terminal.",
            .check: "Print progress on stderr every 10 s also when it is not a terminal (on a terminal a live line "
                + "is the default).",
        ], read: { given, settings throws(UsageError) in try given.flag(); settings.progress = true }),
        RunOption(["--no-progress"], help: [
            .batch: "No live progress line (there is none when stderr is not a terminal).",
            .check: "No progress on stderr.",
        ], read: { given, settings throws(UsageError) in try given.flag(); settings.progress = false }),
        RunOption(["--no-sandbox"], help: [
            .measure: sandboxHelp, .check: sandboxHelp, .sweep: sandboxHelp,
        ], read: { given, settings throws(UsageError) in try given.flag(); settings.sandbox = false }),
        RunOption(["-v", "--verbose"], help: [
            .measure: "Print timestamped steps on stderr.",
            .check: "Print every case's result and timestamped steps on stderr.",
            .sweep: "Print timestamped steps on stderr.",
        ], read: { given, settings throws(UsageError) in try given.flag(); settings.verbose = true }),
        RunOption(["-h", "--help"], help: [
            .measure: "Print this help.", .check: "Print this help.", .sweep: "Print this help.",
            .replay: "Print this help.", .tune: "Print this help.",
        ], read: { given, settings throws(UsageError) in try given.flag(); settings.help = true }),
    ]

    static let sandboxHelp = "Run the web processes without WebKit's sandbox (bubblewrap): for a machine where it cannot "
        + "start, where pageheight otherwise measures without it and says so once. It confines the process that runs a "
        + "page's code, not the one that reads its files (docs/how-it-works.md)."

    /// The option with the switch `name`, if it is one of these.
    static func named(_ name: String) -> RunOption? {
        all.first { $0.switches.contains(name) }
    }

    /// Whether `command` takes it (`pageheight batch` takes what `pageheight` takes).
    func isTaken(by command: Command) -> Bool {
        help[command] != nil || (command == .batch && help[.measure] != nil)
    }

    /// Reads `given` into `settings` when it is one of these options; false when it is not.
    /// One that `command` does not take is a usage error that names who takes it.
    static func read(_ given: inout GivenOption, into settings: inout RunSettings, for command: Command) throws(UsageError) -> Bool {
        guard let option = named(given.name) else { return false }
        guard option.isTaken(by: command) else {
            let takers = Command.allCases.filter { option.help[$0] != nil }.map { "'\($0.name)'" }
            let list = takers.count > 1 ? takers.dropLast().joined(separator: ", ") + " and " + takers.last! : takers.joined()
            throw UsageError("'\(given.name)' is an option of \(list)")
        }
        try option.read(&given, &settings)
        return true
    }

    /// Checks the ranges of the options `command` takes.
    static func validate(_ settings: RunSettings, for command: Command) throws(UsageError) {
        for option in all where option.isTaken(by: command) { try option.validate(settings) }
    }

    /// The help lines of the options `command` takes (for `batch`, only its own).
    static func helpLines(for command: Command) -> String {
        all.compactMap { option in option.help[command].map { HelpText.entry(option.synopsis, $0) } }.joined(separator: "\n")
    }
}
