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

    // Measured in an engine process of their own, which this one outlives: a crash inside the
    // engine costs the page being measured, reported as `crashed`, and the pages after it go on.
    let supervisor = EngineSupervisor(arguments: CommandLine.arguments, environment: EngineEnvironment.variables(for: .measure),
                                      retries: 0)
    Interruption.shared.onSignal { supervisor.stop() }
    var allOK = true
    let pages = sources.enumerated().map { MeasuringWork.Page.source(index: $0.offset, $0.element) }
    let outcome = await supervisor.run(pages, started: { _ in }, measured: { result in
        if !result.ok { allOK = false }
        StandardOutput.line(result.output)
    }, crashed: { page, message, seconds in
        guard case .source(let index, let source) = page else { preconditionFailure("a single run's page is a source") }
        var report = ReportBuilder(url: source.url, session: MeasurementSession(options: arguments.options),
                                   end: .crashed(message), endedAt: seconds).build()
        report.options.fonts = arguments.options.fonts ?? FontChoice()
        return MeasuringMessage.Measured(index: index, status: report.status, seconds: seconds, ok: false,
                                         output: MeasureOutput.text(report, page: arguments.pages[index], of: arguments))
    })
    switch outcome {
    case .completed: return allOK ? 0 : 1
    case .stopped(let code, let fatal):
        if let fatal { StandardError.write("Error: \(fatal)\n") }
        return code
    case .interrupted: Interruption.shared.awaitExit()
    }
}

/// The process's engine, rendering with the fonts, at the device scale and in the languages of
/// `options`, its web processes in WebKit's sandbox unless `sandbox` is false; or nil after
/// saying on stderr why it could not start (exit 70). Where the sandbox was asked for and cannot
/// start, says so on stderr, once: the engine goes on without it.
///
/// `files` names the folders the engine's processes may open besides the system's (`FileJail`):
/// the pages' folders, where pictures are written. Nil leaves them this user's.
func startEngine(for options: MeasureOptions, sandbox: Bool, files: FileJail.Access? = nil) -> PageHeightEngine? {
    let engine: PageHeightEngine
    do {
        engine = try PageHeightEngine.shared(for: options, sandbox: sandbox, files: files)
    } catch {
        StandardError.write("Error: the engine could not start: \(error)\n")
        return nil
    }
    if case .unavailable(let reason) = engine.sandbox {
        StandardError.write("warning: the web processes run without a sandbox: it cannot start here (\(reason)); "
            + "--no-sandbox runs them so without this warning\n")
    }
    if case .unavailable(let reason) = engine.fileJail {
        StandardError.write("warning: the engine's files are not confined to the pages' folders: \(reason); "
            + "--no-sandbox runs without this warning\n")
    }
    return engine
}

func usageError(_ message: String) -> Int32 {
    StandardError.write("Error: \(message)\n\(HelpText.usage)\n\(HelpText.hint)\n")
    return 64
}

/// `pageheight batch [options] <list>`.
func runBatch(_ arguments: CommandLineArguments, template: ReaderTemplate?) async -> Int32 {
    let list: PageList, log: ResultLog, remaining: [PageList.Entry]
    switch openBatch(arguments) {
    case .measure(let opened, let openedLog, let left): (list, log, remaining) = (opened, openedLog, left)
    case .exit(let code): return code
    }
    let progress = RunProgress(total: remaining.count, unit: "page",
                               display: arguments.run.progressDisplay(terminal: isatty(STDERR_FILENO) == 1))
    let results = BatchResults(log: log, total: remaining.count, progress: progress) { error, summary in
        let resume = arguments.out.map { _ in "; `\(ShellWords.resumeCommand(CommandLine.arguments))` continues" } ?? ""
        StandardOutput.fail(error, note: "\(summary.done) results were written before it\(resume)")
    }
    // Measured in engine processes, which this one outlives: a crash inside the engine costs the
    // page it was measuring (`crashed`), and the batch goes on with the pages after it.
    let supervisor = EngineSupervisor(arguments: CommandLine.arguments, environment: EngineEnvironment.variables(for: .batch),
                                      retries: arguments.retries)
    Interruption.shared.onSignal { [out = arguments.out] in
        // Writing stops first: the engine process, ending, reads its web processes as crashed.
        let written = log.stopWriting()
        supervisor.stop()
        progress.finish()
        let resume = out.map { _ in "; `\(ShellWords.resumeCommand(CommandLine.arguments))` measures the rest" } ?? ""
        var lines = ["interrupted: " + progress.line()]
        if let notOK = progress.notOKText { lines.append(notOK) }
        lines.append("\(written) results were written\(out.map { " to \($0)" } ?? "")\(resume)")
        StandardError.write("\n" + lines.joined(separator: "\n") + "\n")
    }
    let names = Dictionary(list.entries.map { ($0.index, $0.page) }, uniquingKeysWith: { first, _ in first })
    let outcome = await supervisor.run(remaining.map { .entry($0) }, started: { index in
        results.started(index, name: names[index] ?? "")
    }, measured: { result in
        await results.record(result.output, index: result.index, name: names[result.index] ?? "", status: result.status,
                             seconds: result.seconds, waitedForNetwork: result.waitedForNetwork)
    }, crashed: { page, message, seconds in
        guard case .entry(let entry) = page else { preconditionFailure("a batch's page is a list entry") }
        let url = (try? PageSource.parse(entry.page, standardInput: { nil }))?.url ?? entry.page
        var report = ReportBuilder(url: url, session: MeasurementSession(options: arguments.options),
                                   end: .crashed(message), endedAt: seconds).build()
        report.options.fonts = arguments.options.fonts ?? FontChoice()
        report.index = entry.index
        return MeasuringMessage.Measured(index: entry.index, status: report.status, seconds: seconds, ok: false,
                                         output: ReportEncoding.jsonLine(report))
    })
    switch outcome {
    case .completed: break
    case .interrupted: Interruption.shared.awaitExit()
    case .stopped(let code, let fatal):
        progress.finish()
        let resume = arguments.out.map { _ in "; `\(ShellWords.resumeCommand(CommandLine.arguments))` measures the rest" } ?? ""
        if let fatal {
            StandardError.write("\nError: \(fatal); \(log.written) of \(remaining.count) results were written\(resume)\n")
        }
        return code
    }
    var summary = await results.finish()
    if arguments.resume {
        // The exit status and the summary describe the whole file, not only this run's pages.
        summary = summary.including(log.recorded.filter { names[$0.index] != nil }, names: names, total: list.entries.count)
    }
    if arguments.progress != false || !remaining.isEmpty || arguments.resume {
        StandardError.write(summary.text + "\n")
    }
    return summary.notOK == 0 ? 0 : 1
}

