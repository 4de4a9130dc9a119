import CPageHeightShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FileJail {
    /// The pages' folders, shown in the jail only while a page of theirs is measured: a page of
    /// a batch reads its own folder, not the folders of the pages before and after it, whatever
    /// gets past the content filters (at `--jobs N`, at most the folders of the N pages under way).
    ///
    /// A folder is copied as a detached, read-only mount tree on a thread outside the jail
    /// (`prepare`, the measuring task's), then mounted in the jail by the thread that lives in it
    /// (`Warden`, `show`), and taken away when its last page ends (`hide`). A folder inside one
    /// shown for the whole run, or inside one a page under way shows, is counted on that one.
    final class PageFolders: @unchecked Sendable {
        /// A folder copied for a page, to be mounted at `path` (each spelling of it).
        struct Copy {
            let path: String
            let tree: Int32
        }

        /// What `show` did for one page, for `hide`, and the folders it could not show (the page
        /// would not read its own files: not measured).
        struct Shown: Sendable {
            fileprivate let paths: [String]
            let problems: [String]
        }

        /// Folders shown for the whole run (their spellings): what lies inside needs no mount.
        private let fixed: [String]
        /// The warden's thread only: each folder mounted for pages, and how many pages under way
        /// use it.
        private var mounted: [String: Int] = [:]
        /// The thread in the jail, which mounts and unmounts; set once, as the jail is entered.
        nonisolated(unsafe) var warden: Warden?

        init(fixed: [String]) {
            self.fixed = fixed
        }

        /// Copies `folders` (and their real paths) that the run does not show anyway. Call on a
        /// thread outside the jail, before `show`. A folder that does not exist is left out (the
        /// page's load says so); one that cannot be copied is a `Failure`.
        func prepare(_ folders: [String]) throws -> [Copy] {
            var paths: [String] = []
            for folder in folders {
                let real = realpath(folder, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) }
                for spelling in [folder, real].compactMap({ $0 }) where !paths.contains(spelling) && !Self.isInside(spelling, fixed) {
                    paths.append(spelling)
                }
            }
            var copies: [Copy] = []
            for path in paths where access(path, F_OK) == 0 {
                let tree = ph_detached_read_only_tree(path)
                guard tree >= 0 else {
                    let problem = String(cString: strerror(errno))
                    copies.forEach { close($0.tree) }
                    throw Failure("the page's folder \(path) cannot be shown to the engine's processes: \(problem)")
                }
                copies.append(Copy(path: path, tree: tree))
            }
            return copies
        }

        /// Mounts the copies not shown yet and counts the page on each (on the warden's thread;
        /// any thread may call). Closes the copies' descriptors.
        func show(_ copies: [Copy]) -> Shown {
            guard let warden else { copies.forEach { close($0.tree) }; return Shown(paths: [], problems: []) }
            return warden.perform { self.mount(copies) }
        }

        /// The page has ended: each folder no page under way uses any more is taken away (on the
        /// warden's thread; any thread may call).
        func hide(_ shown: Shown) {
            warden?.perform { self.unmount(shown) }
        }

        private func mount(_ copies: [Copy]) -> Shown {
            var counted: [String] = [], problems: [String] = []
            for copy in copies {
                defer { close(copy.tree) }
                if let holder = mounted.first(where: { $0.value > 0 && Self.isInside(copy.path, [$0.key]) })?.key {
                    mounted[holder, default: 0] += 1
                    counted.append(holder)
                    continue
                }
                if mounted[copy.path] != nil { sweep() }
                if mounted[copy.path] != nil { // a mount no page uses that could not come off yet: still there
                    mounted[copy.path, default: 0] += 1
                    counted.append(copy.path)
                    continue
                }
                guard (try? FileManager.default.createDirectory(atPath: copy.path, withIntermediateDirectories: true)) != nil,
                      ph_attach_tree(copy.tree, copy.path) == 0 else {
                    problems.append("the page's folder \(copy.path) cannot be shown to the engine's processes: "
                        + String(cString: strerror(errno)))
                    continue
                }
                mounted[copy.path] = 1
                counted.append(copy.path)
            }
            return Shown(paths: counted, problems: problems)
        }

        private func unmount(_ shown: Shown) {
            for path in shown.paths { mounted[path, default: 1] -= 1 }
            sweep()
        }

        /// Unmounts the folders no page uses, innermost first, as long as one comes off (a folder
        /// mounted over a shown one's place comes off once that one has).
        private func sweep() {
            var progress = true
            while progress {
                progress = false
                for path in mounted.filter({ $0.value <= 0 }).keys.sorted(by: { $0.count > $1.count })
                where umount2(path, Int32(MNT_DETACH)) == 0 {
                    mounted[path] = nil
                    progress = true
                }
            }
        }

        private static func isInside(_ path: String, _ folders: [String]) -> Bool {
            folders.contains { path == $0 || path.hasPrefix($0 == "/" ? "/" : $0 + "/") }
        }
    }
}
