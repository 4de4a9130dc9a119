import CPageHeightShim
import Foundation

/// Gives a process's clean file pages back to the kernel (`process_madvise`, MADV_PAGEOUT) and
/// keeps them in the page cache for the next touch: what `IdleLibraryPages` does between pages.
///
/// The kernel allows this with CAP_SYS_NICE (root has it); without it, or on a kernel before
/// 5.10, the first refusal turns every later call off.
///
/// Thread-safe.
enum PageOut {
    enum Outcome {
        case done
        /// The process exited, or is exiting.
        case gone
        /// The kernel refuses this process (and will refuse the rest).
        case refused
    }

    /// A mapping of a file: where it is, and which part of which file it shows.
    struct Mapping: Equatable {
        let addresses: Range<UInt>
        let file: String
        let offset: UInt
    }

    /// The mappings of files in `maps` (the text of /proc/PID/maps) whose permissions (`r-xp`,
    /// say) and file name (the last part of the path) `chosen` accepts.
    static func fileMappings(inMaps maps: String, where chosen: (Substring, Substring) -> Bool) -> [Mapping] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].first(where: { $0 != " " }) == "/",
                  let name = fields[5].split(separator: "/").last, chosen(fields[1], name),
                  let dash = fields[0].firstIndex(of: "-"),
                  let start = UInt(fields[0][..<dash], radix: 16),
                  let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16), end > start,
                  let offset = UInt(fields[2], radix: 16)
            else { return nil }
            // The path is the rest of the line, after the spaces that align it.
            return Mapping(addresses: start..<end, file: String(fields[5].drop(while: { $0 == " " })), offset: offset)
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var refusedOnce = false

    /// True once the kernel refused.
    static var refused: Bool { lock.withLock { refusedOnce } }

    /// Pages out `mappings` of process `pid`, then asks for their file parts in the page cache.
    static func pageOut(_ pid: Int32, _ mappings: [Mapping]) -> Outcome {
        guard !refused else { return .refused }
        let ranges = mappings.map(\.addresses)
        let result = ph_page_out(pid, ranges.map { $0.lowerBound }, ranges.map { Int($0.count) }, Int32(ranges.count))
        guard result >= 0 else {
            switch Int32(-result) {
            case EPERM, ENOSYS, EINVAL: // no CAP_SYS_NICE, or a kernel without process_madvise
                lock.withLock { refusedOnce = true }
                return .refused
            default:
                return .gone
            }
        }
        keepInPageCache(mappings)
        return .done
    }

    /// Paging out a clean file page that no other process maps drops it from the page cache
    /// too, so the next web process read LLVM's start-up code from the disk again, and a batch
    /// at one job slowed down measurably (BENCHMARKS.md's history). Asking the
    /// kernel to read those parts of the files back (POSIX_FADV_WILLNEED, in the background)
    /// keeps them in the page cache, which no process's memory counts, for the next one. The
    /// kernel reads at most its readahead window (often 1-8 MB) a call: one call a megabyte.
    private static func keepInPageCache(_ mappings: [Mapping]) {
        let chunk: UInt = 1 << 20
        for mapping in mappings {
            let fd = open(mapping.file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var offset = mapping.offset
            let end = mapping.offset + UInt(mapping.addresses.count)
            while offset < end {
                _ = posix_fadvise(fd, off_t(offset), off_t(min(chunk, end - offset)), POSIX_FADV_WILLNEED)
                offset += chunk
            }
            close(fd)
        }
    }
}
