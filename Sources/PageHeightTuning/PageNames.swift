/// Short names for pages in tables: each URL without the directories all of them share, e.g.
/// `aeb/042b.../source.html` and `readability/001/source.html` for a corpus of file URLs.
public enum PageNames {
    /// One name per URL, in order.
    public static func shortened(_ urls: [String]) -> [String] {
        let parts = urls.map { $0.split(separator: "/", omittingEmptySubsequences: false) }
        guard let first = parts.first else { return [] }
        // Keep at least each URL's last part.
        var shared = parts.map { $0.count - 1 }.min() ?? 0
        for other in parts.dropFirst() {
            var common = 0
            while common < shared, first[common] == other[common] { common += 1 }
            shared = common
        }
        if parts.count > 1 {
            shared = min(shared, parts.map { $0.count - 1 }.min() ?? 0)
        }
        return parts.map { $0.dropFirst(shared).joined(separator: "/") }
    }
}
