import CPageHeightShim
import CWebKit
import Foundation

/// `--offline`: a WebKit content filter that refuses at once every request that is not for the
/// page's own directory (file pages), loopback, or an inline `data:`/`blob:`/`about:` URL.
///
/// Filters are compiled once per allowed directory and kept for the process. GLib thread only.
final class OfflineFilters {
    private let store: OpaquePointer
    private let storePath: String
    private var compiled: [String: OpaquePointer] = [:]
    /// Directories in the order their filters were last used (least recent first).
    private var recent: [String] = []
    private var compilations = 0
    /// Compiled filters kept at most: a corpus of one directory a page would keep one each.
    private static let kept = 16
    private var waiting: [String: [(OpaquePointer?, String?) -> Void]] = [:]

    init() {
        Self.removeStaleStores()
        storePath = NSTemporaryDirectory() + "pageheight-filters-\(getpid())"
        store = OpaquePointer(webkit_user_content_filter_store_new(storePath))
    }

    deinit {
        for filter in compiled.values { webkit_user_content_filter_unref(filter) }
        g_object_unref(UnsafeMutableRawPointer(store))
        try? FileManager.default.removeItem(atPath: storePath)
    }

    /// The filter that lets through `directory` (a file:// URL prefix ending in `/`, or nil for
    /// none) and loopback; the completion gets the filter or an error text.
    func filter(allowing directory: String?, completion: @escaping (OpaquePointer?, String?) -> Void) {
        let key = directory ?? ""
        if let filter = compiled[key] {
            touch(key)
            return completion(filter, nil)
        }
        if waiting[key] != nil {
            waiting[key]!.append(completion)
            return
        }
        waiting[key] = [completion]
        compilations += 1
        let identifier = "offline-\(compilations)"
        let box = Unmanaged.passRetained(FilterBox { [weak self] filter, error in
            guard let self else { return }
            if let filter {
                self.compiled[key] = filter
                self.touch(key)
                self.evict()
            }
            let completions = self.waiting.removeValue(forKey: key) ?? []
            completions.forEach { $0(filter, error) }
        }).toOpaque()
        ph_compile_content_filter(UnsafeMutablePointer(store), identifier, Self.rules(allowing: directory), { filter, error, data in
            let box = Unmanaged<FilterBox>.fromOpaque(data!).takeRetainedValue()
            box.body(filter, error.map { String(cString: $0) })
        }, box)
    }

    /// The stores of processes that are gone (we `_exit`, so none removes its own).
    private static func removeStaleStores() {
        let directory = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasPrefix("pageheight-filters-") {
            guard let pid = Int32(name.dropFirst("pageheight-filters-".count)),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: directory + name)
        }
    }

    private func touch(_ key: String) {
        recent.removeAll { $0 == key }
        recent.append(key)
    }

    /// Drops the least recently used filters beyond `kept`; a view that has one keeps its own reference.
    private func evict() {
        while recent.count > Self.kept {
            let key = recent.removeFirst()
            if let filter = compiled.removeValue(forKey: key) { webkit_user_content_filter_unref(filter) }
        }
    }

    /// The content-blocker rules: block everything, then let the allowed prefixes through.
    /// (Content-blocker regular expressions have no alternation: one rule per prefix.)
    static func rules(allowing directory: String?) -> String {
        var allowed = ["^https?://127\\.0\\.0\\.1[:/]", "^https?://localhost[:/]", "^https?://\\[::1\\][:/]",
                       "^data:", "^blob:", "^about:"]
        if let directory { allowed.append("^" + escape(directory)) }
        var rules = [#"{"trigger":{"url-filter":".*"},"action":{"type":"block"}}"#]
        for prefix in allowed {
            let json = prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            rules.append(#"{"trigger":{"url-filter":""# + json + #""},"action":{"type":"ignore-previous-rules"}}"#)
        }
        return "[" + rules.joined(separator: ",") + "]"
    }

    /// Escapes the regular-expression characters of a literal URL prefix.
    static func escape(_ literal: String) -> String {
        var result = ""
        for character in literal {
            if "\\^$.|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}

private final class FilterBox {
    let body: (OpaquePointer?, String?) -> Void
    init(_ body: @escaping (OpaquePointer?, String?) -> Void) { self.body = body }
}
