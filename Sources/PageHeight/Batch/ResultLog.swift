import Foundation

/// The batch's JSON Lines output: one report a line, written and flushed as soon as its page
/// finishes, so a killed batch keeps everything it measured.
///
/// With `resume`, an existing file is read first: the indexes it holds are done, and a
/// half-written last line (the batch was killed while writing it) is cut off.
public final class ResultLog: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    /// List indexes already in the file when it was opened for resuming.
    public let done: Set<Int>
    /// Whether a half-written last line was found and removed.
    public let repaired: Bool

    /// Opens `path` for writing: truncated, or kept and appended to when `resume`.
    public init(path: String, resume: Bool) throws {
        var done: Set<Int> = []
        var repaired = false
        if resume, let data = FileManager.default.contents(atPath: path) {
            var keep = data.count
            if !data.isEmpty, data.last != UInt8(ascii: "\n") {
                keep = (data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? 0
                repaired = true
            }
            for line in data.prefix(keep).split(separator: UInt8(ascii: "\n")) {
                if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                   let index = object["index"] as? Int {
                    done.insert(index)
                }
            }
            if repaired { truncate(path, off_t(keep)) }
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw InputError.unreadable(path)
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw InputError.unreadable(path) }
        handle.seekToEndOfFile()
        self.handle = handle
        self.done = done
        self.repaired = repaired
    }

    /// Standard output as the log (nothing to resume).
    public init(standardOutput: Void = ()) {
        handle = FileHandle.standardOutput
        done = []
        repaired = false
    }

    /// Appends one line with one write(2): once it returns, a `kill -9` cannot lose it.
    public func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        handle.write(Data((line + "\n").utf8))
    }
}
