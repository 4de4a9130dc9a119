import Foundation
import PageHeightBatch
import PageHeightCore

/// The command line of `pageheight [options] <page>...`, parsed from `[String]` (pure) and
/// then validated; running it is the executable's job. The options it shares with other
/// subcommands (`RunOption`) are in `run`, and read as its own (`arguments.jobs`).
struct CommandLineArguments: RunOptionArguments, Equatable, Sendable {
    /// `pageheight <page>...` measures pages; `pageheight batch <list>` measures a list.
    enum Command: Equatable, Sendable { case measure, batch }

    var command = Command.measure
    var options = MeasureOptions()
    var pages: [String] = []
    var run = RunSettings()
    var snapshot: String?
    var version = false
    // batch only
    var out: String?
    var resume = false
    var retries = 0
    var shard: Shard?
    /// `--glob PATTERN`: of a directory list, only the files whose path below it matches.
    var glob: String?

    init() {}

    /// The options read here (besides the run and measuring options), for "did you mean".
    static let ownSwitches = ["--version", "--snapshot", "--out", "-o", "--resume", "--retries", "--fonts", "--font-dir", "--shard", "--glob"]

    var runOptionCommand: RunOption.Command { command == .batch ? .batch : .measure }

    /// Parses `arguments` (without the program name). Accepts `--name value` and `--name=value`;
    /// `--` ends the options.
    static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineArguments {
        var result = CommandLineArguments()
        var arguments = arguments
        if arguments.first == "batch" {
            result.command = .batch
            arguments.removeFirst()
        }
        var named: Set<String> = []
        try ArgumentScanner.scan(arguments, operand: { result.pages.append($0) }) { given throws(UsageError) in
            named.insert(given.name)
            if try RunOption.read(&given, into: &result.run, for: result.runOptionCommand) { return }
            switch given.name {
            case "--version": try given.flag(); result.version = true
            case "--snapshot": result.snapshot = try given.value()
            case "--out", "-o": result.out = try given.value()
            case "--resume": try given.flag(); result.resume = true
            case "--retries": result.retries = try given.integer()
            case "--glob": result.glob = try given.value()
            case "--fonts", "--font-dir": try FontChoice.read(&given, into: &result.options.fonts)
            case "--shard":
                result.shard = try given.value(Shard.init(parsing:), refusal: { "'--shard' takes K/N with 1 <= K <= N, e.g. 2/4; got '\($0)'" })
            default:
                guard let option = MeasuringOption.named(given.name) else {
                    throw UsageError.unknownOption(given.name, known: Self.ownSwitches + RunOption.all.flatMap(\.switches)
                        + MeasuringOption.allSwitches)
                }
                try option.read(&given, &result.options)
            }
            if result.command == .measure, Self.batchOptions.contains(given.name) {
                throw UsageError("'\(given.name)' is an option of 'pageheight batch'")
            }
        }
        result.options.takeDeviceViewport(keepingWidth: named.contains("--width"), keepingHeight: named.contains("--height"))
        return result
    }

    private static let batchOptions: Set = ["--out", "-o", "--resume", "--retries", "--shard", "--glob"]

    /// Checks ranges and combinations that parsing alone cannot.
    func validate() throws(UsageError) {
        if run.help || version { return }
        if command == .batch {
            guard pages.count == 1 else {
                throw UsageError(pages.isEmpty ? "missing list (a file of pages, a directory, or - for stdin)"
                    : "'pageheight batch' takes one list, got \(pages.count)")
            }
            if resume && out == nil { throw UsageError("'--resume' needs '--out FILE' (the output to continue)") }
            if snapshot != nil { throw UsageError("'--snapshot' takes one page; it is not an option of 'pageheight batch'") }
            try checkRange(retries, "--retries", 0...10)
        }
        try RunOption.validate(run, for: runOptionCommand)
        guard !pages.isEmpty else { throw UsageError("missing page (a file, a URL, or - for stdin)") }
        try MeasuringOption.validate(options)
        for directory in options.fonts?.directories ?? [] { try FontChoice.checkDirectory(directory) }
        if pages.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input ('-') can be read only once") }
        if let snapshot {
            guard pages.count == 1 else { throw UsageError("'--snapshot' takes one page, got \(pages.count)") }
            let directory = URL(fileURLWithPath: snapshot).deletingLastPathComponent().path
            guard isDirectory(directory) else {
                throw UsageError("'--snapshot': no such directory: \(directory)")
            }
        }
    }
}

