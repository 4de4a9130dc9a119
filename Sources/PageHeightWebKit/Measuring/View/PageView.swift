import CPageHeightShim
import CWebKit
import Foundation
import PageHeightCore

/// One off-screen web view: a WebKitWebView in a shown GtkOffscreenWindow, with the probe
/// injected and every result-changing setting set explicitly.
///
/// Owns its window (which owns the view) and its content manager; `close()` or deinit
/// destroys them. Every signal handler carries the view's `Inbox` (released by GLib when the
/// handler is disconnected), which queues what the signals tell for `next(until:)`: the view
/// holds the inbox, nothing in the inbox holds the view.
@GLibActor
final class PageView {
    let inbox = Inbox()
    /// Pages measured in this view's current web process; the pool renews the process after a
    /// number of them.
    var uses = 0
    /// Its page has its verdict and is being reported (`ViewPool.verdictReached`).
    var finishing = false
    /// Whether the view's web process was renewed since its last page.
    private(set) var renewed = false
    /// The pid of the view's web process, when known (WebKit's API does not tell it). WebKit
    /// starts a view's web process during the first load call after the view was made or its
    /// process renewed, so the one web process of ours that appears during that call is the
    /// view's (`startedProcess`; in the sandbox, the web process starts a moment later below it).
    /// Nil before that load, after a renewal, when that call started none or several, and until
    /// the sandbox's web process has started.
    var webProcess: Int32? {
        if knownWebProcess == nil, let startedProcess { knownWebProcess = WebProcesses.webProcess(runBy: startedProcess) }
        return knownWebProcess
    }
    private var knownWebProcess: Int32?
    /// The process WebKit started for the view's web process (`WebProcesses.children()`): the web
    /// process, or the bubblewrap that runs it in its sandbox. Nil as `webProcess` is.
    private(set) var startedProcess: Int32?
    /// Whether the next load starts the view's web process.
    private var startsWebProcess = true
    /// False once its web process died (during a page, or killed while the view waited in its
    /// pool) or it was closed: it must not be reused.
    var reusable: Bool { open && !inbox.processDied }
    /// Whether the view can take a next page now: reusable, and its web process, when known,
    /// still running. WebKit reports a killed web process only once the connection to it
    /// breaks, which may come after the pool would have handed out the view.
    var usable: Bool { reusable && webProcess.map(WebProcesses.isRunning) != false }
    /// False once closed or retired.
    private var open = true
    var window: UnsafeMutablePointer<GtkWidget>?
    private let ownedView: GObjectReference<WebKitWebView>
    private let ownedManager: GObjectReference<WebKitUserContentManager>
    var view: UnsafeMutablePointer<WebKitWebView> { ownedView.pointer }
    var manager: UnsafeMutablePointer<WebKitUserContentManager> { ownedManager.pointer }
    /// The content filters of the page loaded last (`SubresourceBoundary`).
    private(set) var boundary: Boundary?
    /// The requests of the page loaded last.
    private let requests: RequestLedger
    /// The view's references to `boundary`'s two filters.
    private var carried: (files: BoxedReference, network: BoxedReference)?
    /// The view's session history when it held one blank page and nothing else, restored before
    /// every page (`load`): each page then finds a fresh view's history (`history.length` 1),
    /// whatever pages the view showed before it. Without it the length counts them all.
    var historyBase: BoxedReference?
    /// Whether the view has its `historyBase`: a page must not be loaded without it (blank first).
    var hasHistoryBase: Bool { historyBase != nil }
    /// The page zoom, viewport width and font size the view was made with (`ViewPool`'s key);
    /// a step (`PageStep`) changes them live, `restoreSettings` gives them back.
    let made: (zoom: Double, width: Int, fontSize: Int)
    var zoom: Double
    var cssWidth: Int
    let javascript: Bool

    init(context: OpaquePointer, filter: OpaquePointer? = nil, options: MeasureOptions) {
        let manager = GObjectReference(adopting: webkit_user_content_manager_new())
        if let filter { webkit_user_content_manager_add_filter(manager.pointer, filter) }
        ownedManager = manager
        ownedView = GObjectReference(sinking: ph_web_view_new(UnsafeMutablePointer(context), manager.pointer))
        requests = RequestLedger(view: ownedView.pointer)
        zoom = options.zoom
        cssWidth = options.width
        made = (options.zoom, options.width, options.fontSize)
        javascript = options.javascript

        Self.applySettings(options, to: webkit_web_view_get_settings(view))
        webkit_web_view_set_zoom_level(view, options.zoom)
        PageDialogs.answer(in: view)
        injectScripts(options)
        connectSignals()
        showInOffscreenWindow(height: Double(options.height))
    }

