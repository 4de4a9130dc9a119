import Foundation
import PageHeightBatch
import PageHeightCore
import PageHeightServe

/// `pageheight serve [options]`, parsed from `[String]` (without the subcommand word; pure),
/// then validated. Its measuring options are the defaults of every request.
struct ServeArguments: Equatable, Sendable {
    enum Command: Equatable, Sendable { case serve }

    var help = false
    var listen = ListenAddress.loopback
    var jobs: Int?
    var queue: Int?
    var tokenFile: String?
    var pagesDirectory: String?
    var maxBody: Int?
    var drain = 30.0
    /// `--no-sandbox` clears it: the web processes run without WebKit's sandbox.
    var sandbox = true
    var options = MeasureOptions()
    var operands: [String] = []

    static func parse(_ arguments: [String], command: Command) throws(UsageError) -> ServeArguments {
        var result = ServeArguments()
        var named: Set<String> = []
        try ArgumentScanner.scan(arguments, operand: { result.operands.append($0) }) { given throws(UsageError) in
            named.insert(given.name)
            switch given.name {
            case "-h", "--help": try given.flag(); result.help = true
            case "--listen":
                result.listen = try given.value(ListenAddress.init(parsing:), refusal: {
                    "'--listen' takes HOST:PORT with an IP address (127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080); got '\($0)'"
                })
            case "-j", "--jobs": result.jobs = try given.integer()
            case "--queue": result.queue = try given.integer()
            case "--token-file": result.tokenFile = try given.value()
            case "--pages-dir": result.pagesDirectory = try given.value()
            case "--max-body": result.maxBody = try given.integer()
            case "--drain": result.drain = try given.number()
            case "--no-sandbox": try given.flag(); result.sandbox = false
            case "--fonts", "--font-dir": try FontChoice.read(&given, into: &result.options.fonts)
            default:
                guard let option = MeasuringOption.named(given.name) else {
                    throw UsageError.unknownOption(given.name, known: ["--help", "--listen", "--jobs", "--queue", "--token-file",
                        "--pages-dir", "--max-body", "--drain", "--no-sandbox", "--fonts", "--font-dir"] + MeasuringOption.allSwitches)
                }
                if option.name == "--cookies" {
                    throw UsageError("'--cookies' is not an option of 'pageheight serve': a request sends its own \"cookies\"")
                }
                try option.read(&given, &result.options)
            }
        }
        result.options.takeDeviceViewport(keepingWidth: named.contains("--width"), keepingHeight: named.contains("--height"))
        return result
    }

    func validate() throws(UsageError) {
        if help { return }
        if let operand = operands.first { throw UsageError("'pageheight serve' takes no page, got '\(operand)': pages come in requests") }
        if let jobs { try checkRange(jobs, "--jobs", 1...64) }
        if let queue { try checkRange(queue, "--queue", 0...100_000) }
        if let maxBody { try checkRange(maxBody, "--max-body", 1024...1 << 30) }
        try checkRange(drain, "--drain", 0...3600)
        try MeasuringOption.validate(options)
        for directory in options.fonts?.directories ?? [] { try FontChoice.checkDirectory(directory) }
        if !listen.isLoopback, tokenFile == nil {
            throw UsageError("'--listen \(listen)' lets other machines connect: give '--token-file FILE' (clients then send "
                + "'Authorization: Bearer <token>')")
        }
        if let pagesDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: pagesDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("'--pages-dir': no such directory: \(pagesDirectory)")
            }
        }
    }

    /// The server's settings; reads the token file.
    func settings() throws(UsageError) -> ServeSettings {
        var settings = ServeSettings(jobs: jobs ?? BatchRunner.defaultJobs, queue: queue, defaults: options)
        settings.listen = listen
        settings.drainSeconds = drain
        if let maxBody { settings.limits.bodyBytes = maxBody }
        if let tokenFile {
            do throws(TokenError) { settings.token = try BearerToken.load(tokenFile) } catch { throw UsageError("'--token-file': \(error)") }
        }
        if let pagesDirectory {
            // Resolved once: a page is inside when its own resolved path is.
            settings.pagesDirectory = URL(fileURLWithPath: pagesDirectory).resolvingSymlinksInPath().standardizedFileURL.path
        }
        return settings
    }

    static let usage = "USAGE: pageheight serve [--listen HOST:PORT] [--jobs N] [--queue N] [options]"

    static var help: String {
        """
        OVERVIEW: Measures pages sent over HTTP, with engines started once and kept warm.

        POST /v1/measure with {"url": …} or {"html": …, "baseURL": …} (and "options", "steps"):
        the report that 'pageheight --json' prints. POST /v1/batch: JSON Lines in, JSON Lines out.
        GET /healthz, /readyz, /metrics. The API: docs/serve.md.

        \(usage)

        OPTIONS:
        \(HelpText.entry("--listen <host:port>", "The address to listen on, an IP address and a port (0: any free port). Beyond "
            + "loopback, --token-file is required. (default: 127.0.0.1:8080)"))
        \(HelpText.entry("-j, --jobs <n>", "Pages measured at once, as 'pageheight batch --jobs'. \(RunOption.jobsDefault)"))
        \(HelpText.entry("--queue <n>", "Pages that may wait for a job; past it a request is answered 429 with Retry-After. "
            + "(default: 8 per job)"))
        \(HelpText.entry("--token-file <file>", "Clients must send 'Authorization: Bearer <token>' with the token in this file "
            + "(at least 16 characters); /healthz and /readyz need none."))
        \(HelpText.entry("--pages-dir <dir>", "Let requests name local files (a path or a file: URL) under this directory; "
            + "without it, none."))
        \(HelpText.entry("--max-body <bytes>", "The largest request body; larger ones are answered 413. (default: 8388608)"))
        \(HelpText.entry("--drain <seconds>", "After SIGTERM or SIGINT, the time the requests in flight have to be answered "
            + "before the server exits 0. (default: 30)"))
        \(HelpText.entry("-h, --help", "Print this help."))

        MEASURING OPTIONS (the defaults of every request; a request's own "options" override them, its
        "timeout" is capped by --timeout; --device and --lang set the engine, one each per server):
        \(MeasuringOption.helpLines(except: ["--cookies"]))
          --fonts <mode>, --font-dir <dir>   As for 'pageheight'.
        """
    }
}

extension ServeArguments: SubcommandArguments {
    static func usage(of command: Command) -> String { usage }
    static func help(of command: Command) -> String { help }
}
