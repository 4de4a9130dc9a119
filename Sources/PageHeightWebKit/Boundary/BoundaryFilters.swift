import CPageHeightShim
import CWebKit
import Foundation
import PageHeightCore

/// A page's two content filters (`SubresourceBoundary.Lists`), compiled.
struct Boundary: Equatable {
    var files: OpaquePointer
    var network: OpaquePointer
}

/// The compiled content filters of `SubresourceBoundary`, one per list of rules, kept for the
/// pages that follow: a batch of pages in one folder compiles its file list once, and a batch
/// of files its network list once.
@GLibActor
enum BoundaryFilters {
    /// Filters kept at most; the least recently used goes first (views that carry it keep their
    /// own reference).
    nonisolated static let capacity = 64
    private static var cache: [String: OpaquePointer] = [:]
    private static var order: [String] = []
    private static var compilations = 0

    /// For tests of what holds without the content filters (`FileJail`): with
    /// `PAGEHEIGHT_TEST_WITHOUT_FILE_BOUNDARY` set, a page's file list blocks nothing.
    nonisolated static let withoutFileBoundary = ProcessInfo.processInfo.environment["PAGEHEIGHT_TEST_WITHOUT_FILE_BOUNDARY"] != nil

    /// This machine's own addresses (every interface's), read once.
    nonisolated static let localAddresses: [String] = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: Set<String> = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            addresses.insert(String(text.split(separator: "%").first ?? Substring(text))) // no zone
        }
        return addresses.sorted()
    }()

    /// Walks of page directories (`LinksOut`), each kept `walkLifetime` seconds: a batch's pages
    /// in one folder (each looked up twice: for itself and as the page after another) walk it
    /// once, and a link made meanwhile is seen by the pages that start after that.
    private static var walks: [String: (at: Double, links: LinksOut)] = [:]
    nonisolated static let walkLifetime = 10.0

    private static func walk(_ directory: String) -> LinksOut {
        let now = GLibClock.now
        if let kept = walks[directory], now - kept.at < walkLifetime { return kept.links }
        walks = walks.filter { now - $0.value.at < walkLifetime }
        let links = LinksOut.walk(directory)
        walks[directory] = (now, links)
        return links
    }

    /// The filters for `source` under `options`, compiled on first use.
    static func filters(for source: PageSource, options: MeasureOptions) async throws -> Boundary {
        var lists = SubresourceBoundary.rules(for: source, allowedHosts: options.allowedHosts ?? [],
                                              localAddresses: localAddresses, links: { walk($0) })
        if withoutFileBoundary { lists.files = #"[{"trigger":{"url-filter":"^pageheight-never:"},"action":{"type":"block"}}]"# }
        let files = try await filter(lists.files, name: "files")
        return Boundary(files: files, network: try await filter(lists.network, name: "network"))
    }

    private static func filter(_ rules: String, name: String) async throws -> OpaquePointer {
        if let filter = cache[rules] {
            order.removeAll { $0 == rules }
            order.append(rules) // the least recently used goes first: the network list stays
            return filter
        }
        compilations += 1
        let filter = try await ContentFilterStore.compile(rules, identifier: "boundary-\(name)-\(compilations)",
                                                          purpose: "the page's subresource boundary (\(name))")
        if let compiled = cache[rules] { // compiled by another page while this one waited
            webkit_user_content_filter_unref(filter)
            return compiled
        }
        cache[rules] = filter
        order.append(rules)
        if order.count > capacity {
            let oldest = order.removeFirst()
            cache.removeValue(forKey: oldest).map { webkit_user_content_filter_unref($0) }
        }
        return filter
    }
}
