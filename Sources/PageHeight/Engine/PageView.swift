import CPageHeightShim
import CWebKit
import Foundation

/// One off-screen web view: a WebKitWebView in a shown GtkOffscreenWindow, with the probe
/// injected and every result-changing setting set explicitly. GLib thread only.
///
/// Owns its window (which owns the view) and its content manager; `close()` or deinit
/// destroys them. Signal handlers hold the `PageView.Events` box, released by GLib when the
/// handler is disconnected.
final class PageView {
    /// What the view tells its owner. Set before loading; called on the GLib thread.
    final class Events {
        var loadChanged: (WebKitLoadEvent) -> Void = { _ in }
        var loadFailed: (_ uri: String, _ domain: String, _ code: Int32, _ message: String) -> Void = { _, _, _, _ in }
        var processTerminated: (WebKitWebProcessTerminationReason) -> Void = { _ in }
        var probeMessage: (String) -> Void = { _ in }
        /// Set while the view's web process is being replaced on purpose (`renewWebProcess`):
        /// that termination is not reported.
        var renewing = false
        /// The target of the last navigation action (the page's own, or one it starts).
        var lastNavigationTarget = ""
    }

    let events = Events()
    /// Pages measured in this view's current web process; the pool renews the process after a
    /// number of them.
    var uses = 0
    /// Whether the view's web process was renewed since its last page.
    private(set) var renewed = false
    /// The pid of the view's web process, when known (WebKit's API does not tell it). WebKit
    /// starts a view's web process during the first load call after the view was made or its
    /// process renewed, so the one web process of ours that appears during that call is the
    /// view's. Nil before that load, after a renewal, or when that call started none or several.
    private(set) var webProcess: Int32?
    /// Whether the next load starts the view's web process.
    private var startsWebProcess = true
    /// False once its web process died or it was closed: it must not be reused.
    private(set) var reusable = true
    private var window: UnsafeMutablePointer<GtkWidget>?
    private let view: UnsafeMutablePointer<WebKitWebView>
    private let manager: UnsafeMutablePointer<WebKitUserContentManager>
    /// The content filter of the page loaded last (`SubresourceBoundary`), referenced here.
    private var boundary: OpaquePointer?
    private let zoom: Double
    private let cssWidth: Int
    private let javascript: Bool

    init(context: OpaquePointer, filter: OpaquePointer? = nil, options: MeasureOptions) {
        manager = webkit_user_content_manager_new()
        if let filter { webkit_user_content_manager_add_filter(manager, filter) }
        view = ph_web_view_new(UnsafeMutablePointer(context), manager)
        zoom = options.zoom
        cssWidth = options.width
        javascript = options.javascript
        g_object_ref_sink(UnsafeMutableRawPointer(view))

        let settings = webkit_web_view_get_settings(view)
        webkit_settings_set_enable_javascript(settings, options.javascript ? 1 : 0)
        webkit_settings_set_default_font_size(settings, guint32(options.fontSize))
        webkit_settings_set_default_monospace_font_size(settings, guint32((Double(options.fontSize) * 13 / 16).rounded()))
        webkit_settings_set_default_charset(settings, "UTF-8")
        webkit_settings_set_enable_page_cache(settings, 0)
        webkit_settings_set_allow_file_access_from_file_urls(settings, 0)
        webkit_settings_set_allow_universal_access_from_file_urls(settings, 0)
        webkit_settings_set_javascript_can_open_windows_automatically(settings, 0)
        webkit_settings_set_enable_smooth_scrolling(settings, 0)
        webkit_settings_set_media_playback_requires_user_gesture(settings, 1)
        webkit_settings_set_enable_developer_extras(settings, 0)
        webkit_settings_set_enable_write_console_messages_to_stdout(settings, 0)
        // No compositing: layout is the same, and a tall view costs a third of the memory
        // (a 50,000 px article: web process 100 MB instead of 367 MB).
        webkit_settings_set_hardware_acceleration_policy(settings, WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER)
        // With no GL driver in the web processes (`DriverlessEGL`), WebGL is off rather than failing
        // at every request (WebKit's GL layer then writes errors to stderr): `getContext` returns
        // null either way.
        if DriverlessEGL.installed { webkit_settings_set_enable_webgl(settings, 0) }
        // No service workers: a worker one page registers outlives the clear between pages and
        // would answer the next same-origin page's requests (and a reader app's web view has none).
        EngineFeature.disable("ServiceWorkers", in: settings)
        webkit_web_view_set_zoom_level(view, options.zoom)
        ph_dismiss_dialogs_and_refuse_popups(view)
        ph_track_requests(view)

        setClock(virtual: options.clock == .virtual)
        addScript(ProbeScript.source(metric: options.metric), frames: WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                  world: ProbeScript.world)
        if options.offline {
            addScript(RepeatableRandom.source, frames: WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES)
        }
        webkit_user_content_manager_register_script_message_handler_in_world(manager, ProbeScript.messageHandler,
                                                                             ProbeScript.world)

        let box = { Unmanaged.passRetained(self.events).toOpaque() }
        let release: GClosureNotify = { data, _ in Unmanaged<Events>.fromOpaque(data!).release() }
        ph_connect_load_changed(view, { _, event, data in
            Unmanaged<Events>.fromOpaque(data!).takeUnretainedValue().loadChanged(event)
        }, box(), release)
        ph_connect_load_failed(view, { _, _, uri, error, data in
            let events = Unmanaged<Events>.fromOpaque(data!).takeUnretainedValue()
            let domain = error.map { String(cString: g_quark_to_string($0.pointee.domain)) } ?? "unknown"
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            events.loadFailed(uri.map { String(cString: $0) } ?? "", domain, error?.pointee.code ?? 0, message)
            return 1 // handled: no error page is loaded
        }, box(), release)
        ph_connect_process_terminated(view, { _, reason, data in
            let events = Unmanaged<Events>.fromOpaque(data!).takeUnretainedValue()
            if events.renewing, reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API {
                events.renewing = false
                return
            }
            events.processTerminated(reason)
        }, box(), release)
        ph_connect_navigation_targets(view, { uri, data in
            Unmanaged<Events>.fromOpaque(data!).takeUnretainedValue().lastNavigationTarget = uri.map { String(cString: $0) } ?? ""
        }, box(), release)
        ph_connect_script_message(manager, ProbeScript.messageHandler, { _, result, data in
            guard let result, let value = webkit_javascript_result_get_js_value(result),
                  let text = jsc_value_to_string(value) else { return }
            let message = String(cString: text)
            g_free(text)
            Unmanaged<Events>.fromOpaque(data!).takeUnretainedValue().probeMessage(message)
        }, box(), release)

        let offscreen = gtk_offscreen_window_new()!
        window = offscreen
        offscreen.withMemoryRebound(to: GtkContainer.self, capacity: 1) { container in
            view.withMemoryRebound(to: GtkWidget.self, capacity: 1) { gtk_container_add(container, $0) }
        }
        setViewportHeight(Double(options.height))
        gtk_widget_show_all(offscreen)
        ph_window_skip_drawing(offscreen) // shown for WebKit, never looked at (once realized)
    }

