import CPageHeightShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files the engine's processes may open, when the caller names them: what a page can read
/// however its requests are spelled and whatever the content filters let through.
///
/// WebKit's sandbox confines the web processes, but a file page's subresources are read by the
/// network process, which WebKit starts outside it, as this process's user. The jail closes that:
/// before WebKit starts any process, a thread of the engine's (`Warden`) builds a mount namespace
/// whose root shows only
///
/// - the system (`/usr`, `/etc` without the accounts' files, `/sys`, `/dev`, `/proc`, the font
///   caches), read-only, except `/dev` and `/proc`;
/// - the X display's sockets and the engine's private directory, read-write, and the display's
///   authority file (`XAUTHORITY`, `~/.Xauthority`) read-only;
/// - the folders the caller names: read-only (`readable`: a template's), read-write (`writable`:
///   where pictures are written), and each page's folder, read-only, while that page is measured
///   (`pages`, `PageFolders`);
///
/// and nothing else: not `$HOME`, not the accounts (`/etc/passwd`, `/etc/shadow`, `/etc/group`
/// show this user only), not the other folders of the machine. Every process WebKit starts from
/// then on (the network process, the web processes, their sandbox, its D-Bus proxy) starts in it
/// (`ph_jail_children`). No other thread of this process enters it: the engine's, the caller's
/// and the concurrency runtime's keep the machine's view.
///
/// A mount namespace needs CAP_SYS_ADMIN: as another user the jail is `unavailable`, and the engine
/// says so once.
public enum FileJail {
    /// What the caller lets the engine's processes reach.
    public struct Access: Sendable, Equatable {
        /// Folders shown read-only for the whole run (a template's, a server's pages folder).
        public var readable: [String]
        /// Folders shown read-write (where snapshots are written).
        public var writable: [String]
        /// The pages' folders: each shown while a page of its is measured (`PageFolders`), or
        /// read-only for the whole run where the kernel cannot mount in the jail later. A page's
        /// own folders are shown for it whether or not they are named here.
        public var pages: [String]

        public init(readable: [String], writable: [String] = [], pages: [String] = []) {
            self.readable = readable
            self.writable = writable
            self.pages = pages
        }
    }

    /// Whether the engine's files are confined, as the engine found when it started.
    public enum State: Sendable, Equatable {
        case on
        /// Not asked for (no `Access`, or the sandbox turned off).
        case off
        /// Asked for, but it cannot be set up here: why.
        case unavailable(String)
    }

    /// The system's folders shown read-only, where they exist.
    static let systemFolders = ["/usr", "/etc", "/sys", "/var/cache/fontconfig"]
    /// Top-level names that are symbolic links into `/usr` on a merged system, or folders of their own.
    static let systemRoots = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
    /// The accounts' files, shown with this user's line only.
    static let accountFiles = ["passwd", "group", "shadow", "gshadow"]