    /// The hooks (every frame), the probe (the top frame, in its own world) and, offline, the
    /// repeatable `Math.random`; and the probe's message handler.
    func injectScripts(_ options: MeasureOptions) {
        setHooks(virtual: options.clock == .virtual, device: options.deviceProfile)
        addScript(ProbeScript.source(metric: options.metric), frames: WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                  world: ProbeScript.world)
        if options.offline {
            addScript(RepeatableRandom.source, frames: WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES)
        }
        webkit_user_content_manager_register_script_message_handler_in_world(manager, ProbeScript.messageHandler,
                                                                             ProbeScript.world)

    }

    /// Puts the view in a shown offscreen window `height` CSS px tall (shown: else WebKit runs no
    /// resize observers and reads a 0x0 viewport).
    func showInOffscreenWindow(height: Double) {
        let offscreen = gtk_offscreen_window_new()!
        window = offscreen
        offscreen.withMemoryRebound(to: GtkContainer.self, capacity: 1) { container in
            view.withMemoryRebound(to: GtkWidget.self, capacity: 1) { gtk_container_add(container, $0) }
        }
        setViewportHeight(height)
        gtk_widget_show_all(offscreen)
        ph_window_skip_drawing(offscreen) // shown for WebKit, never looked at (once realized)
    }

    /// Closes the view; its references (the view, its content manager, scripts, style sheet,
    /// filters, history) go with it, on this thread.
    isolated deinit {
        close()
    }

    /// Runs `load`; when it starts the view's web process, notes that process's pid.
    func noteWebProcess(_ load: () -> Void) {
        guard startsWebProcess else { return load() }
        startsWebProcess = false
        let before = Set(WebProcesses.children())
        load()
        let started = Set(WebProcesses.children()).subtracting(before)
        startedProcess = started.count == 1 ? started.first : nil
        knownWebProcess = nil
    }

    /// Blank pages loaded so far (their titles tell them apart).
    static var blanks = 0

    /// Kills the view's web process (a page stuck in a busy loop keeps spinning otherwise).
    func terminateWebProcess() {
        webkit_web_view_terminate_web_process(view)
    }

    /// Replaces the view's web process with a new one, which the next load starts: the view
    /// keeps its widgets, settings and scripts, the page's engine memory goes with the old
    /// process. Cheaper than a new view, whose GTK and WebKit UI-side objects are not all freed
    /// when it is destroyed (a batch's memory grew with every view it replaced).
    func renewWebProcess() {
        inbox.renewing = true
        webkit_web_view_terminate_web_process(view)
        uses = 0
        renewDue = false
        renewed = true
        startedProcess = nil
        knownWebProcess = nil
        startsWebProcess = true
    }

    /// Whether the view's web process is to be renewed before its next page
    /// (`renewAfterThisPage`); `renewWebProcess` clears it.
    private(set) var renewDue = false

    /// Asks for the view's web process to be renewed once its page is done.
    func renewAfterThisPage() {
        renewDue = true
    }

    /// Marks the view as not to be reused (its web process died).
    func retire() {
        open = false
    }

    /// The URI the view is loading or showing.
    var uri: String {
        webkit_web_view_get_uri(view).map { String(cString: $0) } ?? ""
    }

    /// The main resource's HTTP status and reason (nil for file:, data: and about: pages).
    var httpStatus: (code: Int, reason: String)? {
        guard let resource = webkit_web_view_get_main_resource(view),
              let response = webkit_web_resource_get_response(resource) else { return nil }
        let code = Int(webkit_uri_response_get_status_code(response))
        guard code > 0 else { return nil }
        let reason = webkit_uri_response_get_http_headers(response) == nil ? "" : HTTPReason.phrase(code)
        return (code, reason)
    }

    func stopLoading() {
        webkit_web_view_stop_loading(view)
    }

    /// The page world's hooks in place: whether they are the virtual clock's, and the device
    /// they emulate.
    var hooks: (script: BoxedReference, virtual: Bool, device: DeviceProfile.Name)?

