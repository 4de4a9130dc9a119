import Foundation
import PageHeightBatch
import PageHeightCore
import PageHeightRegression
import PageHeightWebKit

/// `pageheight [options] <page>...`: parse, validate, run.
func run() async -> Int32 {
    let arguments: CommandLineArguments
    do {
        arguments = try CommandLineArguments.parse(Array(CommandLine.arguments.dropFirst()))
        try arguments.validate()
    } catch {
        return usageError(error.message)
    }
    if arguments.help {
        StandardOutput.line(HelpText.help)
        return 0
    }
    if arguments.version {
        StandardOutput.line(HelpText.version)
        return 0
    }

    let template: ReaderTemplate?
    do {
        template = try arguments.template.map { try RegressionSuite.TemplateChoice($0, relativeTo: FileManager.default.currentDirectoryPath).load() }
    } catch {
        return usageError("\(error)")
    }

    if arguments.command == .batch { return await runBatch(arguments, template: template) }

    var sources: [PageSource] = []
    for page in arguments.pages {
        do {
            let source = try PageSource.parse(page, standardInput: { try PageSource.readStandardInput(seconds: arguments.options.timeout) })
            if let template {
                guard case .file(let path) = source else { return usageError("'--template' takes pages that are files (article fragments), not \(page)") }
                if let warning = ReaderTemplate.wholeDocumentWarning(path) { StandardError.write("warning: \(warning)\n") }
                sources.append(try template.page(forFragmentAt: path))
            } else {
                sources.append(source)
            }
        } catch let error as InputError {
            return usageError("\(error)")
        } catch {
            return usageError("\(error)")
        }
    }

    guard let engine = startEngine(for: arguments.options, sandbox: arguments.run.sandbox) else { return 70 }

    var allOK = true
    for (index, source) in sources.enumerated() {
        let verbose = arguments.verbose
        let prefix = sources.count > 1 ? "[\(index + 1)] " : ""
        let report = await engine.measure(source, options: arguments.options, snapshot: arguments.snapshot) { line in
            if verbose { StandardError.write(prefix + line + "\n") }
        }
        if report.status != .ok || (report.steps ?? []).contains(where: { $0.status != .ok }) { allOK = false }
        if let error = report.snapshotError {
            StandardError.write("\(prefix)Error: the snapshot \(arguments.snapshot ?? "") was not written: \(error)\n")
            allOK = false
        }
        if sources.count > 1, arguments.json {
            StandardOutput.line(ReportEncoding.jsonLine(report))
        } else if arguments.json {
            StandardOutput.line(ReportEncoding.prettyJSON(report))
        } else if sources.count > 1 {
            StandardOutput.line(arguments.pages[index] + ": " + SummaryLine.format(report))
        } else {
            StandardOutput.line(SummaryLine.format(report))
        }
    }
    return allOK ? 0 : 1
}

/// The process's engine, rendering with the fonts, at the device scale and in the languages of
/// `options`, its web processes in WebKit's sandbox unless `sandbox` is false; or nil after
/// saying on stderr why it could not start (exit 70). Where the sandbox was asked for and cannot
/// start, says so on stderr, once: the engine goes on without it.
func startEngine(for options: MeasureOptions, sandbox: Bool) -> PageHeightEngine? {
    let engine: PageHeightEngine
    do {
        engine = try PageHeightEngine.shared(fonts: options.fonts ?? FontChoice(), scale: options.deviceProfile.engineScale,
                                             languages: options.languages ?? MeasureOptions.defaultLanguages,
                                             families: DeviceFonts.of(options.deviceProfile.name), sandbox: sandbox)
    } catch {
        StandardError.write("Error: the engine could not start: \(error)\n")
        return nil
    }
    if case .unavailable(let reason) = engine.sandbox {
        StandardError.write("warning: the web processes run without a sandbox: it cannot start here (\(reason)); "
            + "--no-sandbox runs them so without this warning\n")
    }
    return engine
}

func usageError(_ message: String) -> Int32 {
    StandardError.write("Error: \(message)\n\(HelpText.usage)\n\(HelpText.hint)\n")
    return 64
}

