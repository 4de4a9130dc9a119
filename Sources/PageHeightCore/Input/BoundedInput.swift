import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads an input the user names but whose size and end nobody vouches for (a page on standard
/// input, a batch list, a cookies file, a suite): at most `limit` bytes, and, given a deadline,
/// only until then. `/dev/zero`, a pipe that never closes and a file of gigabytes end in a
/// `Failure` that says which, not in memory or time without end.
///
/// Blocking reads on the caller's thread: the command line reads its inputs before the engine
/// starts.
package enum BoundedInput {
    package enum Failure: Error, Equatable {
        /// The input holds more than `limit` bytes.
        case tooLarge(limit: Int)
        /// It had not ended `seconds` after the read began (`read` bytes by then).
        case noEnd(seconds: Double, read: Int)
        /// open(2), poll(2) or read(2) failed with this errno.
        case unreadable(errno: Int32)
    }

    /// Reads `descriptor` to its end: at most `limit` bytes, within `seconds` when given.
    package static func read(descriptor: Int32, limit: Int, seconds: Double? = nil) throws(Failure) -> Data {
        let deadline = seconds.map { monotonicNow() + $0 }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let deadline {
                let left = deadline - monotonicNow()
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let polled = left <= 0 ? 0 : poll(&ready, 1, Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
                if polled < 0 && errno == EINTR { continue }
                if polled < 0 { throw .unreadable(errno: errno) }
                if polled == 0 { throw .noEnd(seconds: seconds!, read: data.count) }
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, limit + 1 - data.count)) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) {
                if errno == EAGAIN && deadline == nil { wait(for: descriptor) }
                continue
            }
            if count < 0 { throw .unreadable(errno: errno) }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            if data.count > limit { throw .tooLarge(limit: limit) }
        }
    }

    /// Reads the file at `path`: at most `limit` bytes (a regular file's size is checked before
    /// anything is read). A pipe or a device is read as it comes, to its end or to the limit.
    package static func read(path: String, limit: Int) throws(Failure) -> Data {
        // Without blocking: a FIFO without a writer would hold open(2) for ever.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .unreadable(errno: errno) }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { throw .unreadable(errno: EISDIR) }
            if info.st_mode & S_IFMT == S_IFREG, info.st_size > off_t(limit) { throw .tooLarge(limit: limit) }
        }
        return try read(descriptor: descriptor, limit: limit)
    }

    /// `bytes` as people read a limit: `32 MiB`, `128 KiB`, `900 bytes`.
    package static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    private static func wait(for descriptor: Int32) {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, -1)
    }

    private static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
