import CPageHeightShim
import Foundation
import Synchronization

/// A process of this program that runs the engine for another one, its supervisor: the same
/// executable and arguments, with `roleVariable` in its environment. It reads its work on standard
/// input, to the end, and writes one line a message on descriptor `messageDescriptor`; its
/// standard error is the supervisor's.
///
/// The supervisor never starts the engine itself: a signal that ends the engine's process (a crash
/// inside WebKit, on its GLib thread) ends only that process, and the supervisor sees which
/// signal it was and what the process had said before.
///
/// Each process has a thread of its own in the supervisor, which starts it (so that it is sent
/// SIGTERM if the supervisor dies: the kernel ties that to the thread that forked), writes its
/// input, reads its messages and reaps it; `events` ends with the way the process ended.
public final class EngineProcess: Sendable {
    /// Set to "1" in the environment of a start of this program that is an engine process.
    public static let roleVariable = "PAGEHEIGHT_ENGINE_PROCESS"
    /// The descriptor an engine process writes its messages on.
    public static let messageDescriptor: Int32 = 3

    /// The private memory past which an engine process starts no more pages and hands the rest
    /// to a new one. What WebKit's UI side keeps of a page (its session history's state objects,
    /// the messages that carried them) is not all given back when the page is done: pages that
    /// flood `history.pushState` with large states grew one process by about 70 MB each, and the
    /// process counts in the whole tree's memory budget, where it would have cost its
    /// neighbours' web processes.
    /// `PAGEHEIGHT_ENGINE_RENEWAL_MB` sets it (tests, machines shared with other work).
    public static let renewalMemory: Int = {
        if let text = ProcessInfo.processInfo.environment["PAGEHEIGHT_ENGINE_RENEWAL_MB"], let megabytes = Int(text), megabytes > 0 {
            return megabytes << 20
        }
        return 1 << 30
    }()

    /// Whether this process has grown past `renewalMemory`.
    public static var isDueForRenewal: Bool { (WebProcesses.privateMemory(getpid()) ?? 0) > renewalMemory }

    /// How an engine process ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// What the supervisor hears from the process: each line it wrote, then how it ended.
    public enum Event: Sendable, Equatable {
        case line(String)
        case ended(Termination)
    }

    public let pid: Int32
    /// The process's lines in order, then its end; the stream finishes after that.
    public let events: AsyncStream<Event>
    /// Set by the process's thread once it is reaped.
    private let reaped: Reaped

    private init(pid: Int32, events: AsyncStream<Event>, reaped: Reaped) {
        self.pid = pid
        self.events = events
        self.reaped = reaped
    }

    /// Starts this program's executable again with `arguments` (the program name first), this
    /// process's environment with `environment` over it and `roleVariable` set, and `input` on
    /// its standard input. Its standard output goes to /dev/null: what it has to say goes through
    /// its messages. Throws when it could not be started.
    public static func start(arguments: [String], environment: [String: String], input: Data) throws -> EngineProcess {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw EngineError.engineProcessFailed("this program's executable could not be found (/proc/self/exe)")
        }
        var inherited = ProcessInfo.processInfo.environment
        for (name, value) in environment { inherited[name] = value }
        inherited[roleVariable] = "1"
        let variables = inherited
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let started = Mutex<Result<Int32, EngineError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let reaped = Reaped()
        let thread = Thread {
            var inputPipe: [Int32] = [0, 0], messagePipe: [Int32] = [0, 0]
            guard pipe(&inputPipe) == 0 else {
                started.withLock { $0 = .failure(.engineProcessFailed("no pipe: \(String(cString: strerror(errno)))")) }
                ready.signal(); return
            }
            guard pipe(&messagePipe) == 0 else {
                close(inputPipe[0]); close(inputPipe[1])
                started.withLock { $0 = .failure(.engineProcessFailed("no pipe: \(String(cString: strerror(errno)))")) }
                ready.signal(); return
            }
            // This process starts no other meanwhile: close-on-exec set after pipe(2) is enough.
            for fd in inputPipe + messagePipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
            let pid = ph_spawn_engine_process(executable, &argv, &envp, inputPipe[0], devNull, messagePipe[1])
            let spawnError = errno
            argv.forEach { free($0) }
            envp.forEach { free($0) }
            close(inputPipe[0])
            close(messagePipe[1])
            close(devNull)
            guard pid > 0 else {
                close(inputPipe[1]); close(messagePipe[0])
                started.withLock { $0 = .failure(.engineProcessFailed("it could not be started: \(String(cString: strerror(spawnError)))")) }
                ready.signal(); return
            }
            started.withLock { $0 = .success(pid) }
            ready.signal()
            // The input first, whole: the process reads it to the end before anything else. A
            // process that died first leaves EPIPE here (SIGPIPE is ignored), and its end is read below.
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(inputPipe[1], bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(inputPipe[1])
            Self.readLines(from: messagePipe[0]) { continuation.yield(.line($0)) }
            close(messagePipe[0])
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7f
            let end: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            if signal != 0 { PrivateDirectory.removeLeft(by: pid) }
            reaped.termination.withLock { $0 = end }
            continuation.yield(.ended(end))
            continuation.finish()
        }
        thread.name = "pageheight-engine-process"
        thread.start()
        ready.wait()
        switch started.withLock({ $0 })! {
        case .failure(let error): throw error
        case .success(let pid): return EngineProcess(pid: pid, events: stream, reaped: reaped)
        }
    }

    /// How the process ended, shared by its thread (which reaps it) and the process's handle.
    private final class Reaped: Sendable {
        let termination = Mutex<Termination?>(nil)
    }

    /// Calls `body` with every line read from `fd` until its end; a last line without its newline
    /// (the writer died in the middle of it) is dropped.
    private static func readLines(from fd: Int32, _ body: (String) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            pending.append(contentsOf: buffer[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                body(String(decoding: pending[start..<newline], as: UTF8.self))
                start = newline + 1
            }
            pending.removeFirst(start)
        }
    }

    /// Whether the process has ended and been reaped.
    public var hasEnded: Bool { reaped.termination.withLock { $0 } != nil }

    /// Asks the process to end (SIGTERM: it ends its own processes and removes its files) and
    /// waits for it, at most `seconds`; then kills it (SIGKILL). Returns once it has ended or
    /// after that kill.
    public func stop(within seconds: Double) {
        guard !hasEnded else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while !hasEnded, Date() < deadline { usleep(10_000) }
        if !hasEnded { kill(pid, SIGKILL) }
    }
}