/// `pageheight batch [options] <list>`.
func runBatch(_ arguments: CommandLineArguments, template: ReaderTemplate?) async -> Int32 {
    var list: PageList
    do {
        list = try PageList.read(arguments.pages[0])
    } catch {
        return usageError("the list: \(error)")
    }
    let total = list.entries.count
    if let shard = arguments.shard { list = shard.slice(list) }
    let log: ResultLog
    if let out = arguments.out {
        do {
            log = try ResultLog(path: out, resume: arguments.resume)
        } catch {
            return usageError("\(error)")
        }
    } else {
        log = StandardOutput.log
    }
    if arguments.resume, let out = arguments.out,
       let mismatch = ResumeCheck.mismatch(log.recorded, list: list, options: arguments.options, unreadable: log.unreadable) {
        return usageError("--resume: \(out) cannot be resumed by this command: \(mismatch)")
    }
    let remaining = list.entries.filter { !log.done.contains($0.index) }
    if arguments.resume {
        StandardError.write("resuming: \(log.done.count) pages already in \(arguments.out!), "
            + "\(remaining.count) to go\(log.repaired ? "; a cut-off last line was removed" : "")\n")
    }
    if let shard = arguments.shard, list.entries.isEmpty {
        // Not an error: a short list leaves some shards nothing.
        StandardError.write("shard \(shard): none of the list's \(total) pages falls into this shard; nothing to do\n")
        return 0
    }
    if let shard = arguments.shard, arguments.progress != false {
        StandardError.write("shard \(shard): \(list.entries.count) of \(total) pages\n")
    }
    guard let engine = startEngine(for: arguments.options, sandbox: arguments.run.sandbox) else { return 70 }
    let display = ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
    PageHeightEngine.onDisplayLost { [out = arguments.out] in
        let resume = out.map { _ in "; `\(ShellWords.resumeCommand(CommandLine.arguments))` measures the rest" } ?? ""
        StandardError.write("\nError: the display \(display) went away (was its Xvfb killed?): the engine cannot "
            + "go on; \(log.written) of \(remaining.count) results were written\(resume)\n")
    }
    let progress = RunProgress(total: remaining.count, unit: "page",
                               display: arguments.run.progressDisplay(terminal: isatty(STDERR_FILENO) == 1))
    Interruption.shared.onSignal { [out = arguments.out] in
        let written = log.stopWriting()
        progress.finish()
        let resume = out.map { _ in "; `\(ShellWords.resumeCommand(CommandLine.arguments))` measures the rest" } ?? ""
        var lines = ["interrupted: " + progress.line()]
        if let notOK = progress.notOKText { lines.append(notOK) }
        lines.append("\(written) results were written\(out.map { " to \($0)" } ?? "")\(resume)")
        StandardError.write("\n" + lines.joined(separator: "\n") + "\n")
    }
    let pageSteps: @Sendable (Int, String) -> Void = { index, line in
        StandardError.write("[\(index)] \(line)\n")
    }
    let runner = BatchRunner(engine: engine, options: arguments.options, jobs: arguments.jobs ?? BatchRunner.defaultJobs,
                             retries: arguments.retries, template: template, log: log, progress: progress,
                             steps: arguments.verbose ? pageSteps : nil) { error, summary in
        let resume = arguments.out.map { _ in "; `\(ShellWords.resumeCommand(CommandLine.arguments))` continues" } ?? ""
        StandardOutput.fail(error, note: "\(summary.done) results were written before it\(resume)")
    }
    var summary = await runner.run(remaining)
    if arguments.resume {
        // The exit status and the summary describe the whole file, not only this run's pages.
        let names = Dictionary(list.entries.map { ($0.index, $0.page) }, uniquingKeysWith: { first, _ in first })
        summary = summary.including(log.recorded.filter { names[$0.index] != nil }, names: names, total: list.entries.count)
    }
    if arguments.progress != false || !remaining.isEmpty || arguments.resume {
        StandardError.write(summary.text + "\n")
    }
    return summary.notOK == 0 ? 0 : 1
}

/// SIGINT and SIGTERM exit at once with 128 + the signal. Our Xvfb follows (PR_SET_PDEATHSIG),
/// WebKit's children follow when their connection closes. Not `exit`: its handlers would race
/// with the engine's thread; and not stopping Xvfb first: GTK would exit(1) on the lost display.
/// A command that runs long says first (`Interruption.shared.onSignal`) what to print then: the
/// summary so far, how to go on.
func installSignalHandlers() -> [DispatchSourceSignal] {
    [(SIGINT, Int32(130)), (SIGTERM, Int32(143))].map { signo, code in
        signal(signo, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
        source.setEventHandler {
            Interruption.shared.report()
            PageHeightEngine.exit(code)
        }
        source.resume()
        return source
    }
}

/// What to print when SIGINT or SIGTERM ends the run: set by the command running, called once
/// on the signal's queue just before the exit.
final class Interruption: @unchecked Sendable {
    static let shared = Interruption()
    private let lock = NSLock()
    private var body: (@Sendable () -> Void)?

    func onSignal(_ body: @escaping @Sendable () -> Void) { lock.withLock { self.body = body } }

    func report() {
        let body = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { self.body = nil }
            return self.body
        }
        body?()
    }
}

let subcommand = CommandLine.arguments.dropFirst().first
// The subcommands that measure many pages at once, several views at a time, run with the C
// library's malloc (`SystemMalloc`): they start again for it, before anything else. A single
// page has no contention to save, and its start would take longer.
if subcommand == "batch" || subcommand == "check" || subcommand == "sweep" || subcommand == "serve" { SystemMalloc.restart() }
// The server drains on its signals (`runServe`); every other command ends at once.
let signalSources = subcommand == "serve" ? [] : installSignalHandlers()
// A closed pipe is an error of write(2) (EPIPE), answered by StandardOutput, not a signal.
signal(SIGPIPE, SIG_IGN)
let code = subcommand == "check" ? await runCheck(Array(CommandLine.arguments.dropFirst(2)))
    : subcommand == "sweep" ? await runSweep(Array(CommandLine.arguments.dropFirst(2)))
    : subcommand == "replay" ? runReplay(Array(CommandLine.arguments.dropFirst(2)))
    : subcommand == "tune" ? runTune(Array(CommandLine.arguments.dropFirst(2)))
    : subcommand == "serve" ? await runServe(Array(CommandLine.arguments.dropFirst(2)))
    : await run()
if fflush(nil) != 0 { // every stream: standard output is the one written to
    StandardOutput.fail(.writeFailed("standard output", errno: errno), note: nil)
}
// Our Xvfb goes with the process (PR_SET_PDEATHSIG); killing it first would make GTK exit(1) on
// the lost display. `_exit` skips exit handlers that would race with the engine's thread.
PageHeightEngine.exit(code)
