import CPageHeightShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The X display the engine renders into: `DISPLAY` when set, else an Xvfb of our own.
///
/// Our Xvfb picks a free display itself (`-displayfd`), is tied to the GLib thread with
/// `PR_SET_PDEATHSIG`, so it stops whenever the process ends, however it ends (even
/// `kill -9`). `stop()` stops it earlier, for a signal handler that then `_exit`s.
enum VirtualDisplay {
    nonisolated(unsafe) private static var xvfbPID: pid_t = 0

    /// Makes sure `DISPLAY` names a usable display; starts Xvfb when it is unset or empty.
    /// Call on the GLib thread.
    static func ensure() throws {
        if let display = ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty { return }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw EngineError.displayFailed("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let arguments = ["Xvfb", "-displayfd", "1", "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "-noreset"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let pid = ph_spawn_tied(&argv, fds[1], devNull)
        argv.forEach { free($0) }
        close(fds[1])
        close(devNull)
        guard pid > 0 else {
            close(fds[0])
            throw EngineError.displayFailed("could not start Xvfb: \(String(cString: strerror(errno)))")
        }
        xvfbPID = pid
        let number = readLine(from: fds[0], timeout: 10)
        close(fds[0])
        guard let number, !number.isEmpty, Int(number) != nil else {
            stop()
            throw EngineError.displayFailed("Xvfb did not start (is it installed? apt-get install xvfb)")
        }
        setenv("DISPLAY", ":\(number)", 1)
    }

    /// Stops our Xvfb, if we started one, and waits for it. Safe to call more than once.
    static func stop() {
        let pid = xvfbPID
        guard pid > 0 else { return }
        xvfbPID = 0
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) != 0 { return }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// The process id of our Xvfb (0 when none runs).
    static var processID: pid_t { xvfbPID }

    private static func readLine(from fd: Int32, timeout: Double) -> String? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var byte: UInt8 = 0
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready < 0 && errno != EINTR { return nil }
            if ready <= 0 { continue }
            let n = read(fd, &byte, 1)
            if n <= 0 { return nil }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
