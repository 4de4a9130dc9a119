import Foundation
import PageHeightCore
import PageHeightServe
import PageHeightWebKit
import Synchronization

/// `pageheight serve [options]`: starts the engine, serves until SIGTERM or SIGINT, drains, and
/// exits 0; a second signal ends the process at once (128 + the signal).
func runServe(_ arguments: [String]) async -> Int32 {
    let parsed: ServeArguments
    switch parseSubcommand(ServeArguments.self, arguments, .serve) {
    case .exit(let code): return code
    case .run(let arguments): parsed = arguments
    }
    let settings: ServeSettings
    do throws(UsageError) {
        settings = try parsed.settings()
    } catch {
        return subcommandUsageError(error.message, usage: ServeArguments.usage)
    }
    // The engine's processes open files under `--pages-dir` only (pages sent as html read none).
    let files = FileJail.Access(readable: settings.pagesDirectory.map { [$0] } ?? [])
    guard let engine = startEngine(for: settings.defaults, sandbox: parsed.sandbox, files: files) else { return 70 }
    let server = PageServer(settings: settings, engine: engine)
    let signals = installServeSignalHandlers(server)
    defer { signals.forEach { $0.cancel() } }
    return await server.run()
}

/// SIGTERM and SIGINT for the server: the first drains it, a second ends the process at once.
/// The sources must be kept while the server runs.
private func installServeSignalHandlers(_ server: PageServer) -> [DispatchSourceSignal] {
    let seen = Atomic<Int>(0)
    return [SIGINT, SIGTERM].map { signo in
        signal(signo, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
        source.setEventHandler {
            if seen.add(1, ordering: .relaxed).newValue == 1 { server.stop(signal: signo) } else { PageHeightEngine.exit(128 + signo) }
        }
        source.resume()
        return source
    }
}
