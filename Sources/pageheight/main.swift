import Foundation
import PageHeight

/// `pageheight [options] <page>...`: parse, validate, run.
func run() async -> Int32 {
    let arguments: CommandLineArguments
    do {
        arguments = try CommandLineArguments.parse(Array(CommandLine.arguments.dropFirst()))
        try arguments.validate()
    } catch {
        FileHandle.standardError.write(Data("Error: \(error.message)\n\(HelpText.usage)\n\(HelpText.hint)\n".utf8))
        return 64
    }
    if arguments.help {
        print(HelpText.help)
        return 0
    }
    if arguments.version {
        print(HelpText.version)
        return 0
    }

    var sources: [PageSource] = []
    for page in arguments.pages {
        do {
            sources.append(try PageSource.parse(page))
        } catch let error as InputError {
            FileHandle.standardError.write(Data("Error: \(error)\n\(HelpText.usage)\n\(HelpText.hint)\n".utf8))
            return 64
        } catch {
            return 64
        }
    }

    let engine: PageHeightEngine
    do {
        engine = try PageHeightEngine.shared()
    } catch {
        FileHandle.standardError.write(Data("Error: the engine could not start: \(error)\n".utf8))
        return 70
    }

    var allOK = true
    for (index, source) in sources.enumerated() {
        let verbose = arguments.verbose
        let prefix = sources.count > 1 ? "[\(index + 1)] " : ""
        let report = await engine.measure(source, options: arguments.options, snapshot: arguments.snapshot) { line in
            if verbose { FileHandle.standardError.write(Data((prefix + line + "\n").utf8)) }
        }
        if report.status != .ok { allOK = false }
        if sources.count > 1 {
            print(ReportEncoding.jsonLine(report))
        } else if arguments.json {
            print(ReportEncoding.prettyJSON(report))
        } else {
            print(SummaryLine.format(report))
        }
        fflush(stdout)
    }
    return allOK ? 0 : 1
}

/// SIGINT and SIGTERM exit at once with 128 + the signal. Our Xvfb follows (PR_SET_PDEATHSIG),
/// WebKit's children follow when their connection closes. Not `exit`: its handlers would race
/// with the engine's thread; and not stopping Xvfb first: GTK would exit(1) on the lost display.
func installSignalHandlers() -> [DispatchSourceSignal] {
    [(SIGINT, Int32(130)), (SIGTERM, Int32(143))].map { signo, code in
        signal(signo, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
        source.setEventHandler {
            _exit(code)
        }
        source.resume()
        return source
    }
}

let signalSources = installSignalHandlers()
let code = await run()
fflush(stdout)
// Our Xvfb goes with the process (PR_SET_PDEATHSIG); killing it first would make GTK exit(1) on
// the lost display. `_exit` skips exit handlers that would race with the engine's thread.
_exit(code)
