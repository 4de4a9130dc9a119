import CPageHeightShim
import Foundation

/// The code and constants that the processes living as long as a batch ran once, given back to
/// the kernel after each page.
///
/// This process, WebKit's network process and our Xvfb (every process of ours but the web
/// processes) start by running code that they never run again (static constructors, GTK's and
/// WebKit's set-up, option parsing), and each fault maps 64 KB around it: a batch keeps many
/// times more of its own executable's code resident than it still runs.
/// After each page, at most once in `interval`, the clean file pages (`r-xp`, `r--p`) that only one
/// of those processes maps are paged out (`process_madvise(MADV_PAGEOUT)`); what a process still runs comes back at its next touch, read
/// from the page cache, where `PageOut` has put it back. The kernel leaves
/// alone pages another process maps (the web processes share WebKit's code), relocated data
/// (anonymous, private) and anything written. The web processes are left out: each page runs
/// much of WebKit's code again, and paging theirs out between pages cost the quick rule a third
/// of its pages/s.
///
/// It lowers a batch's peak memory at the same pages/s (BENCHMARKS.md's decisions). Without
/// CAP_SYS_NICE, or on a kernel before 5.10, the first refusal turns this off and nothing else
/// changes.
///
/// Thread-safe: the work runs on a utility queue of its own, off the GLib thread.
enum IdleLibraryPages {
    private static let queue = DispatchQueue(label: "pageheight.idle-library-pages", qos: .utility)
    /// The least time between two rounds, in seconds. A round costs CPU (reading the maps, the
    /// advice, the pages faulted back in), and rounds once a second cost a corpus batch at four
    /// jobs about 5% of its pages/s for a peak of this process about 1.5% lower than once in ten.
    static let interval = 10.0
    /// When the last round started (queue only).
    nonisolated(unsafe) private static var last: ContinuousClock.Instant?

    /// Pages out the idle library pages of this process and of the other processes of ours but
    /// the web processes, unless that was done less than `interval` ago. Returns at once.
    static func pageOut() {
        queue.async {
            let now = ContinuousClock.now
            if let last, now - last < .seconds(interval) { return }
            last = now
            let others = WebProcesses.descendants().filter { !$0.name.hasPrefix("WebKitWebProces") }.map(\.pid)
            for pid in [getpid()] + others where !PageOut.refused {
                _ = pageOut(pid)
            }
        }
    }

    /// Pages out the idle library pages of `pid` now; returns the number of mappings advised,
    /// or nil when the process is gone or the kernel refused.
    @discardableResult
    static func pageOut(_ pid: Int32) -> Int? {
        guard let maps = WebProcesses.read("/proc/\(pid)/maps") else { return nil }
        let mappings = readOnlyMappings(inMaps: maps)
        return PageOut.pageOut(pid, mappings) == .done ? mappings.count : nil
    }

    /// The read-only mappings of files in `maps` (the text of /proc/PID/maps): code and
    /// constants, not writable data; files deleted since they were mapped left out.
    static func readOnlyMappings(inMaps maps: String) -> [PageOut.Mapping] {
        PageOut.fileMappings(inMaps: maps) { permissions, name in
            (permissions == "r-xp" || permissions == "r--p") && !name.hasSuffix(" (deleted)")
        }
    }
}