    deinit {
        close()
        if let hooks { webkit_user_script_unref(hooks.script) }
        g_object_unref(UnsafeMutableRawPointer(view))
        g_object_unref(UnsafeMutableRawPointer(manager))
    }

    /// Replaces the page with an empty document of its own at a viewport `height` CSS px tall,
    /// so that nothing of the page reaches the next one: a navigation its scripts start after
    /// its verdict, a load event still on its way, the view height fit mode gave it. Without
    /// this a batch could hand one page's load events, and so its height, to the next page, or
    /// lay the next page out in a viewport still as tall as the last (a 100vh page then
    /// measures that). `done(true)` once the view has finished loading and the document itself
    /// says it is that blank page, complete, with that viewport: the view's URI changes as soon
    /// as a load is asked for and a resize takes 20-40 ms, so only the page can tell, and the
    /// title is new each time, so that a page that failed to load (still the initial
    /// about:blank) cannot pass for it. `done(false)` if that did not happen within a second,
    /// or the view cannot run JavaScript: then the view must not be reused.
    func blank(height: Double, _ done: @escaping (Bool) -> Void) {
        let once = Once(done)
        guard javascript, reusable else { return once.call(false) }
        Self.blanks += 1
        let title = "pageheight-blank-\(Self.blanks)"
        let prefix = "\(title) complete "
        let expected = prefix + "\(Int(expectedInnerHeight(for: height)))"
        var finished = false, gaveUp = false
        let guardTimer = GLibTimer(after: 1) {
            gaveUp = true
            once.call(false)
        }
        func check() {
            guard finished, !gaveUp else { return }
            evaluate("document.title + ' ' + document.readyState + ' ' + window.innerHeight") { [weak self] result in
                guard let self, case .success(let text) = result, text.hasPrefix(prefix) else { return }
                // The blank document's own load-finished comes before this answer (the web
                // process reports a load complete before it runs the next script).
                if text == expected && webkit_web_view_is_loading(self.view) == 0 {
                    guardTimer.cancel()
                    self.events.loadChanged = { _ in }
                    once.call(true)
                } else {
                    _ = GLibTimer(after: 0.01) { check() } // still resizing, or still loading
                }
            }
        }
        events.loadFailed = { _, _, _, _ in }
        events.probeMessage = { _ in }
        events.processTerminated = { [weak self] _ in self?.reusable = false }
        events.loadChanged = { event in
            guard event == WEBKIT_LOAD_FINISHED else { return }
            finished = true
            check()
        }
        setViewportHeight(height)
        noteWebProcess { webkit_web_view_load_uri(view, "data:text/html,%3Ctitle%3E\(title)%3C%2Ftitle%3E") }
    }

