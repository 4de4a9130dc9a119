import Foundation

/// Where the web contexts' own data manager keeps its files: `pageheight-webkit-<pid>` in the
/// temporary directory. WebKit puts a few files of its own there (salts, an empty HSTS store, an
/// empty disk cache); pages never write to it, as every view is ephemeral with a data store of
/// its own in memory. A non-ephemeral context is what gives each view that store: views of an
/// ephemeral context share the context's. GLib thread only, but `remove`.
enum ContextDirectory {
    private static let prefix = "pageheight-webkit-"
    nonisolated(unsafe) private static var made: String?

    /// The directory, made on first use. Directories left by runs whose process is gone (killed
    /// before they could remove theirs) are removed first.
    static func path() throws -> String {
        if let made { return made }
        let files = FileManager.default
        let parent = NSTemporaryDirectory()
        for name in (try? files.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? files.removeItem(atPath: parent + name)
        }
        let path = parent + prefix + String(getpid())
        try? files.removeItem(atPath: path) // a dead process of the same pid left it
        do {
            try files.createDirectory(atPath: path, withIntermediateDirectories: true,
                                      attributes: [.posixPermissions: 0o700])
        } catch {
            throw EngineError.contextFailed("cannot make \(path): \(error.localizedDescription)")
        }
        made = path
        return path
    }

    /// Removes the directory if this process made it. Safe to call more than once, from any thread.
    static func remove() {
        guard let path = made else { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}
