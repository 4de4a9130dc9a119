import CPageHeightShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The X display the engine renders into: `DISPLAY` when set, else an Xvfb of our own.
///
/// Our Xvfb picks a free display itself (`-displayfd`), is tied to the GLib thread with
/// `PR_SET_PDEATHSIG`, so it stops whenever the process ends, however it ends (even
/// `kill -9`). `stop()` stops it when the display it started proves unusable.
enum VirtualDisplay {
    nonisolated(unsafe) private static var xvfbPID: pid_t = 0

    /// Makes sure `DISPLAY` names a usable display; starts Xvfb when it is unset or empty.
    /// Returns at once; the returned function waits for Xvfb to say which display it took (so
    /// the caller sets up other things meanwhile). Call both on the GLib thread.
    static func begin() -> () throws -> Void {
        if let display = ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty { return {} }
        let child = TiedChild.spawn(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x1024x24", "-extension", "GLX",
                                     "-nolisten", "tcp", "-noreset"])
        return {
            guard let child, let number = child.firstLine(timeout: 10) else {
                throw EngineError.displayFailed("Xvfb did not start (is it installed? apt-get install xvfb)")
            }
            xvfbPID = child.pid
            guard Int(number) != nil else {
                stop()
                throw EngineError.displayFailed("Xvfb did not report a display number (it said '\(number)')")
            }
            EngineEnvironment.set("DISPLAY", ":\(number)")
        }
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
}

/// A private session bus for WebKit's processes when there is none, so a page that makes the
/// web process reach for it (settings portals, media) does not print D-Bus warnings; without
/// `dbus-daemon`, an address that fails at once (no autolaunch).
enum SessionBus {
    /// Starts the bus with its configuration and socket in `directory` (our private directory).
    /// Returns at once; the returned function waits for the bus's address. Call both on the GLib
    /// thread, before GTK starts.
    static func begin(in directory: String) -> () -> Void {
        if let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return {} }
        let unreachable = "unix:path=/nonexistent/pageheight-no-session-bus"
        // Our own configuration: no service directories, so nothing is ever activated on it
        // (the stock session config would start xdg-desktop-portal for a page that asks).
        let config = directory + "/session-bus.conf"
        let child = writeNew(config, busConfiguration(socketDirectory: directory))
            ? TiedChild.spawn(["dbus-daemon", "--config-file=\(config)", "--nofork", "--nopidfile", "--print-address=1"]) : nil
        return {
            if let address = child?.firstLine(timeout: 5), address.hasPrefix("unix:") {
                EngineEnvironment.set("DBUS_SESSION_BUS_ADDRESS", address)
            } else {
                EngineEnvironment.set("DBUS_SESSION_BUS_ADDRESS", unreachable)
            }
        }
    }

    /// Writes `text` to a file that must not exist yet (never through a link): false on any failure.
    private static func writeNew(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
}

private func busConfiguration(socketDirectory: String) -> String {
    let directory = socketDirectory.replacingOccurrences(of: "&", with: "&amp;")
        .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    return """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>session</type>
      <listen>unix:dir=\(directory)</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
      </policy>
    </busconfig>
    """
}

/// A helper process tied to the GLib thread (`PR_SET_PDEATHSIG`), whose first line of output
/// says where to find it.
struct TiedChild {
    let pid: pid_t
    /// The read end of its stdout.
    private let output: Int32

    /// Starts `arguments` with stdout on a pipe and stderr on /dev/null (on the same pipe with
    /// `errorsToo`); nil when it could not start.
    static func spawn(_ arguments: [String], errorsToo: Bool = false) -> TiedChild? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let pid = ph_spawn_tied(&argv, fds[1], errorsToo ? fds[1] : devNull)
        argv.forEach { free($0) }
        close(fds[1])
        close(devNull)
        guard pid > 0 else {
            close(fds[0])
            return nil
        }
        return TiedChild(pid: pid, output: fds[0])
    }

    /// The first line the child printed (call once); nil, and the child stopped, when it said
    /// nothing within `timeout` seconds.
    func firstLine(timeout: Double) -> String? {
        defer { close(output) }
        guard let line = Self.readLine(from: output, timeout: timeout), !line.isEmpty else {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return nil
        }
        return line
    }

    /// Waits for the child to end (call once, instead of `firstLine`): its exit status (a
    /// signal's number plus 128) and the first line it printed; nil, and the child stopped, when
    /// it had not ended within `timeout` seconds.
    func end(timeout: Double) -> (status: Int32, firstLine: String)? {
        let line = Self.readLine(from: output, timeout: timeout) ?? ""
        close(output)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return nil
            }
            usleep(1_000)
        }
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, line)
    }

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