    /// The style sheet that keeps the page's pixels undrawn, while it is in place.
    var undrawn: BoxedReference?

    /// Stops loading, disconnects the handlers and destroys the window.
    func close() {
        open = false
        guard let window else { return }
        self.window = nil
        webkit_web_view_stop_loading(view)
        webkit_user_content_manager_unregister_script_message_handler_in_world(manager, ProbeScript.messageHandler,
                                                                               ProbeScript.world)
        disconnectAll(UnsafeMutableRawPointer(view))
        disconnectAll(UnsafeMutableRawPointer(manager))
        gtk_widget_destroy(window)
        carried = nil
        boundary = nil
        requests.close()
        // A view's page, surfaces and buffers are freed now: give the pages back, so a long
        // batch's RSS does not keep every high-water mark of the views it retired.
        malloc_trim(0)
    }

    func disconnectAll(_ instance: UnsafeMutableRawPointer) {
        // Every handler we connected carries the inbox as its data; GLib releases each reference.
        let data = Unmanaged.passUnretained(inbox).toOpaque()
        g_signal_handlers_disconnect_matched(instance, G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, data)
    }

    /// Makes `boundary` the content filters that keep the next page inside what it may load (in
    /// place of the previous page's); returns whether they changed. A change reaches the web
    /// process later: load a blank page (`blank`) before the page that needs it.
    func adopt(_ boundary: Boundary) -> Bool {
        guard boundary != self.boundary else { return false }
        carried = (carry(boundary.files, replacing: carried?.files), carry(boundary.network, replacing: carried?.network))
        self.boundary = boundary
        return true
    }

    /// `filter` in the view's content manager in place of `current` (the same reference when
    /// it is the same filter).
    private func carry(_ filter: OpaquePointer, replacing current: BoxedReference?) -> BoxedReference {
        if let current, current.pointer == filter { return current }
        if let current { webkit_user_content_manager_remove_filter(manager, current.pointer) }
        webkit_user_content_manager_add_filter(manager, filter)
        return BoxedReference(retaining: filter, .contentFilter)
    }

    /// Loads `source`; an http(s) page's own request carries `headers` (`--request-header`).
    func load(_ source: PageSource, headers: [PageRequests.Header] = []) {
        renewed = false
        requests.startPage()
        if let historyBase { webkit_web_view_restore_session_state(view, historyBase.pointer) }
        noteWebProcess { start(source, headers: headers) }
    }

    func start(_ source: PageSource, headers: [PageRequests.Header]) {
        switch source {
        case .url(let url) where !headers.isEmpty && url.lowercased().hasPrefix("http"):
            let names = headers.map { strdup($0.name) }, values = headers.map { strdup($0.value) }
            defer { (names + values).forEach { free($0) } }
            let constNames = names.map { UnsafePointer<CChar>($0) }, constValues = values.map { UnsafePointer<CChar>($0) }
            ph_web_view_load_with_headers(view, url, constNames, constValues, Int32(headers.count))
        case .url(let url):
            webkit_web_view_load_uri(view, url)
        case .file(let path):
            let uri = URL(fileURLWithPath: path).absoluteString
            // GIO sniffs a local file's type from its content: an .html page that declares the
            // XHTML namespace would be parsed as XML (and stop at its first error). A browser
            // and a reader app take .html as text/html: load its bytes as such.
            let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
            if ext == "html" || ext == "htm", let data = FileManager.default.contents(atPath: path), data.isEmpty {
                webkit_web_view_load_html(view, "", uri) // load_bytes refuses empty bytes
            } else if ext == "html" || ext == "htm", let data = FileManager.default.contents(atPath: path) {
                let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
                defer { g_bytes_unref(bytes) }
                webkit_web_view_load_bytes(view, bytes, "text/html", nil, uri)
            } else {
                webkit_web_view_load_uri(view, uri)
            }
        case .html(let html, let base, _, _):
            webkit_web_view_load_html(view, html, base)
        }
    }

    /// Evaluates `script` in the probe's world; the result is a string as its text, any other
    /// value as JSON, or an error text.
    func evaluate(_ script: String) async -> Result<String, JavaScriptError> {
        typealias Bridge = CallbackBridge<Result<String, JavaScriptError>>
        return await Bridge.await(cancelled: .failure(JavaScriptError(message: "cancelled"))) { context in
            ph_evaluate(view, script, ProbeScript.world, nil, { json, error, data in
                let result: Result<String, JavaScriptError> = json.map { .success(String(cString: $0)) }
                    ?? .failure(JavaScriptError(message: error.map { String(cString: $0) } ?? "no result"))
                Bridge.resume(data, with: result)
            }, context)
        }
    }

