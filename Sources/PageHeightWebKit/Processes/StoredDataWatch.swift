import CPageHeightShim
import CWebKit
import Foundation

/// Which page's stored data fills WebKit's network process. Pages store IndexedDB databases and
/// Cache API entries in the view's own ephemeral data store, which the network process, shared by
/// every page, holds in memory: a page that stores gigabytes there grows that process, not its
/// own, so the memory watchdog (`MemoryWatchdog`), which stops the largest web process, would stop
/// an innocent neighbour's. When the network process holds the most, the watchdog asks here
/// instead: the views being measured are asked whether their data store holds such data, and the
/// one that does (the largest web process of them, if several) has its web process stopped (its
/// page ends `crashed`, saying why) and its data forgotten, which gives the memory back.
@GLibActor
enum StoredDataWatch {
    /// The views measuring a page now, by identity.
    private static var measuring: [ObjectIdentifier: Weak] = [:]

    private struct Weak {
        weak var view: PageView?
    }

    /// `view` starts measuring a page (`ViewPool.checkout`).
    static func started(_ view: PageView) { measuring[ObjectIdentifier(view)] = Weak(view: view) }

    /// `view`'s page is done (`ViewPool.checkin`).
    static func ended(_ view: PageView) { measuring[ObjectIdentifier(view)] = nil }

    /// The data types a page keeps in the network process's memory.
    static let heldInNetworkProcess = WebKitWebsiteDataTypes(WEBKIT_WEBSITE_DATA_INDEXEDDB_DATABASES.rawValue
        | WEBKIT_WEBSITE_DATA_DOM_CACHE.rawValue)

    /// Stops the web process of the page whose data fills the network process, with `message`,
    /// and forgets that data. False when no page being measured holds any.
    static func stopTheHolder(message: String) async -> Bool {
        var holders: [(view: PageView, pid: Int32, bytes: Int)] = []
        for view in measuring.values.compactMap(\.view) {
            guard let pid = view.webProcess, await holdsData(view.websiteDataManager) else { continue }
            holders.append((view, pid, WebProcesses.privateMemory(pid) ?? 0))
        }
        guard let holder = holders.max(by: { ($0.bytes, $1.pid) < ($1.bytes, $0.pid) }) else { return false }
        MemoryWatchdog.shared.stop(holder.pid, .budget(message: message))
        _ = await holder.view.forgetWebsiteData()
        return true
    }

    /// Whether `manager` holds data of `heldInNetworkProcess` for any origin.
    private static func holdsData(_ manager: UnsafeMutablePointer<WebKitWebsiteDataManager>) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let box = Unmanaged.passRetained(Resumer(continuation)).toOpaque()
            webkit_website_data_manager_fetch(manager, heldInNetworkProcess, nil, { source, result, data in
                let resumer = Unmanaged<Resumer>.fromOpaque(data!).takeRetainedValue()
                let list = webkit_website_data_manager_fetch_finish(UnsafeMutablePointer(OpaquePointer(source)), result, nil)
                resumer.continuation.resume(returning: list != nil && g_list_length(list) > 0)
                if let list {
                    g_list_free_full(list) { webkit_website_data_unref(OpaquePointer($0)) }
                }
            }, box)
        }
    }

    private final class Resumer {
        let continuation: CheckedContinuation<Bool, Never>
        init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = continuation }
    }
}
