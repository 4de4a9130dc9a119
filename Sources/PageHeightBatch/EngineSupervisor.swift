import Foundation
import PageHeightCore
import PageHeightWebKit
import Synchronization

/// Runs a command's measuring in engine processes (`EngineProcess`) and outlives them: when one
/// dies by a signal (a crash inside WebKit), the page it was measuring is `crashed`, and another
/// process measures the pages after it.
///
/// What each process reports reaches the command as it comes (`measured`), so nothing already
/// measured is lost with a process. Which page a death belongs to: the pages that had started and
/// were not reported. One such page is `crashed` (after `retries` more deaths measuring it alone);
/// several (a batch with more than one job) are measured again one at a time first, so that only
/// the page that kills the engine again is `crashed`, and the others get their heights.
public final class EngineSupervisor: Sendable {
    /// How the run ended.
    public enum Outcome: Sendable, Equatable {
        /// Every page was reported.
        case completed
        /// An engine process ended with `code` before the pages were done (the engine could not
        /// start, its display went away: `fatal` says what it said): the command stops too.
        case stopped(code: Int32, fatal: String?)
        /// `stop()` was called: whoever called it ends the command.
        case interrupted
    }

    /// The program's arguments, the program name first: each engine process gets the same.
    private let arguments: [String]
    /// Variables set in each engine process's environment.
    private let environment: [String: String]
    private let retries: Int
    private let current = Mutex<(process: EngineProcess?, stopping: Bool)>((nil, false))

    public init(arguments: [String], environment: [String: String], retries: Int) {
        (self.arguments, self.environment, self.retries) = (arguments, environment, max(0, retries))
    }

    /// Measures `pages` in order.
    /// - Parameters:
    ///   - started: a page began (its index).
    ///   - measured: a page's result, in the order they come: an engine process's, or one made by
    ///     `crashed` for a page whose process died.
    ///   - crashed: the result of a page whose process died while measuring it: its `message`
    ///     names the signal, `seconds` is the time since the page started.
    public func run(_ pages: [MeasuringWork.Page], started: (Int) -> Void,
                    measured: (MeasuringMessage.Measured) async -> Void,
                    crashed: (_ page: MeasuringWork.Page, _ message: String, _ seconds: Double) -> MeasuringMessage.Measured) async -> Outcome {
        var waiting = pages            // not yet measured, in order
        var alone: [MeasuringWork.Page] = [] // in flight at a death with others: measured one at a time next
        var deaths: [Int: Int] = [:]   // by index: engine processes that died measuring the page alone
        var deathsWithoutProgress = 0
        while !waiting.isEmpty || !alone.isEmpty {
            let work = alone.isEmpty ? MeasuringWork(pages: waiting, alone: false) : MeasuringWork(pages: alone, alone: true)
            let process: EngineProcess
            do {
                process = try EngineProcess.start(arguments: arguments, environment: environment, input: work.data)
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                return .stopped(code: 70, fatal: nil)
            }
            let stopping = current.withLock { current in
                current.process = process
                return current.stopping
            }
            if stopping { process.stop(within: 2) }
            let (inFlight, reported, fatal, renewing, termination) = await follow(process, started: started, measured: measured)
            current.withLock { $0.process = nil }
            waiting.removeAll { reported.contains($0.index) }
            alone.removeAll { reported.contains($0.index) }
            if current.withLock({ $0.stopping }) { return .interrupted }
            guard case .signalled(let signal) = termination else {
                guard case .exited(let code) = termination, code == 0 || code == 1 else {
                    if case .exited(let code) = termination { return .stopped(code: code, fatal: fatal) }
                    return .stopped(code: 70, fatal: fatal)
                }
                let left = work.pages.filter { !reported.contains($0.index) }.count
                if left == 0 || (renewing && !reported.isEmpty) { continue } // the next part of the work; the rest, in a new process
                FileHandle.standardError.write(Data("Error: the engine's process ended with \(left) pages not measured\n".utf8))
                return .stopped(code: 70, fatal: nil)
            }
            let suspects = (alone + waiting).filter { inFlight[$0.index] != nil }
            if reported.isEmpty && suspects.isEmpty {
                deathsWithoutProgress += 1
                if deathsWithoutProgress >= 2 {
                    FileHandle.standardError.write(Data("Error: pageheight's engine process died (\(Self.name(of: signal))) twice before measuring any page\n".utf8))
                    return .stopped(code: 70, fatal: nil)
                }
            } else {
                deathsWithoutProgress = 0
            }
            waiting.removeAll { inFlight[$0.index] != nil }
            alone.removeAll { inFlight[$0.index] != nil }
            if work.alone || suspects.count == 1 {
                var again: [MeasuringWork.Page] = []
                for page in suspects {
                    let count = deaths[page.index, default: 0] + 1
                    deaths[page.index] = count
                    if count > retries {
                        var message = "pageheight's engine process died (\(Self.name(of: signal))) while measuring this page"
                        if retries > 0 { message += "; attempt \(count) of \(retries + 1)" }
                        let seconds = inFlight[page.index].map { Date().timeIntervalSince($0) } ?? 0
                        await measured(crashed(page, message, seconds))
                    } else {
                        again.append(page)
                    }
                }
                alone = again + alone
            } else {
                alone = suspects + alone
            }
        }
        return .completed
    }

    /// Follows `process` to its end, passing on the pages it starts and measures: the pages it was
    /// measuring when it ended (and since when), those it reported, its fatal message, and how it ended.
    private func follow(_ process: EngineProcess, started: (Int) -> Void, measured: (MeasuringMessage.Measured) async -> Void)
        async -> (inFlight: [Int: Date], reported: Set<Int>, fatal: String?, renewing: Bool, termination: EngineProcess.Termination) {
        var inFlight: [Int: Date] = [:]
        var reported: Set<Int> = []
        var fatal: String?
        var renewing = false
        var termination = EngineProcess.Termination.exited(70)
        for await event in process.events {
            switch event {
            case .line(let line):
                switch MeasuringMessage(line: line) {
                case .started(let index)?:
                    inFlight[index] = Date()
                    started(index)
                case .measured(let result)?:
                    inFlight[result.index] = nil
                    reported.insert(result.index)
                    await measured(result)
                case .fatal(let message)?:
                    fatal = message
                case .renewing?:
                    renewing = true
                case nil:
                    continue
                }
            case .ended(let end):
                termination = end
            }
        }
        return (inFlight, reported, fatal, renewing, termination)
    }

    /// Ends the engine process now (SIGTERM, then SIGKILL after two seconds) and starts no other;
    /// `run` then returns `interrupted`. For a signal that ends the command.
    public func stop() {
        let process = current.withLock { current in
            current.stopping = true
            return current.process
        }
        process?.stop(within: 2)
    }

    /// A signal's name as the kernel's headers spell it (`SIGSEGV`), or its number.
    static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
                                      SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGTRAP: "SIGTRAP",
                                      SIGSYS: "SIGSYS", SIGPIPE: "SIGPIPE", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT",
                                      SIGHUP: "SIGHUP", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGUSR1: "SIGUSR1",
                                      SIGUSR2: "SIGUSR2", SIGALRM: "SIGALRM"]
        return names[signal] ?? "signal \(signal)"
    }
}
