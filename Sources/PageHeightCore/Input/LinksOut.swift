import Foundation

/// The symbolic links under a directory a page may read (`SubresourceBoundary`) that lead out of
/// it. WebKit's content filter decides on URL text and the network process opens what the path
/// resolves to, so a link `out -> ../outside` or `root -> /` inside the page's directory would
/// let the page read, run and probe files elsewhere (a `load` event on `root/etc/shadow` tells
/// that it exists). The boundary blocks the paths through such links (`blockedPaths`).
///
/// A link is left open when it resolves inside the directory: to a file, or to a directory that
/// is not an ancestor of the link itself (a cycle) and under which no blocked link lies (it
/// would be an alias for that link's path). Every other link is blocked: outside, dangling,
/// looping. The walk visits at most `budget` entries, breadth first; a directory too large to
/// walk (`complete` false) leaves the page only the files directly in it (`SubresourceBoundary`).
package struct LinksOut: Sendable, Equatable {
    /// Paths relative to the directory, `/`-separated, whose URLs the page must not load.
    package var blockedPaths: [String]
    /// False when the walk stopped at its budget.
    package var complete: Bool

    package static let none = LinksOut(blockedPaths: [], complete: true)

    /// Walks `directory` (a path) for links that leave it.
    package static func walk(_ directory: String, budget: Int = 20_000) -> LinksOut {
        guard let root = realPath(directory) else { return .none }
        var blocked: [String] = []
        var directoryLinks: [(path: String, target: String, realParent: String)] = []
        var queue: [(relative: String, real: String)] = [("", root)]
        var visited = 0
        var index = 0
        while index < queue.count {
            let (relative, real) = queue[index]
            index += 1
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: real) else { continue }
            for name in names.sorted() {
                visited += 1
                if visited > budget { return LinksOut(blockedPaths: Self.closed(blocked, directoryLinks, root: root), complete: false) }
                let path = relative.isEmpty ? name : relative + "/" + name
                let full = real + "/" + name
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFLNK:
                    guard let target = realPath(full), inside(target, root) else { blocked.append(path); continue }
                    var targetInfo = stat()
                    if stat(target, &targetInfo) == 0, targetInfo.st_mode & S_IFMT == S_IFDIR {
                        directoryLinks.append((path, target, real))
                    }
                case S_IFDIR:
                    queue.append((path, full))
                default:
                    break
                }
            }
        }
        return LinksOut(blockedPaths: Self.closed(blocked, directoryLinks, root: root), complete: true)
    }

    /// `blocked` with the directory links that are aliases for a blocked path or lead to one of
    /// their own ancestors, until no more are found.
    private static func closed(_ blocked: [String], _ links: [(path: String, target: String, realParent: String)],
                               root: String) -> [String] {
        var blocked = blocked
        var open = links
        var changed = true
        while changed {
            changed = false
            open.removeAll { link in
                let loops = inside(link.realParent, link.target)
                let alias = blocked.contains { inside(root + "/" + $0, link.target) }
                guard loops || alias else { return false }
                blocked.append(link.path)
                changed = true
                return true
            }
        }
        return blocked.sorted()
    }

    /// Whether `path` is `directory` or lies under it.
    private static func inside(_ path: String, _ directory: String) -> Bool {
        directory == "/" || path == directory || path.hasPrefix(directory + "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
