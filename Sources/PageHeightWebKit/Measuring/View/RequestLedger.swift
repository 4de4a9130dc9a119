import CPageHeightShim
import CWebKit
import Foundation
import PageHeightCore

/// One view's requests since its page started (`startPage`): how many are in flight, and which
/// subresources failed (the first `FailedResource.kept`, and how many failed in all).
///
/// A request belongs to the page that was current when it started: a request of an earlier page
/// that ends late, or never (a terminated web process ends its requests without "finished"),
/// counts for no page after it. Fed, on the GLib thread, by the view's "resource-load-started"
/// and each request's "finished" and "failed"; each request's handlers carry a `Request` (its
/// page), released by GLib with the request.
@GLibActor
final class RequestLedger {
    /// The requests of the current page (of any frame, any kind) that started and have not finished.
    private(set) var inFlight = 0
    /// The current page's failed subresources, in the order they failed.
    private(set) var failed: [FailedResource] = []
    /// How many of the current page's subresources failed, listed or not.
    private(set) var failedTotal = 0
    /// The URLs of the current page's requests in flight, by request.
    private var inFlightURLs: [ObjectIdentifier: String] = [:]
    /// How many of the current page's http(s) requests got a response (any status).
    private(set) var answered = 0
    /// The number of the current page among the view's pages.
    private var page = 0
    /// The view, until it closes: its main resource failing is the page's load error, not a subresource's.
    private var view: UnsafeMutablePointer<WebKitWebView>?

    /// Starts counting `view`'s requests; its handler holds the ledger until the view goes.
    init(view: UnsafeMutablePointer<WebKitWebView>) {
        self.view = view
        Self.open[UInt(bitPattern: view)] = self
        ph_connect_resource_load_started(view, { _, resource, _, data in
            guard let resource else { return }
            GLibActor.assumeIsolated { Unmanaged<RequestLedger>.fromOpaque(data!).takeUnretainedValue().started(resource) }
        }, Unmanaged.passRetained(self).toOpaque(), { data, _ in Unmanaged<RequestLedger>.fromOpaque(data!).release() })
    }

    /// Starts a page: the failures and the requests in flight of the pages before it no longer count.
    func startPage() {
        page += 1
        inFlight = 0
        failed = []
        failedTotal = 0
        inFlightURLs = [:]
        answered = 0
    }

    /// The requests in flight now (their URLs, at most `kept`) and how many http(s) requests got
    /// a response: what a timeout names.
    func pending(kept: Int = 50) -> PendingRequests {
        PendingRequests(urls: Array(inFlightURLs.values.sorted().prefix(kept)), total: inFlight, answered: answered)
    }

    /// The view closed: nothing more is noted.
    func close() {
        if let view { Self.open[UInt(bitPattern: view)] = nil }
        view = nil
    }

    /// The ledgers of the open views, for the downloads their context refuses.
    private static var open: [UInt: RequestLedger] = [:]

    /// Notes a download refused for `view` (`ph_web_context_refuse_downloads`) among its failures.
    static let downloadRefused: ph_download_refused_fn = { view, uri in
        guard let view, let uri else { return }
        let (key, url) = (UInt(bitPattern: view), RequestLedger.cut(uri))
        GLibActor.assumeIsolated {
            RequestLedger.open[key]?.note(url: url, reason: "a download, refused")
        }
    }

    /// One request's page, carried by its handlers.
    private final class Request {
        weak var ledger: RequestLedger?
        let page: Int

        init(_ ledger: RequestLedger, page: Int) {
            (self.ledger, self.page) = (ledger, page)
        }

        /// The ledger, while the request's page is current.
        @GLibActor var current: RequestLedger? {
            ledger.flatMap { $0.page == page ? $0 : nil }
        }

        /// A retained reference for one handler, released by GLib.
        func retained() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

        static func from(_ data: UnsafeMutableRawPointer?) -> Request {
            Unmanaged<Request>.fromOpaque(data!).takeUnretainedValue()
        }

        static let release: GClosureNotify = { data, _ in Unmanaged<Request>.fromOpaque(data!).release() }
    }

    private func started(_ resource: UnsafeMutablePointer<WebKitWebResource>) {
        inFlight += 1
        let request = Request(self, page: page)
        inFlightURLs[ObjectIdentifier(request)] = webkit_web_resource_get_uri(resource).map { Self.cut($0) } ?? ""
        // "finished" comes after "failed" too.
        ph_connect_resource_finished(resource, { resource, data in
            guard let resource else { return }
            GLibActor.assumeIsolated {
                let request = Request.from(data)
                guard let ledger = request.current else { return }
                ledger.inFlight = max(0, ledger.inFlight - 1)
                let url = ledger.inFlightURLs.removeValue(forKey: ObjectIdentifier(request)) ?? ""
                let status = webkit_web_resource_get_response(resource).map { webkit_uri_response_get_status_code($0) } ?? 0
                if status > 0, url.hasPrefix("http") { ledger.answered += 1 }
                if status >= 400 { ledger.noteFailed(resource, reason: Array("HTTP \(status)".utf8)) }
            }
        }, request.retained(), Request.release)
        ph_connect_resource_failed(resource, { resource, error, data in
            guard let resource, let error else { return }
            GLibActor.assumeIsolated {
                guard let reason = RequestLedger.reason(error), let ledger = Request.from(data).current else { return }
                ledger.noteFailed(resource, reason: reason)
            }
        }, request.retained(), Request.release)
    }

    /// Why a request failed, as its bytes (a page controls the URIs a message names); nil when
    /// it was cancelled: stopping a page (or leaving it) is not a failure of the page.
    private static func reason(_ error: UnsafeMutablePointer<GError>) -> [UInt8]? {
        let network = webkit_network_error_quark()
        if g_error_matches(error, network, gint(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)) != 0 { return nil }
        if g_error_matches(error, g_io_error_quark(), gint(G_IO_ERROR_NOT_FOUND.rawValue)) != 0
            || g_error_matches(error, network, gint(WEBKIT_NETWORK_ERROR_FILE_DOES_NOT_EXIST.rawValue)) != 0 {
            return Array("file not found".utf8)
        }
        let message = error.pointee.message.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }
        let domain = String(cString: g_quark_to_string(error.pointee.domain))
        return Array(message ?? UnsafeRawBufferPointer(start: nil, count: 0)) + Array(" (\(domain) \(error.pointee.code))".utf8)
    }

    /// Notes a subresource of the current page that failed: not the page itself (its load error).
    private func noteFailed(_ resource: UnsafeMutablePointer<WebKitWebResource>, reason: [UInt8]) {
        guard let view, resource != webkit_web_view_get_main_resource(view) else { return }
        note(url: webkit_web_resource_get_uri(resource).map { Self.cut($0) } ?? "", reason: Self.cut(reason))
    }

    private func note(url: String, reason: String) {
        failedTotal += 1
        guard failed.count < FailedResource.kept else { return }
        failed.append(FailedResource(url: url, reason: reason))
    }

    /// A page controls its URIs and so the errors that name them: each is kept to its first
    /// `PageText.urlKept` bytes (a cut inside a UTF-8 sequence repaired).
    nonisolated private static func cut(_ text: UnsafePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: text, count: strnlen(text, PageText.urlKept)), as: UTF8.self)
    }

    nonisolated private static func cut(_ bytes: [UInt8]) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count // as C read it
        return String(decoding: bytes[..<min(end, PageText.urlKept)], as: UTF8.self)
    }
}
