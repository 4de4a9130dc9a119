import CPageHeightShim
import CWebKit
import Foundation

/// Whether the web processes run in WebKit's sandbox, as the engine found when it started.
public enum SandboxState: Sendable, Equatable {
    /// Each web process runs in a bubblewrap sandbox of its own.
    case on
    /// The caller turned it off (`--no-sandbox`).
    case off
    /// Asked for, but it cannot start here: why (bubblewrap's own words when it ran). The web
    /// processes run without it.
    case unavailable(String)
}

/// WebKit's bubblewrap sandbox around each web process (`webkit_web_context_set_sandbox_enabled`),
/// on unless the caller turns it off.
///
/// It confines the web process, which runs the page's code: a mount namespace that shows `/usr`,
/// `/etc`, parts of `/sys`, a `/dev` and `/tmp` of its own, the X display's socket, the font,
/// theme and sound paths WebKit chooses under `$HOME` where they exist, and the paths the engine
/// adds (read-only: the files of ours the web process reads, the EGL vendor library, `--font-dir`);
/// a network namespace of its own (no network: its requests go through the network process), a
/// process namespace of its own, no new privileges, and WebKit's seccomp filter. WebKit runs its
/// D-Bus proxy in one too.
///
/// It does not confine the network process, which WebKit starts outside it: that process reads a
/// file page's subresources and talks to the network, so what a page may read is decided by its
/// content filters (`BoundaryFilters`), which the web process applies, and by what the engine's
/// processes can open at all: with `FileJail`, the system and the pages' folders only.
///
/// Run as root, bubblewrap makes no user namespace and hands root's capabilities to the web
/// process. Every process started once the sandbox is asked for (bubblewrap's check, then
/// WebKit's processes) starts with every capability but `keptCapabilities` out of its bounding
/// set (`ph_confine_children`, in the child, before its exec): those bubblewrap needs to build the
/// sandbox, which the web process then still holds, and those this process's other children used
/// before. No thread of this process changes (a thread that narrowed its own set handed it to the
/// threads it started, the concurrency runtime's among them, and to what they started).
///
/// WebKit ends this process (a GLib error) when bubblewrap cannot start, so `begin` runs it first
/// with the namespaces and mounts WebKit asks for.
enum WebProcessSandbox {
    /// Where WebKitGTK runs them from (Debian's package names them when it is built).
    static let bubblewrap = "/usr/bin/bwrap"
    static let dbusProxy = "/usr/bin/xdg-dbus-proxy"

    /// WebKit's escape hatch, read by the library: set, it starts no sandbox whatever it was asked.
    static let disablingVariable = "WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS"

    /// The capabilities (bit numbers of `capabilities(7)`) a process started with the sandbox on
    /// may hold: bubblewrap run as root needs CAP_SYS_ADMIN (namespaces, mounts) and CAP_NET_ADMIN
    /// (the loopback of the new network namespace); the network process reads a page's files as
    /// root does (CAP_DAC_OVERRIDE); a run of pageheight that the engine starts (tests) may still
    /// put its thread first and page its processes out (CAP_SYS_NICE). Dropped, among others:
    /// CAP_DAC_READ_SEARCH (`open_by_handle_at` reaches files outside a mount namespace),
    /// CAP_SYS_PTRACE, CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_MKNOD, CAP_BPF, CAP_SETUID.
    static let keptCapabilities: [Int] = [1 /* DAC_OVERRIDE */, 12 /* NET_ADMIN */, 21 /* SYS_ADMIN */, 23 /* SYS_NICE */]

    /// What bubblewrap is given to check that it can start here: the namespaces, mounts and
    /// filter WebKit asks for its web processes and its D-Bus proxy, around `true`.
    static let probeArguments = ["--die-with-parent", "--unshare-pid", "--unshare-uts", "--unshare-net", "--unshare-ipc",
                                 "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                                 "--", "true"]

    /// Decides whether the web processes get the sandbox; call on the engine's thread before
    /// WebKit starts any process. When `asked`, narrows the thread's capability bounding set and
    /// runs bubblewrap once; returns at once, and the returned function, called once `DISPLAY`
    /// is set, waits for bubblewrap's answer and checks the display (so the caller sets up other
    /// things meanwhile).
    static func begin(asked: Bool) -> () -> SandboxState {
        guard asked else { return { .off } }
        let environment = ProcessInfo.processInfo.environment
        if environment[disablingVariable] != nil {
            return { .unavailable("\(disablingVariable) is set in the environment") }
        }
        for (path, package) in [(bubblewrap, "bubblewrap"), (dbusProxy, "xdg-dbus-proxy")] where access(path, X_OK) != 0 {
            return { .unavailable("\(path) is missing (apt-get install \(package))") }
        }
        // Every process of WebKit's started from now on (bubblewrap's check first); without
        // CAP_SETPCAP the drop is refused, and such a user has no capability to hand on. A program
        // whose spawns the shim cannot see narrows the engine's thread instead.
        let keep = keptCapabilities.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
        if ph_children_confinable() != 0 { ph_confine_children(keep) } else { _ = ph_narrow_this_thread(keep) }
        guard let child = TiedChild.spawn([bubblewrap] + probeArguments, errorsToo: true) else {
            return { .unavailable("\(bubblewrap) could not be run") }
        }
        return {
            guard let result = child.end(timeout: 10) else { return .unavailable("\(bubblewrap) did not end within 10 s") }
            guard result.status == 0 else {
                return .unavailable(result.firstLine.isEmpty ? "\(bubblewrap) failed with status \(result.status)" : result.firstLine)
            }
            return displayProblem(ProcessInfo.processInfo.environment["DISPLAY"] ?? "").map { .unavailable($0) } ?? .on
        }
    }

    /// Why a web process in the sandbox could not open `display` (a `DISPLAY` value), or nil:
    /// WebKit shows it the display's socket in `/tmp/.X11-unix` for a local display (`:N`) and no
    /// network, so a display over TCP (`host:N`, as SSH forwards it) or one whose socket file is
    /// gone (an abstract socket, which the sandbox's network namespace hides, is all that is left)
    /// would end every web process.
    static func displayProblem(_ display: String) -> String? {
        let number = display.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard display.hasPrefix(":"), !number.isEmpty else {
            return "the display '\(display)' is not a local one (:N), and the sandbox has no network"
        }
        let socket = "/tmp/.X11-unix/X\(number)"
        return access(socket, F_OK) == 0 ? nil : "the display's socket \(socket) is missing"
    }

    /// Turns the sandbox on for `context`'s web processes when `state` is `.on`, showing them
    /// `paths` read-only. Call before the context starts its first web process (WebKit ends the
    /// process otherwise). Paths that do not exist are left out by WebKit; the root and what lies
    /// under `/proc`, `/sys` and `/dev` it refuses, and so are they here.
    static func apply(_ state: SandboxState, to context: UnsafeMutablePointer<WebKitWebContext>, exposing paths: [String]) {
        guard state == .on else { return }
        webkit_web_context_set_sandbox_enabled(context, 1)
        for path in paths where isExposable(path) {
            webkit_web_context_add_path_to_sandbox(context, path, 1)
        }
    }

    /// Whether WebKit lets `path` into a sandbox: absolute, and its first component (as WebKit
    /// splits it: `//x` has an empty one) neither empty (`/`) nor `proc`, `sys` or `dev`.
    static func isExposable(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard path.hasPrefix("/"), components.count > 1 else { return false }
        return !["", "proc", "sys", "dev"].contains(components[1])
    }
}