    /// Runs `load`; when it starts the view's web process, notes that process's pid.
    private func noteWebProcess(_ load: () -> Void) {
        guard startsWebProcess else { return load() }
        startsWebProcess = false
        let before = Set(WebProcesses.ofThisProcess())
        load()
        let started = Set(WebProcesses.ofThisProcess()).subtracting(before)
        webProcess = started.count == 1 ? started.first : nil
    }

    /// Blank pages loaded so far (their titles tell them apart). GLib thread only.
    nonisolated(unsafe) private static var blanks = 0

    /// Kills the view's web process (a page stuck in a busy loop keeps spinning otherwise).
    func terminateWebProcess() {
        webkit_web_view_terminate_web_process(view)
    }

    /// Replaces the view's web process with a new one, which the next load starts: the view
    /// keeps its widgets, settings and scripts, the page's engine memory goes with the old
    /// process. Cheaper than a new view, whose GTK and WebKit UI-side objects are not all freed
    /// when it is destroyed (about 60 KB a view: a batch's RSS grew by 12.5 KB a page when
    /// views were replaced every 5 pages, 2.7 KB with every 50).
    func renewWebProcess() {
        events.renewing = true
        webkit_web_view_terminate_web_process(view)
        uses = 0
        renewed = true
        webProcess = nil
        startsWebProcess = true
    }

