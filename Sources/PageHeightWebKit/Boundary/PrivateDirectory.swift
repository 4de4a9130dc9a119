import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Everything pageheight writes for itself (the web contexts' files, the session bus's
/// configuration and socket, the EGL vendor's description, the compiled content filter, the
/// sandbox's runtime files) lives in
/// one directory of its own: `pageheight-<pid>-XXXXXX` in the temporary directory, made by
/// `mkdtemp` (mode 0700, a name no other user can guess or plant beforehand), checked to be ours,
/// and removed at exit. No file of ours sits at a fixed path in a shared `/tmp`, where another
/// local user could have put their own first. It is removed at exit by an `atexit` hook; a process
/// that ends with `_exit` ends through `PageHeightEngine.exit`.
///
/// Pages never write into it: every view is ephemeral, with a data store of its own in memory.
/// Made on the GLib thread as the engine starts; `remove` may be called from any thread.
enum PrivateDirectory {
    private static let prefix = "pageheight-"
    nonisolated(unsafe) private static var made: String?

    /// The directory; made on first use. A failure to make it is an engine error: nothing falls
    /// back to a shared path. Directories of ours left by runs whose process is gone (killed
    /// before they could remove theirs) are removed first.
    static func path() throws -> String {
        if let made { return made }
        let parent = temporaryParent()
        sweep(parent)
        var template = Array("\(parent)/\(prefix)\(getpid())-XXXXXX".utf8CString)
        guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            let reason = String(cString: strerror(errno))
            throw EngineError.privateDirectoryFailed("cannot make a private directory in \(parent): \(reason)"
                + " (set TMPDIR to a writable directory)")
        }
        let path = String(cString: result)
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
              info.st_mode & 0o077 == 0 else {
            throw EngineError.privateDirectoryFailed("\(path) is not a directory that only this user can enter")
        }
        made = path
        // Removed when the process ends through `exit` or by returning from `main`, without the
        // caller knowing to ask.
        atexit { PrivateDirectory.remove() }
        return path
    }

    /// `web-process` inside it: what the web processes read of ours (the fonts' configuration, the
    /// EGL vendor's description, GStreamer's registry), the one part of the directory their
    /// sandbox shows them, read-only (`WebProcessSandbox`). Made on first use.
    static func webProcessFiles() throws -> String { try subdirectory("web-process") }

    /// `runtime` inside it: the user runtime directory (`XDG_RUNTIME_DIR`) of WebKit's processes
    /// when the environment names none, where the sandbox's D-Bus proxy puts its sockets and
    /// bubblewrap its start-up records (GLib's fallback is `~/.cache`). Made on first use.
    static func runtime() throws -> String { try subdirectory("runtime") }

    private static func subdirectory(_ name: String) throws -> String {
        let path = try self.path() + "/" + name
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw EngineError.privateDirectoryFailed("cannot make \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            throw EngineError.privateDirectoryFailed("\(path) is not a directory of ours")
        }
        return path
    }

    /// Removes the directory if this process made it. Safe to call more than once, from any thread.
    static func remove() {
        guard let path = made else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `TMPDIR`, else `/tmp`, without a trailing slash.
    private static func temporaryParent() -> String {
        var parent = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
        return parent
    }

    /// Removes the directory of `process`, a process of ours that is gone (an engine process that
    /// died by a signal, or was killed, before it could remove its own).
    static func removeLeft(by process: pid_t) {
        sweep(temporaryParent(), only: process)
    }

    /// Removes `pageheight-<pid>-XXXXXX` (and the older `pageheight-webkit-<pid>`) directories
    /// in `parent` whose process is gone (that of `only`, when given), when they belong to this
    /// user and are real directories.
    private static func sweep(_ parent: String, only: pid_t? = nil) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] {
            guard let pid = ownerProcess(of: name), only == nil || pid == only, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let path = parent + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// The process id in one of our directory names, or nil for any other name.
    static func ownerProcess(of name: String) -> pid_t? {
        guard name.hasPrefix(prefix) else { return nil }
        var rest = name.dropFirst(prefix.count)
        if rest.hasPrefix("webkit-") { return pid_t(rest.dropFirst("webkit-".count)) }
        guard let dash = rest.firstIndex(of: "-"), rest.distance(from: dash, to: rest.endIndex) == 7 else { return nil }
        rest = rest[..<dash]
        return pid_t(rest)
    }
}
