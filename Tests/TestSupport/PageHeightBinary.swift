import Foundation

/// The built `pageheight` binary as the CLI and engine tests run it: without DISPLAY (it starts
/// its own Xvfb), with Swift's backtracer off (a crash must fail the test, not hang it), output to
/// files (a child that outlives the tool cannot hold the test's reads open), and killed after a
/// time limit.
///
/// This target does not import Testing: linked into the engine tests, it made the engine
/// thread's name (`Thread.current.name`) not reach the kernel. A run past its time limit throws
/// instead, which fails the test with the error's description.
public enum PageHeightBinary {
    /// The package's root directory.
    public static let root: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    /// PAGEHEIGHT_BINARY when set, else .build/debug/pageheight (what scripts/test builds).
    public static var url: URL {
        if let path = ProcessInfo.processInfo.environment["PAGEHEIGHT_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return root.appendingPathComponent(".build/debug/pageheight")
    }

    /// How one run ended and what it printed.
    public struct Run: Sendable {
        /// The exit status, or the signal's number when `signal` is set.
        public var status: Int32
        /// The signal that ended the process, if one did.
        public var signal: Int32?
        /// The caller's time limit passed and the process was killed (SIGKILL).
        public var timedOut: Bool
        public var stdout: String
        public var stderr: String
    }

    /// The time limit of a run whose caller gives none, in seconds.
    public static let defaultTimeLimit = 300.0

    /// A run without a time limit of its caller's went past `defaultTimeLimit` and was killed.
    public struct TimeLimitExceeded: Error, CustomStringConvertible {
        public var arguments: [String]
        public var stderr: String
        public var description: String {
            "pageheight \(arguments.joined(separator: " ")) did not end within \(Int(defaultTimeLimit)) s and was killed; "
                + "stderr ends: \(stderr.suffix(400))"
        }
    }

    /// Runs the binary on `arguments` to its end, or kills it at the time limit.
    /// - Parameters:
    ///   - stdin: what the binary reads on standard input (none: it reads an empty one).
    ///   - environment: variables to set over this process's; a nil value removes one.
    ///   - directory: the working directory (the package root by default).
    ///   - seconds: a time limit the caller judges: past it the process is killed and the run
    ///     says `timedOut`. Without one, the limit is `defaultTimeLimit` and passing it throws
    ///     `TimeLimitExceeded`.
    ///   - standardOutput: where stdout goes instead of the file the run's `stdout` is read from.
    ///   - executable: another program to run (a shell that runs the binary), the binary by default.
    ///   - during: called on another thread with the process id once it runs.
    public static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String?] = [:],
                           in directory: URL? = nil, within seconds: Double? = nil, standardOutput: FileHandle? = nil,
                           executable: URL? = nil, during: (@Sendable (Int32) -> Void)? = nil) throws -> Run {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-run-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        let outPath = files.appendingPathComponent("stdout"), errPath = files.appendingPathComponent("stderr")
        let inPath = files.appendingPathComponent("stdin")
        for path in [outPath, errPath] { _ = FileManager.default.createFile(atPath: path.path, contents: nil) }
        _ = FileManager.default.createFile(atPath: inPath.path, contents: Data((stdin ?? "").utf8))
        let out = try FileHandle(forWritingTo: outPath), err = try FileHandle(forWritingTo: errPath)
        let input = try FileHandle(forReadingFrom: inPath)
        defer {
            try? out.close()
            try? err.close()
            try? input.close()
        }
        let process = try start(arguments, environment: environment, in: directory, standardInput: input,
                                standardOutput: standardOutput ?? out, standardError: err, executable: executable)
        if let during {
            let pid = process.processIdentifier
            Thread.detachNewThread { during(pid) }
        }
        var end = exit(of: process, by: Date().addingTimeInterval(seconds ?? defaultTimeLimit))
        let timedOut = end == nil
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            end = exit(of: process, by: .distantFuture)
        }
        let run = Run(status: end!.status, signal: end!.signal, timedOut: timedOut,
                      stdout: (try? String(contentsOf: outPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: errPath, encoding: .utf8)) ?? "")
        if timedOut && seconds == nil { throw TimeLimitExceeded(arguments: arguments, stderr: run.stderr) }
        return run
    }

    /// How a process ended: its exit status, or the number of the signal that ended it.
    public struct Exit: Sendable, Equatable {
        public var status: Int32
        public var signal: Int32?
    }

    /// Waits for `process` (started by `start`) to end; nil if `deadline` passes first.
    ///
    /// Foundation hears of a child's end through SIGCHLD. In a test process that also runs the
    /// engine, GLib's child watch installs its own SIGCHLD handler, and a signal that reaches
    /// it never reaches Foundation: `waitUntilExit` then waits forever on a child that is long a
    /// zombie. So a child that stays a zombie for half a second is reaped here.
    public static func exit(of process: Process, by deadline: Date) -> Exit? {
        let pid = process.processIdentifier
        var zombieSince: Date?
        while Date() < deadline {
            if !process.isRunning {
                let signalled = process.terminationReason == .uncaughtSignal
                return Exit(status: process.terminationStatus, signal: signalled ? process.terminationStatus : nil)
            }
            if isZombie(pid) {
                let since = zombieSince ?? Date()
                zombieSince = since
                var status: Int32 = 0
                if Date().timeIntervalSince(since) > 0.5, waitpid(pid, &status, WNOHANG) == pid {
                    let signal = status & 0x7f
                    return signal == 0 ? Exit(status: (status >> 8) & 0xff, signal: nil) : Exit(status: signal, signal: signal)
                }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    /// Waits for `process` to end, however long it takes; its exit status (or signal number).
    public static func waitForExit(_ process: Process) -> Int32 {
        exit(of: process, by: .distantFuture)!.status
    }

    private static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// Starts the binary on `arguments` and returns at once; output goes nowhere unless given.
    public static func start(_ arguments: [String], environment: [String: String?] = [:], in directory: URL? = nil,
                             standardInput: FileHandle = .nullDevice, standardOutput: FileHandle = .nullDevice,
                             standardError: FileHandle = .nullDevice, executable: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = executable ?? url
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? root
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = nil
        variables["SWIFT_BACKTRACE"] = "enable=no"
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        return process
    }
}