    /// Marks the view as not to be reused (its web process died).
    func retire() {
        reusable = false
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

    /// The page world's hooks in place, and whether they are the virtual clock's.
    private var hooks: (script: OpaquePointer, virtual: Bool)?

    /// Puts the hooks of the real clock (today's: the top frame's timers and requests) or of the
    /// virtual clock (every frame's time as well) in place for the next load.
    func setClock(virtual: Bool) {
        guard hooks?.virtual != virtual else { return }
        if let hooks {
            webkit_user_content_manager_remove_script(manager, hooks.script)
            webkit_user_script_unref(hooks.script)
        }
        let frames = virtual ? WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES : WEBKIT_USER_CONTENT_INJECT_TOP_FRAME
        let script = webkit_user_script_new(ProbeScript.hooks(virtualClock: virtual), frames,
                                            WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)!
        webkit_user_content_manager_add_script(manager, script)
        hooks = (script, virtual)
    }

    /// Runs `source` at document start in the chosen frames of every page this view loads, in
    /// the page's own script world or in the named one.
    private func addScript(_ source: String, frames: WebKitUserContentInjectedFrames, world: String? = nil) {
        let script = world.map {
            webkit_user_script_new_for_world(source, frames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, $0, nil, nil)
        } ?? webkit_user_script_new(source, frames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
        webkit_user_content_manager_add_script(manager, script)
        webkit_user_script_unref(script)
    }

    /// Stops loading, disconnects the handlers and destroys the window.
    func close() {
        reusable = false
        guard let window else { return }
        self.window = nil
        webkit_web_view_stop_loading(view)
        webkit_user_content_manager_unregister_script_message_handler_in_world(manager, ProbeScript.messageHandler,
                                                                               ProbeScript.world)
        disconnectAll(UnsafeMutableRawPointer(view))
        disconnectAll(UnsafeMutableRawPointer(manager))
        gtk_widget_destroy(window)
        if let boundary {
            webkit_user_content_filter_unref(boundary)
            self.boundary = nil
        }
        // A view's page, surfaces and buffers are freed now: give the pages back, so a long
        // batch's RSS does not keep every high-water mark of the views it retired.
        malloc_trim(0)
    }

    private func disconnectAll(_ instance: UnsafeMutableRawPointer) {
        // Every handler we connected carries an Events box as its data; GLib releases each box.
        let data = Unmanaged.passUnretained(events).toOpaque()
        g_signal_handlers_disconnect_matched(instance, G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, data)
    }

    /// Sets the viewport height in CSS px (the view is `height * zoom` device px tall).
    /// Takes effect asynchronously: `innerHeight` follows 20-40 ms later.
    func setViewportHeight(_ height: Double) {
        let deviceWidth = gint((Double(cssWidth) * zoom).rounded())
        let deviceHeight = gint(max(1, (height * zoom).rounded()))
        view.withMemoryRebound(to: GtkWidget.self, capacity: 1) {
            gtk_widget_set_size_request($0, deviceWidth, deviceHeight)
        }
        if let window {
            window.withMemoryRebound(to: GtkWindow.self, capacity: 1) { gtk_window_resize($0, deviceWidth, deviceHeight) }
        }
    }

    /// The CSS height `innerHeight` will read once a viewport of `height` CSS px took effect.
    func expectedInnerHeight(for height: Double) -> Double {
        (max(1, (height * zoom).rounded()) / zoom).rounded(.down)
    }

    /// Makes `boundary` the content filter that keeps the next page inside what it may load (in
    /// place of the previous page's); returns whether it changed. A change reaches the web
    /// process later: load a blank page (`blank`) before the page that needs it.
    func adopt(_ boundary: OpaquePointer) -> Bool {
        guard boundary != self.boundary else { return false }
        if let current = self.boundary {
            webkit_user_content_manager_remove_filter(manager, current)
            webkit_user_content_filter_unref(current)
        }
        webkit_user_content_manager_add_filter(manager, boundary)
        webkit_user_content_filter_ref(boundary)
        self.boundary = boundary
        return true
    }

    func load(_ source: PageSource) {
        renewed = false
        noteWebProcess { start(source) }
    }

    private func start(_ source: PageSource) {
        switch source {
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
                webkit_web_view_load_bytes(view, bytes, "text/html", nil, uri)
                g_bytes_unref(bytes)
            } else {
                webkit_web_view_load_uri(view, uri)
            }
        case .html(let html, let base):
            webkit_web_view_load_html(view, html, base)
        }
    }

    /// Evaluates `script` in the page; the completion gets the result (a string as its text, any
    /// other value as JSON) or an error text.
    func evaluate(_ script: String, completion: @escaping (Result<String, JavaScriptError>) -> Void) {
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        ph_evaluate(view, script, ProbeScript.world, nil, { json, error, data in
            let completion = Unmanaged<CompletionBox<Result<String, JavaScriptError>>>.fromOpaque(data!).takeRetainedValue()
            if let json {
                completion.body(.success(String(cString: json)))
            } else {
                completion.body(.failure(JavaScriptError(message: error.map { String(cString: $0) } ?? "no result")))
            }
        }, box)
    }

    /// The view's requests (of any frame, any kind) that started and have not finished.
    var requestsInFlight: Int { Int(ph_requests_in_flight(view)) }

    /// Writes a full-document PNG of the current state to `path`.
    func snapshot(to path: String, completion: @escaping (String?) -> Void) {
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        ph_snapshot_png(view, path, nil, { error, data in
            let completion = Unmanaged<CompletionBox<String?>>.fromOpaque(data!).takeRetainedValue()
            completion.body(error.map { String(cString: $0) })
        }, box)
    }

    /// Forgets what pages stored in this view's own data store (cookies, local and session
    /// storage, databases, service workers), so that the next page starts as the first did.
    /// `done(false)` if WebKit could not: then the view must not be reused.
    func forgetWebsiteData(_ done: @escaping (Bool) -> Void) {
        let box = Unmanaged.passRetained(CompletionBox(done)).toOpaque()
        ph_web_view_clear_website_data(view, { error, data in
            let completion = Unmanaged<CompletionBox<Bool>>.fromOpaque(data!).takeRetainedValue()
            completion.body(error == nil)
        }, box)
    }

    /// The bytes of the main resource as loaded (for the text-length fallback).
    func mainResourceData(completion: @escaping (Data?) -> Void) {
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        ph_main_resource_data(view, nil, { bytes, length, _, data in
            let completion = Unmanaged<CompletionBox<Data?>>.fromOpaque(data!).takeRetainedValue()
            completion.body(bytes.map { Data(bytes: $0, count: Int(length)) })
        }, box)
    }
}

/// A failed JavaScript evaluation, as WebKit described it.
struct JavaScriptError: Error {
    var message: String
}

/// A one-shot async callback's context, retained until the callback runs once.
private final class CompletionBox<Value> {
    let body: (Value) -> Void
    init(_ body: @escaping (Value) -> Void) { self.body = body }
}

/// Reason phrases for the HTTP statuses a page load most often ends with.
enum HTTPReason {
    static func phrase(_ code: Int) -> String {
        switch code {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: code >= 500 ? "Server Error" : "Client Error"
        }
    }
}

/// WebKit's named runtime features (`WebKitFeature`), switched per view.
enum EngineFeature {
    /// Turns the feature called `identifier` off in `settings`; a precondition that it exists, so a
    /// WebKit that renames it fails loudly instead of leaving it on.
    static func disable(_ identifier: String, in settings: UnsafeMutablePointer<WebKitSettings>?) {
        let features = webkit_settings_get_all_features()
        defer { webkit_feature_list_unref(features) }
        for index in 0..<webkit_feature_list_get_length(features) {
            guard let feature = webkit_feature_list_get(features, index),
                  String(cString: webkit_feature_get_identifier(feature)) == identifier else { continue }
            webkit_settings_set_feature_enabled(settings, feature, 0)
            return
        }
        preconditionFailure("WebKit has no feature \(identifier)")
    }
}
