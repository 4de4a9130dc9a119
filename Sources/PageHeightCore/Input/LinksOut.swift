import Foundation

/// The entries under a directory a page may read (`SubresourceBoundary`) that a page must not
/// open through it: symbolic links that lead out of it, and entries that are not regular files or
/// directories. WebKit's content filter decides on URL text and the network process opens what
/// the path resolves to, so a link `out -> ../outside` or `root -> /` inside the page's directory
/// would let the page read, run and probe files elsewhere (a `load` event on `root/etc/shadow`
/// tells that it exists); a FIFO used as an image holds one of the network process's threads until
/// something writes to it, which stalls the pages beside it. The boundary blocks these paths
/// (`blockedPaths`) in every spelling the network process decodes to them.
///
/// A link is left open when it resolves inside the directory: to a regular file, or to a
/// directory that is not an ancestor of the link itself (a cycle) and under which no blocked
/// link lies (it would be an alias for that link's path). Every other link is blocked: outside,
/// dangling, looping, to a FIFO, socket or device. Names are bytes, as the file system keeps them
/// (a name need not be UTF-8). The directory itself is always listed whole (the entry types
/// `readdir` gives cost no `stat`); below it the walk visits at most `budget` entries, breadth
/// first, and a directory too large to walk (`complete` false) leaves the page only the files
/// directly in it.
package struct LinksOut: Sendable, Equatable {
    /// Paths relative to the directory, `/`-separated bytes, whose URLs the page must not load.
    package var blockedPaths: [[UInt8]]
    /// False when the walk stopped at its budget below the directory.
    package var complete: Bool

    package static let none = LinksOut(blockedPaths: [] as [[UInt8]], complete: true)

    package init(blockedPaths: [[UInt8]], complete: Bool) {
        self.blockedPaths = blockedPaths
        self.complete = complete
    }

    package init(blockedPaths: [String], complete: Bool) {
        self.init(blockedPaths: blockedPaths.map { Array($0.utf8) }, complete: complete)
    }

    /// The blocked paths as text (a name that is not UTF-8 shows replacement characters).
    package var blockedNames: [String] { blockedPaths.map { String(decoding: $0, as: UTF8.self) } }

    /// Walks `directory` (a path) for entries that leave it or cannot be read as files.
    package static func walk(_ directory: String, budget: Int = 20_000) -> LinksOut {
        guard let root = realPath(Array(directory.utf8)) else { return .none }
        var blocked: [[UInt8]] = []
        var directoryLinks: [(path: [UInt8], target: [UInt8], realParent: [UInt8])] = []
        var queue: [(relative: [UInt8], real: [UInt8])] = [([], root)]
        var visited = 0
        var index = 0
        while index < queue.count {
            let (relative, real) = queue[index]
            index += 1
            for (name, type) in entries(real) {
                if !relative.isEmpty {
                    visited += 1
                    if visited > budget { return LinksOut(blockedPaths: closed(blocked, directoryLinks, root: root), complete: false) }
                }
                let path = relative.isEmpty ? name : relative + [0x2f] + name
                let full = real + [0x2f] + name
                switch type ?? kind(full, follow: false) {
                case .link:
                    guard let target = realPath(full), inside(target, root) else { blocked.append(path); continue }
                    switch kind(target, follow: true) {
                    case .directory: directoryLinks.append((path, target, real))
                    case .file: break
                    default: blocked.append(path)
                    }
                case .directory:
                    queue.append((path, full))
                case .file:
                    break
                case .other, nil:
                    blocked.append(path)
                }
            }
        }
        return LinksOut(blockedPaths: closed(blocked, directoryLinks, root: root), complete: true)
    }

    private enum Kind { case file, directory, link, other }

    /// A directory's entries (not `.` and `..`), sorted by name, with their type when `readdir`
    /// knows it.
    private static func entries(_ directory: [UInt8]) -> [(name: [UInt8], type: Kind?)] {
        guard let stream = withCString(directory, { opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var found: [(name: [UInt8], type: Kind?)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in Array(bytes.prefix { $0 != 0 }) }
            if name == [0x2e] || name == [0x2e, 0x2e] { continue }
            let type: Kind? = switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): .file
            case Int32(DT_DIR): .directory
            case Int32(DT_LNK): .link
            case Int32(DT_UNKNOWN): nil
            default: .other
            }
            found.append((name, type))
        }
        return found.sorted { $0.name.lexicographicallyPrecedes($1.name) }
    }

    /// The kind of the entry at `path` (`stat` when following links, `lstat` otherwise); nil when
    /// it cannot be read.
    private static func kind(_ path: [UInt8], follow: Bool) -> Kind? {
        var info = stat()
        guard withCString(path, { follow ? stat($0, &info) : lstat($0, &info) }) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// `blocked` with the directory links that are aliases for a blocked path or lead to one of
    /// their own ancestors, until no more are found.
    private static func closed(_ blocked: [[UInt8]], _ links: [(path: [UInt8], target: [UInt8], realParent: [UInt8])],
                               root: [UInt8]) -> [[UInt8]] {
        var blocked = blocked
        var open = links
        var changed = true
        while changed {
            changed = false
            open.removeAll { link in
                let loops = inside(link.realParent, link.target)
                let alias = blocked.contains { inside(root + [0x2f] + $0, link.target) }
                guard loops || alias else { return false }
                blocked.append(link.path)
                changed = true
                return true
            }
        }
        return blocked.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Whether `path` is `directory` or lies under it.
    private static func inside(_ path: [UInt8], _ directory: [UInt8]) -> Bool {
        directory == [0x2f] || path == directory || (path.starts(with: directory) && path.dropFirst(directory.count).first == 0x2f)
    }

    private static func realPath(_ path: [UInt8]) -> [UInt8]? {
        guard let resolved = withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self),
                                         count: strlen(resolved)))
    }

    private static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
