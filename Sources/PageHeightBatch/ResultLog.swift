import Foundation
import PageHeightCore
#if canImport(Glibc)
import Glibc
#endif

/// The batch's JSON Lines output: one report a line, written with one `write(2)` as soon as its
/// page finishes, so a killed batch keeps everything it measured.
///
/// The file is opened in place with `open(2)` and never renamed over: a path that is a pipe,
/// a device or a link is written through, as a shell redirection would. A regular file is
/// locked (`flock`) for the run, so a second batch on the same output is refused rather than
/// mixing or discarding lines, and is written in append mode.
///
/// With `resume`, an existing file is read first: the indexes it holds are done, and a last line
/// cut off by a kill (one without its newline that does not parse) is removed. Any other line
/// that is not a result is kept and listed (`unreadable`), for `ResumeCheck` to refuse.
public final class ResultLog: @unchecked Sendable {
    private let fd: Int32
    private let name: String
    private let lock = NSLock()
    /// Set once a write failed: later writes fail at once, so nothing is claimed as written.
    private var failure: OutputError?
    /// Lines written by this run (guarded by `lock`).
    private var count = 0
    /// How many results this run has written so far.
    public var written: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
    /// List indexes already in the file when it was opened for resuming.
    public let done: Set<Int>
    /// Whether a half-written last line was found and removed.
    public let repaired: Bool
    /// What each result already in the file says about how it was made (for `ResumeCheck`).
    public let recorded: [ResumeCheck.Recorded]
    /// The lines (from 1) already in the file that are not results: no JSON object with an index.
    public let unreadable: [Int]

    /// Opens `path` for writing: emptied, or kept and appended to when `resume`.
    public init(path: String, resume: Bool) throws(OutputError) {
        var existing = stat()
        if resume, stat(path, &existing) == 0, existing.st_mode & S_IFMT != S_IFREG {
            throw OutputError.cannotResume(path) // before open(2), which waits for a pipe's reader
        }
        // Without blocking: a pipe with no reader would hold open(2) for ever; then as usual.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard fd >= 0 else { throw OutputError.cannotOpen(path, errno: errno) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var info = stat()
        fstat(fd, &info)
        let regular = info.st_mode & S_IFMT == S_IFREG
        var done: Set<Int> = []
        var repaired = false
        var recorded: [ResumeCheck.Recorded] = []
        var unreadable: [Int] = []
        if regular {
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                throw OutputError.inUse(path)
            }
            if resume {
                let data = Self.contents(of: path)
                var keep = data.count
                if !data.isEmpty, data.last != UInt8(ascii: "\n") {
                    let start = data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
                    if (try? JSONSerialization.jsonObject(with: data[start...])) is [String: Any] {
                        _ = Glibc.write(fd, "\n", 1) // complete, only its newline was missing
                    } else {
                        keep = start
                        repaired = true
                    }
                }
                for (number, line) in data.prefix(keep).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
                where !line.isEmpty {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                          let index = object["index"] as? Int else {
                        unreadable.append(number + 1)
                        continue
                    }
                    done.insert(index)
                    let options = (object["options"]).flatMap { try? JSONSerialization.data(withJSONObject: $0) }
                    recorded.append(ResumeCheck.Recorded(index: index, url: object["url"] as? String ?? "",
                                                         options: options.map { String(decoding: $0, as: UTF8.self) } ?? "{}",
                                                         status: (object["status"] as? String).flatMap { PageStatus(rawValue: $0) },
                                                         seconds: Self.wallSeconds(object["timings"] as? [String: Any]),
                                                         line: number + 1))
                }
                if repaired { ftruncate(fd, off_t(keep)) }
            } else {
                ftruncate(fd, 0)
            }
        } else if resume {
            close(fd)
            throw OutputError.cannotResume(path)
        }
        self.fd = fd
        self.name = path
        self.done = done
        self.repaired = repaired
        self.recorded = recorded
        self.unreadable = unreadable
    }

    /// Standard output as the log (nothing to resume).
    public init(standardOutput: Void = ()) {
        fd = STDOUT_FILENO
        name = "standard output"
        done = []
        repaired = false
        recorded = []
        unreadable = []
    }

    deinit {
        if fd != STDOUT_FILENO { close(fd) }
    }

    /// Waits for a write in progress and holds back every later one, for good: call it before
    /// the process exits on a signal, so that the file ends with whole lines. Returns how many
    /// results this run wrote.
    public func stopWriting() -> Int {
        lock.lock()
        return count
    }

    /// Appends one line with one write(2): once it returns, a `kill -9` cannot lose it. Throws
    /// when the line could not be written whole (a full disk, a closed pipe), and from then on.
    public func write(_ line: String) throws(OutputError) {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let error = OutputError.writeFailed(name, errno: written < 0 ? errno : EIO)
                failure = error
                throw error
            }
            bytes = bytes.dropFirst(written)
        }
        count += 1
    }

    private static func contents(of path: String) -> Data {
        FileManager.default.contents(atPath: path) ?? Data()
    }

    /// A recorded report's wall-clock seconds (`Timings.wallSeconds`), from its `timings` object.
    static func wallSeconds(_ timings: [String: Any]?) -> Double? {
        (timings?["realTotal"] as? Double) ?? (timings?["total"] as? Double)
    }
}

/// Why results could not be written.
public enum OutputError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(String, errno: Int32)
    /// Another process holds the output's lock (another batch writing it).
    case inUse(String)
    /// `--resume` on something that is not a regular file (a pipe, a device).
    case cannotResume(String)
    case writeFailed(String, errno: Int32)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            if code == ENOENT {
                "cannot write '\(path)': the directory '\((path as NSString).deletingLastPathComponent)' does not exist"
            } else if code == ENXIO {
                "cannot write '\(path)': it is a pipe (FIFO) that nothing reads; start its reader first"
            } else if code == EISDIR {
                "cannot write '\(path)': it is a directory"
            } else {
                "cannot write '\(path)': \(String(cString: strerror(code)))"
            }
        case .inUse(let path): "'\(path)' is being written by another pageheight (it holds the file's lock)"
        case .cannotResume(let path): "--resume needs a regular file, and '\(path)' is not one"
        case .writeFailed(let path, let code): "writing to \(path) failed: \(String(cString: strerror(code)))"
        }
    }

    /// The write failed because the reader went away (a closed pipe): the conventional quiet end.
    public var isBrokenPipe: Bool {
        if case .writeFailed(_, let code) = self { return code == EPIPE }
        return false
    }
}
