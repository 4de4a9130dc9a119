import CPageHeightShim
import Foundation

/// The graphics driver's code in our web processes, given back to the kernel once it has run.
///
/// Pages are drawn in software, yet every web process opens EGL as it shows its first page, and
/// Mesa's driver brings LLVM. Their start-up (static constructors all over a 108 MB library, each
/// fault mapping 64 KB around it) leaves 26-43 MB of LLVM's code resident that the process never
/// runs again. Once a web process has loaded it, those pages are paged out (`process_madvise`,
/// MADV_PAGEOUT, through `PageOut`): clean file pages, dropped and read back from the page cache if a
/// page draws with GL after all. Where the kernel refuses, nothing else changes.
///
/// The kernel leaves alone a page that another process maps too: code that two web processes
/// fault in at the same moment (a batch's first views, started together) stays resident, once
/// for all of them, until all but one have exited (`ViewPool` renews each after a few pages).
///
/// Thread-safe: the work runs on a utility queue of its own, off the GLib thread.
enum IdleDriverCode {
    private static let queue = DispatchQueue(label: "pageheight.idle-driver-code", qos: .utility)
    /// The web processes whose driver code was found, and its mappings (queue only).
    nonisolated(unsafe) private static var treated: [Int32: [PageOut.Mapping]] = [:]

    /// Pages out the driver code of the web processes of ours that have loaded it. Call when a
    /// web process is starting; returns at once. A web process opens EGL as it shows its first
    /// page, and loading the driver (relocations, static constructors) faults its code in over
    /// about 0.2 s after it is mapped, so each process's driver code is paged out when it is
    /// first seen and again 0.1, 0.3, 0.7 and 1.5 s later; while no new process has mapped it,
    /// this looks again after 0.05, 0.15, 0.35, 0.75 and 1.55 s.
    static func pageOutNewWebProcesses() {
        queue.async { pageOut(lookAgainAfter: 0.05) }
    }

    private static func pageOut(lookAgainAfter delay: Double) {
        guard !PageOut.refused else { return }
        let live = Set(WebProcesses.ofThisProcess())
        treated = treated.filter { live.contains($0.key) }
        var found = false
        for pid in live where treated[pid] == nil {
            guard let maps = WebProcesses.read("/proc/\(pid)/maps") else { continue }
            let mappings = codeMappings(inMaps: maps)
            guard !mappings.isEmpty else { continue } // not loaded yet
            treated[pid] = mappings
            found = true
            pageOut(pid, mappings, again: 0.1)
        }
        if !found && delay < 1 {
            queue.asyncAfter(deadline: .now() + delay) { pageOut(lookAgainAfter: delay * 2) }
        }
    }

    private static func pageOut(_ pid: Int32, _ mappings: [PageOut.Mapping], again: Double) {
        guard treated[pid] != nil else { return }
        switch PageOut.pageOut(pid, mappings) {
        case .done: break
        case .gone: treated[pid] = nil; return
        case .refused: return
        }
        if again < 2 {
            queue.asyncAfter(deadline: .now() + again) { pageOut(pid, mappings, again: again * 2) }
        }
    }

    /// The executable mappings of the graphics driver in `maps` (the text of /proc/PID/maps):
    /// LLVM's and Mesa's (`*_dri.so`, `libgallium*`).
    static func codeMappings(inMaps maps: String) -> [PageOut.Mapping] {
        PageOut.fileMappings(inMaps: maps) { permissions, name in
            permissions == "r-xp" && (name.hasPrefix("libLLVM") || name.hasPrefix("libgallium") || name.hasSuffix("_dri.so"))
        }
    }

    /// The address ranges of `codeMappings(inMaps:)`.
    static func codeRanges(inMaps maps: String) -> [Range<UInt>] {
        codeMappings(inMaps: maps).map(\.addresses)
    }
}

/// The web processes this process started.
enum WebProcesses {
    /// Their pids: descendants of this process named `WebKitWebProcess` (as the kernel shortens
    /// it), found through /proc, zombies left out.
    static func ofThisProcess() -> [Int32] {
        descendants().filter { $0.name.hasPrefix("WebKitWebProces") }.map(\.pid)
    }

    /// Every live descendant of this process, with its name (`comm`, at most 15 bytes).
    static func descendants() -> [(pid: Int32, name: Substring)] {
        var parents: [Int32: Int32] = [:]
        var names: [Int32: Substring] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let (name, fields) = stat("/proc/\(entry)/stat"),
                  fields.count > 1, fields[0] != "Z", let parent = Int32(fields[1]) else { continue }
            parents[pid] = parent
            names[pid] = name
        }
        var result: [(pid: Int32, name: Substring)] = []
        var frontier = [getpid()]
        while let next = frontier.popLast() {
            for (child, parent) in parents where parent == next {
                frontier.append(child)
                result.append((child, names[child] ?? ""))
            }
        }
        return result
    }
}

extension WebProcesses {
    /// The private memory (`RssAnon`, bytes) of the largest of this process's web processes, or
    /// nil when none can be read.
    static func largestPrivateMemory() -> Int? {
        ofThisProcess().compactMap(privateMemory).max()
    }

    /// A process's resident anonymous memory in bytes (`RssAnon` in /proc/PID/status).
    static func privateMemory(_ pid: Int32) -> Int? {
        guard let status = read("/proc/\(pid)/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    /// A process's or thread's `stat` file (/proc/PID/stat, /proc/PID/task/TID/stat): its name
    /// (`comm`) and the fields after it (state, parent, ...: field n of proc(5) is `fields[n - 3]`).
    static func stat(_ path: String) -> (name: Substring, fields: [Substring])? {
        guard let stat = read(path), let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        return (stat[stat.index(after: open)..<close], stat[stat.index(after: close)...].split(separator: " "))
    }

    /// The whole text of a /proc file, read to its end (they report a size of 0, and one read
    /// returns at most a page of some of them, such as smaps).
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
