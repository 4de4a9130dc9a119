import Foundation
import PageHeightWebKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An engine process's end of its message pipe to its supervisor (`EngineProcess.messageDescriptor`):
/// each message one line, written with one `write(2)` at a time, so that the lines of pages
/// measured at once never interleave.
///
/// The descriptor is made close-on-exec when this is made: the processes the engine starts (Xvfb,
/// WebKit's) must not hold the pipe open, or the supervisor would not see its end when this
/// process dies.
public final class SupervisorPipe: Sendable {
    private let fd: Int32
    private let lock = Mutex(())

    public init(fd: Int32 = EngineProcess.messageDescriptor) {
        self.fd = fd
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// Sends `message`; a supervisor that is gone (EPIPE) is not an error here: it ended this
    /// process's reason to go on, and its death signal follows.
    public func send(_ message: MeasuringMessage) {
        var bytes = Array((message.line + "\n").utf8)[...]
        lock.withLock { _ in
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }
}
