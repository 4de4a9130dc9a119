import Foundation
import Synchronization

/// What a long-running process reports about its engine (`pageheight serve`'s `/metrics`).
public struct EngineStatistics: Sendable, Equatable {
    /// Web processes replaced on purpose since the start (`ViewPool`'s renewal after a number of
    /// pages, or when a page left its process large).
    public var webProcessRenewals: Int
    /// The private memory of this process and every process it started (web, network, display),
    /// in bytes: what the memory budget (`MemoryBudget`) counts.
    public var processTreeBytes: Int
    /// Web processes running now.
    public var webProcesses: Int

    public init(webProcessRenewals: Int, processTreeBytes: Int, webProcesses: Int) {
        (self.webProcessRenewals, self.processTreeBytes, self.webProcesses) = (webProcessRenewals, processTreeBytes, webProcesses)
    }
}

extension PageHeightEngine {
    /// Reads the statistics now (the process tree from /proc: not for every request).
    public var statistics: EngineStatistics {
        let tree = WebProcesses.descendants()
        let bytes = ([getpid()] + tree.map(\.pid)).compactMap(WebProcesses.privateMemory).reduce(0, +)
        return EngineStatistics(webProcessRenewals: WebProcessRenewals.count.load(ordering: .relaxed), processTreeBytes: bytes,
                                webProcesses: tree.filter { $0.name.hasPrefix("WebKitWebProces") }.count)
    }
}

/// The count behind `EngineStatistics.webProcessRenewals`.
enum WebProcessRenewals {
    static let count = Atomic<Int>(0)
}