/// What a batch measures, or the exit status when it measures nothing.
enum BatchStart {
    /// The list (this shard of it), the result log, and the entries it has no result for yet.
    case measure(list: PageList, log: ResultLog, remaining: [PageList.Entry])
    /// A usage error (64), or nothing to do (0).
    case exit(Int32)
}

/// Reads the batch's list and opens its result log (`--out`, `--resume`), saying so on standard
/// error; checks that a resumed log belongs to this command.
func openBatch(_ arguments: CommandLineArguments) -> BatchStart {
    var list: PageList
    do {
        list = try PageList.read(arguments.pages[0], glob: arguments.glob)
    } catch {
        return .exit(usageError("the list: \(error)"))
    }
    let total = list.entries.count
    if let shard = arguments.shard { list = shard.slice(list) }
    let log: ResultLog
    if let out = arguments.out {
        do {
            log = try ResultLog(path: out, resume: arguments.resume)
        } catch {
            return .exit(usageError("\(error)"))
        }
    } else {
        log = StandardOutput.log
    }
    if arguments.resume, let out = arguments.out,
       let mismatch = ResumeCheck.mismatch(log.recorded, list: list, options: arguments.options, unreadable: log.unreadable) {
        return .exit(usageError("--resume: \(out) cannot be resumed by this command: \(mismatch)"))
    }
    let remaining = list.entries.filter { !log.done.contains($0.index) }
    if arguments.resume {
        StandardError.write("resuming: \(log.done.count) pages already in \(arguments.out!), "
            + "\(remaining.count) to go\(log.repaired ? "; a cut-off last line was removed" : "")\n")
    }
    if let shard = arguments.shard, list.entries.isEmpty {
        // Not an error: a short list leaves some shards nothing.
        StandardError.write("shard \(shard): none of the list's \(total) pages falls into this shard; nothing to do\n")
        return .exit(0)
    }
    if let shard = arguments.shard, arguments.progress != false {
        StandardError.write("shard \(shard): \(list.entries.count) of \(total) pages\n")
    }
    return .measure(list: list, log: log, remaining: remaining)
}

/// SIGINT and SIGTERM exit at once with 128 + the signal. Our Xvfb follows (PR_SET_PDEATHSIG),
/// WebKit's children follow when their connection closes. Not `exit`: its handlers would race
/// with the engine's thread; and not stopping Xvfb first: GTK would exit(1) on the lost display.
/// A command that runs long says first (`Interruption.shared.onSignal`) what to do then: end its
/// engine process (which ends its own processes the same way), print the summary so far and how
/// to go on.
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

    /// For a run that a signal stopped: the signal's handler ends the process, with its own exit
    /// status, once it has said its last words; this waits for that.
    func awaitExit() -> Never {
        while true { sleep(60) }
    }
}

// An engine process (`EngineProcess`), started by a run of this program that supervises it: the
// same arguments, its work on standard input.
if ProcessInfo.processInfo.environment[EngineProcess.roleVariable] == "1" {
    unsetenv(EngineProcess.roleVariable) // not for the processes it starts
    let engineSignalSources = installSignalHandlers()
    signal(SIGPIPE, SIG_IGN)
    let code = await runAsEngineProcess()
    withExtendedLifetime(engineSignalSources) { PageHeightEngine.exit(code) }
}
let subcommand = CommandLine.arguments.dropFirst().first
// The subcommands that measure many pages at once in this process, several views at a time, run
// with the C library's malloc (`SystemMalloc`): they start again for it, before anything else. A
// batch's engine processes start with it (`EngineEnvironment`). A single page has no contention
// to save, and its start would take longer.
if subcommand == "check" || subcommand == "sweep" || subcommand == "serve" { SystemMalloc.restart() }
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
