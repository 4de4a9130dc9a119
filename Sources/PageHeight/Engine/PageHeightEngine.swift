import CPageHeightShim
import CWebKit
import Foundation

/// The measuring engine: one GLib thread with GTK and WebKit, one ephemeral web context,
/// and, when `DISPLAY` is unset, an Xvfb of its own.
///
/// Start it once per process with `PageHeightEngine.shared()`; `measure` may be called from
/// any task, and each call gets a fresh view.
public final class PageHeightEngine: @unchecked Sendable {
    private let thread: GLibThread
    nonisolated(unsafe) private var pool: ViewPool?
    nonisolated(unsafe) private var filters: OfflineFilters?

    private static let lock = NSLock()
    nonisolated(unsafe) private static var instance: PageHeightEngine?

    /// The process's engine, started on first use (display, GTK, web context).
    public static func shared() throws -> PageHeightEngine {
        lock.lock()
        defer { lock.unlock() }
        if let instance { return instance }
        let engine = try PageHeightEngine()
        instance = engine
        return engine
    }

    private init() throws {
        setenv("WEBKIT_A11Y_BUS_ADDRESS", "", 1)
        setenv("NO_AT_BRIDGE", "1", 1)
        setenv("GSETTINGS_BACKEND", "memory", 1)
        nonisolated(unsafe) var made: (ViewPool, OfflineFilters)?
        thread = try GLibThread {
            try VirtualDisplay.ensure()
            SessionBus.ensure()
            guard gtk_init_check(nil, nil) != 0 else {
                throw EngineError.gtkInitFailed(display: ProcessInfo.processInfo.environment["DISPLAY"] ?? "")
            }
            // A page that allocates without end gets its web process killed at 2 GB (checked
            // every second): `crashed`, "exceeded its memory limit", and the batch goes on.
            let context = ph_web_context_new_ephemeral(2048, 1.0)!
            webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER)
            webkit_web_context_set_spell_checking_enabled(context, 0)
            made = (ViewPool(context: OpaquePointer(context)), OfflineFilters())
        }
        pool = made?.0
        filters = made?.1
    }

    /// Measures one page; never throws: a page that cannot be measured is a report with a status.
    /// - Parameters:
    ///   - snapshot: where to write a full-document PNG of the final state.
    ///   - freshView: measure in a new view with a new web process, not one reused from an
    ///     earlier page (for `--repeat`: runs that share nothing).
    ///   - log: timestamped steps (the CLI's `--verbose`), called on the engine's thread.
    public func measure(_ page: PageSource, options: MeasureOptions = MeasureOptions(), snapshot: String? = nil,
                        freshView: Bool = false,
                        log: @escaping @Sendable (String) -> Void = { _ in }) async -> PageReport {
        await withCheckedContinuation { continuation in
            thread.perform { [pool, filters] in
                let driver = MeasurementDriver(pool: pool!, filters: filters!, source: page, options: options,
                                               snapshotPath: snapshot, freshView: freshView, log: log) { report in
                    continuation.resume(returning: report)
                }
                driver.start()
            }
        }
    }

    /// Stops the engine's own Xvfb (if it started one). Call before exiting on a signal.
    public static func stopDisplay() {
        VirtualDisplay.stop()
    }
}