    /// The subresources of the page loaded last that failed so far (the first
    /// `FailedResource.kept`), and how many failed.
    var failedResources: (listed: [FailedResource], total: Int) { (requests.failed, requests.failedTotal) }

    /// The view's requests (of any frame, any kind) that started and have not finished.
    var requestsInFlight: Int { requests.inFlight }
    /// The requests in flight now (their URLs, at most 50) and how many http(s) requests got a response.
    var requestsAtEnd: PendingRequests { requests.pending() }

    /// Writes a full-document PNG of the current state to `path`; nil, or what went wrong.
    func snapshot(to path: String) async -> String? {
        await CallbackBridge<String?>.await(cancelled: "cancelled") { context in
            ph_snapshot_png(view, path, nil, { error, data in
                CallbackBridge<String?>.resume(data, with: error.map { String(cString: $0) })
            }, context)
        }
    }

    /// What pages store, not the engine's caches: clearing the memory cache of a live web process
    /// is not needed for that, and the next page's resources are loaded afresh anyway.
    nonisolated static let pageData = WebKitWebsiteDataTypes(rawValue: [
        WEBKIT_WEBSITE_DATA_COOKIES, WEBKIT_WEBSITE_DATA_LOCAL_STORAGE, WEBKIT_WEBSITE_DATA_SESSION_STORAGE,
        WEBKIT_WEBSITE_DATA_INDEXEDDB_DATABASES, WEBKIT_WEBSITE_DATA_WEBSQL_DATABASES,
        WEBKIT_WEBSITE_DATA_OFFLINE_APPLICATION_CACHE, WEBKIT_WEBSITE_DATA_SERVICE_WORKER_REGISTRATIONS,
        WEBKIT_WEBSITE_DATA_DOM_CACHE,
    ].reduce(0) { $0 | $1.rawValue })

    /// The view's own data store (ephemeral: held in memory by WebKit's network process).
    var websiteDataManager: UnsafeMutablePointer<WebKitWebsiteDataManager> { webkit_web_view_get_website_data_manager(view) }

    /// Forgets what pages stored in this view's own data store (cookies, local and session
    /// storage, databases, service workers), so that the next page starts as the first did.
    /// False if WebKit could not: then the view must not be reused.
    func forgetWebsiteData() async -> Bool {
        await CallbackBridge<Bool>.await(cancelled: false) { context in
            ph_web_view_clear_website_data(view, Self.pageData, { error, data in
                CallbackBridge<Bool>.resume(data, with: error == nil)
            }, context)
        }
    }

    /// Adds `cookie` to the view's own data store (cleared after each page: `ViewPool.ready`),
    /// for `host` when it names no domain. SameSite=Lax, whatever the site set: the user's
    /// cookie goes with the page's own site's requests, never with a request another site's
    /// document sends there (after a redirect away from the cookie's site). Nil, or what went wrong.
    func add(_ cookie: PageRequests.Cookie, host: String) async -> String? {
        let domain = cookie.domain.map { cookie.includeSubdomains && !$0.hasPrefix(".") ? "." + $0 : $0 } ?? host
        return await CallbackBridge<String?>.await(cancelled: "cancelled") { context in
            ph_web_view_add_cookie(view, cookie.name, cookie.value, domain, cookie.path, cookie.secure ? 1 : 0,
                                   cookie.httpOnly ? 1 : 0, gint64(cookie.expires ?? 0), 1, { error, data in
                CallbackBridge<String?>.resume(data, with: error.map { String(cString: $0) })
            }, context)
        }
    }

    /// The bytes of the main resource as loaded (for the text-length fallback).
    func mainResourceData() async -> Data? {
        await CallbackBridge<Data?>.await(cancelled: nil) { context in
            ph_main_resource_data(view, nil, { bytes, length, _, data in
                CallbackBridge<Data?>.resume(data, with: bytes.map { Data(bytes: $0, count: Int(length)) })
            }, context)
        }
    }
}

/// A failed JavaScript evaluation, as WebKit described it.
struct JavaScriptError: Error {
    var message: String
}