    /// Moves the calling thread (the warden's) into the jail: call before WebKit starts a
    /// process, after Xvfb is up. `privateDirectory` is the engine's own (read-write, and where the new root
    /// is built). Returns the state.
    static func enter(_ access: Access, privateDirectory: String) -> (State, PageFolders?) {
        guard geteuid() == 0 else {
            return (.unavailable("confining the engine's files needs root's CAP_SYS_ADMIN (a mount namespace); "
                + "this user's pages may read any file this user can"), nil)
        }
        let root = privateDirectory + "/jail"
        let accounts = privateDirectory + "/accounts"
        let probe = privateDirectory + "/probe"
        do {
            try writeAccounts(into: accounts)
            // Whether a folder copied out here can be mounted in the jail later (`PageFolders`).
            try makeFolder(probe)
            let probeTree = ph_detached_read_only_tree(probe)
            defer { if probeTree >= 0 { close(probeTree) } }
            // This thread's own namespace: the process's other threads keep theirs.
            try check(ph_unshare_mounts(), "unshare")
            try check(mount("none", "/", nil, UInt(MS_REC | MS_PRIVATE), nil), "making / private")
            try makeFolder(root)
            var shown: [String: Bool] = [:] // path -> writable
            try check(mount("pageheight", root, "tmpfs", UInt(MS_NOSUID | MS_NODEV), "mode=0755,size=16m"), "tmpfs")
            for folder in systemFolders where exists(folder) {
                try bind(folder, into: root, readOnly: true, shown: &shown)
            }
            for name in systemRoots {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: name) {
                    try check(symlink(target, root + name), "symlink \(name)")
                } else if exists(name) {
                    try bind(name, into: root, readOnly: true, shown: &shown)
                }
            }
            for name in accountFiles where exists("/etc/" + name) {
                try check(mount(accounts + "/" + name, root + "/etc/" + name, nil, UInt(MS_BIND), nil), "/etc/\(name)")
            }
            try bind("/dev", into: root, readOnly: false, shown: &shown)
            try bind("/proc", into: root, readOnly: false, shown: &shown)
            // An empty folder where `$HOME` is: WebKit resolves it (and ends this process when it
            // cannot) as it adds a path to its sandbox.
            if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/"), home != "/" {
                try makeFolder(root + home)
            }
            try makeFolder(root + "/tmp")
            _ = chmod(root + "/tmp", 0o1777)
            for folder in ["/tmp/.X11-unix", privateDirectory] + runtimeFolders() where exists(folder) {
                try bind(folder, into: root, readOnly: false, shown: &shown)
            }
            for file in xAuthority() where exists(file) {
                try bind(file, into: root, readOnly: true, shown: &shown)
            }
            var perPage = false
            if probeTree >= 0 {
                try makeFolder(root + "/.probe")
                perPage = ph_attach_tree(probeTree, root + "/.probe") == 0
                if perPage { _ = umount2(root + "/.probe", Int32(MNT_DETACH)) }
                _ = rmdir(root + "/.probe")
            }
            let readable = access.readable + (perPage ? [] : access.pages)
            for folder in readable.sorted(by: { $0.count < $1.count }) where exists(folder) {
                try bind(folder, into: root, readOnly: true, shown: &shown)
            }
            for folder in access.writable.sorted(by: { $0.count < $1.count }) where exists(folder) {
                try bind(folder, into: root, readOnly: false, shown: &shown)
            }
            try makeFolder(root + "/.old")
            try check(ph_pivot_root(root, root + "/.old"), "pivot_root")
            try check(chdir("/"), "chdir")
            try check(umount2("/.old", Int32(MNT_DETACH)), "detaching the old root")
            _ = rmdir("/.old")
            return (.on, perPage ? PageFolders(fixed: Array(shown.keys)) : nil)
        } catch {
            return (.unavailable("\(error)"), nil)
        }
    }

    /// The X display's authority file (`XAUTHORITY`, else `~/.Xauthority`), which GTK reads as it
    /// opens a display of the caller's (WebKit's sandbox shows it to the web processes too).
    private static func xAuthority() -> [String] {
        let environment = ProcessInfo.processInfo.environment
        if let file = environment["XAUTHORITY"], file.hasPrefix("/") { return [file] }
        return environment["HOME"].map { [$0 + "/.Xauthority"] } ?? []
    }

    /// The user runtime directory the environment names, if any: WebKit's D-Bus proxy puts its
    /// sockets there.
    private static func runtimeFolders() -> [String] {
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return [] }
        return [runtime]
    }

    /// `folder` (its real path) shown at its own path, and at its real path when that differs.
    private static func bind(_ folder: String, into root: String, readOnly: Bool, shown: inout [String: Bool]) throws {
        let real = (try? realPath(folder)) ?? folder
        for spelling in Set([folder, real]) {
            // Already shown, under a folder shown before as writable as this one needs.
            if shown.contains(where: { (path, writable) in
                (spelling == path || spelling.hasPrefix(path == "/" ? "/" : path + "/")) && (readOnly || writable)
            }) { continue }
            let target = root + spelling
            var info = stat()
            if lstat(target, &info) != 0 {
                if isFolder(real) { try makeFolder(target) } else { try makeFile(target) }
            }
            try check(mount(real, target, nil, UInt(MS_BIND | MS_REC), nil), "showing \(folder)")
            if readOnly {
                try check(mount(nil, target, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV), nil),
                          "making \(folder) read-only")
            }
            shown[spelling] = !readOnly
        }
    }

    /// This user's lines of the accounts' files, in `folder`.
    private static func writeAccounts(into folder: String) throws {
        try makeFolder(folder)
        let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        let group = getgrgid(getegid()).map { String(cString: $0.pointee.gr_name) } ?? user
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/"
        let lines = [
            "passwd": "\(user):x:\(geteuid()):\(getegid())::\(home):/usr/sbin/nologin\n",
            "group": "\(group):x:\(getegid()):\n",
            "shadow": "", "gshadow": "",
        ]
        for (name, text) in lines {
            let path = folder + "/" + name
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644]) else {
                throw Failure("cannot write \(path)")
            }
        }
    }

    private static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw Failure("\(path): \(String(cString: strerror(errno)))") }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Makes `path` and its parents as folders (in the new root: no link is followed there).
    private static func makeFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw Failure("cannot make \(path): \(error.localizedDescription)")
        }
    }

    private static func makeFile(_ path: String) throws {
        try makeFolder((path as NSString).deletingLastPathComponent)
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw Failure("cannot make \(path)") }
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else { throw Failure("\(what): \(String(cString: strerror(errno)))") }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
