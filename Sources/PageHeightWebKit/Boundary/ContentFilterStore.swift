import CPageHeightShim
import CWebKit

/// Compiles content-blocker rules into a WebKit content filter, asynchronously: the GLib thread
/// goes on with other pages while WebKit compiles (no nested main loop).
@GLibActor
enum ContentFilterStore {
    private struct Saved: @unchecked Sendable {
        var filter: OpaquePointer?
        var error: String?
    }

    /// A new reference to the filter compiled from `rules` (JSON) under `identifier`, saved in
    /// the engine's private directory; `purpose` names it in the error.
    static func compile(_ rules: String, identifier: String, purpose: String) async throws -> OpaquePointer {
        let directory = try PrivateDirectory.path() + "/filters"
        let saved = await CallbackBridge<Saved>.await(cancelled: Saved(filter: nil, error: "cancelled")) { context in
            ph_save_content_filter(directory, identifier, rules, { filter, error, data in
                CallbackBridge<Saved>.resume(data, with: Saved(filter: filter,
                                                               error: error.map { String(cString: $0) }))
            }, context)
        }
        guard let filter = saved.filter else {
            throw EngineError.filterUnavailable("\(purpose) did not compile: \(saved.error ?? "unknown error")")
        }
        return filter
    }
}
