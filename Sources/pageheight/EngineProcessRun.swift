import Foundation
import Synchronization
import PageHeightBatch
import PageHeightCore
import PageHeightRegression
import PageHeightWebKit

/// This program as an engine process (`EngineProcess`): the run that supervises it parsed and
/// checked the same arguments and read the pages; this one reads its work on standard input,
/// starts the engine, measures, and tells each page's start and result on its message pipe,
/// formatted as the command prints it. Its own standard output is not the command's.
func runAsEngineProcess() async -> Int32 {
    let pipe = SupervisorPipe()
    let input = FileHandle.standardInput.readDataToEndOfFile()
    // What it starts (Xvfb, WebKit's processes) gets no end of the supervisor's pipe.
    let null = open("/dev/null", O_RDONLY)
    if null >= 0 {
        dup2(null, STDIN_FILENO)
        close(null)
    }
    let work: MeasuringWork
    let arguments: CommandLineArguments
    do {
        work = try MeasuringWork(data: input)
        arguments = try CommandLineArguments.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        StandardError.write("Error: the engine's process could not read its work: \(error)\n")
        return 70
    }
    let files = EngineFiles.access(for: work, arguments)
    guard let engine = startEngine(for: arguments.options, sandbox: arguments.run.sandbox, files: files) else { return 70 }
    let verbose = arguments.verbose
    switch arguments.command {
    case .batch:
        let template: ReaderTemplate?
        do {
            template = try arguments.template.map {
                try RegressionSuite.TemplateChoice($0, relativeTo: FileManager.default.currentDirectoryPath).load()
            }
        } catch {
            StandardError.write("Error: \(error)\n")
            return 70
        }
        let display = ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        PageHeightEngine.onDisplayLost {
            pipe.send(.fatal("the display \(display) went away (was its Xvfb killed?): the engine cannot go on"))
        }
        let pageSteps: @Sendable (Int, String) -> Void = { index, line in StandardError.write("[\(index)] \(line)\n") }
        let runner = BatchRunner(engine: engine, options: arguments.options, jobs: arguments.jobs ?? BatchRunner.defaultJobs,
                                 retries: arguments.retries, template: template, steps: verbose ? pageSteps : nil)
        let entries = work.pages.map { page -> PageList.Entry in
            guard case .entry(let entry) = page else { preconditionFailure("a batch's work is list entries") }
            return entry
        }
        // Past its memory mark, the process starts no more pages (after its first, so that each
        // process measures one at least) and the supervisor starts another for the rest.
        let renewing = Atomic(false), begun = Atomic(0)
        await runner.run(entries, alone: work.alone, stopStarting: {
            if renewing.load(ordering: .relaxed) { return true }
            guard begun.add(1, ordering: .relaxed).oldValue > 0, EngineProcess.isDueForRenewal else { return false }
            renewing.store(true, ordering: .relaxed)
            pipe.send(.renewing)
            return true
        }, started: { entry in
            pipe.send(.started(index: entry.index))
            TestCrash.ifAskedFor(entry.page)
        }, measured: { entry, report in
            pipe.send(.measured(.init(index: entry.index, report: report, ok: report.status == .ok,
                                      output: ReportEncoding.jsonLine(report))))
        })
    case .measure:
        for page in work.pages {
            guard case .source(let index, let source) = page else { preconditionFailure("a single run's work is page sources") }
            pipe.send(.started(index: index))
            TestCrash.ifAskedFor(source.url)
            let prefix = arguments.pages.count > 1 ? "[\(index + 1)] " : ""
            let report = await engine.measure(source, options: arguments.options, snapshot: arguments.snapshot) { line in
                if verbose { StandardError.write(prefix + line + "\n") }
            }
            var ok = report.status == .ok && !(report.steps ?? []).contains { $0.status != .ok }
            if let error = report.snapshotError {
                StandardError.write("\(prefix)Error: the snapshot \(arguments.snapshot ?? "") was not written: \(error)\n")
                ok = false
            }
            pipe.send(.measured(.init(index: index, report: report, ok: ok,
                                      output: MeasureOutput.text(report, page: arguments.pages[index], of: arguments))))
        }
    }
    return 0
}

/// For tests of the supervisor, which need a page that ends the engine's process by a signal
/// whatever the engine's bugs: with `PAGEHEIGHT_TEST_CRASH_URL` set, an engine process writes to
/// an address no process maps (SIGSEGV, as WebKit's own crashes are) as it starts a page whose URL
/// (or list entry) contains that text. Not `raise`: JavaScriptCore's handler returns from a
/// SIGSEGV that is not a fault.
enum TestCrash {
    static let marker = ProcessInfo.processInfo.environment["PAGEHEIGHT_TEST_CRASH_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static func ifAskedFor(_ page: String) {
        guard let marker, page.contains(marker) else { return }
        UnsafeMutablePointer<Int>(bitPattern: 0x48)!.pointee = 0
    }
}

/// The folders an engine process's pages may read (`FileJail`): each file page's folder, a
/// template's and its fragments'; and the folder its snapshot is written to.
enum EngineFiles {
    static func access(for work: MeasuringWork, _ arguments: CommandLineArguments) -> FileJail.Access {
        var readable: [String] = [], pages: [String] = []
        let here = FileManager.default.currentDirectoryPath
        if let template = arguments.template {
            readable.append((absolute(template, in: here) as NSString).deletingLastPathComponent)
        }
        for page in work.pages {
            switch page {
            case .source(_, let source):
                pages += source.readableFolders
            case .entry(let entry):
                if let source = try? PageSource.parse(entry.page, currentDirectory: here, standardInput: { nil }) {
                    pages += source.readableFolders
                }
            }
        }
        let writable = arguments.snapshot.map { [(absolute($0, in: here) as NSString).deletingLastPathComponent] } ?? []
        return FileJail.Access(readable: readable, writable: writable, pages: Array(Set(pages)).sorted())
    }

    private static func absolute(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent(path).standardizedFileURL.path
    }
}
