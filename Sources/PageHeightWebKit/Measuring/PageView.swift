import CPageHeightShim
import CWebKit
import Foundation
import PageHeightCore

/// What a view's signals told, in order: the load's progress, a failed load, a web process that
/// ended, and the probe's messages.
enum ViewEvent: Sendable {
    enum Load: Sendable { case started, redirected, committed, finished }
    case load(Load)
    case loadFailed(uri: String, domain: String, code: Int32, message: String)
    case processTerminated(LoadOutcome.ProcessEnd)
    case probeMessage(String)
    /// The page started `Inbox.navigationLoopAt` navigations after its commit.
    case navigationLoop(Int)
}

/// One off-screen web view: a WebKitWebView in a shown GtkOffscreenWindow, with the probe
/// injected and every result-changing setting set explicitly.
///
/// Owns its window (which owns the view) and its content manager; `close()` or deinit
/// destroys them. Every signal handler carries the view's `Inbox` (released by GLib when the
/// handler is disconnected), which queues what the signals tell for `next(until:)`: the view
/// holds the inbox, nothing in the inbox holds the view.
@GLibActor
final class PageView {
    /// The view's signals, queued in order, for one reader at a time.
    @GLibActor
    final class Inbox {
        private var queue: [ViewEvent] = []
        private var waiter: CheckedContinuation<ViewEvent?, Never>?
        private var waits = 0
        /// Set while the view's web process is being replaced on purpose (`renewWebProcess`):
        /// that termination is not reported.
        var renewing = false
        /// Set once the view's web process ended other than by `renewWebProcess`: killed,
        /// crashed, or out of memory, during a page or while the view waited idle.
        var processDied = false
        /// The target of the last navigation action (the page's own, or one it starts).
        var lastNavigationTarget = ""
        /// Whether the page loaded since the last `clear()` finished loading.
        var loadFinished = false
        /// Navigation actions (of any frame: WebKit's API does not tell a frame's from the
        /// page's) since the page's load finished: each costs the UI process what WebKit keeps of
        /// it until the web process goes, which a page starting them in a loop makes grow without
        /// end.
        var navigationsAfterCommit = 0
        /// Navigation actions after the load that make a page a navigation loop: more than the
        /// frames a page adds after its load.
        static let navigationLoopAt = 30

        func post(_ event: ViewEvent) {
            if let waiter {
                self.waiter = nil
                deadlineTimer.take()?.cancel()
                waiter.resume(returning: event)
            } else {
                queue.append(event)
            }
        }

        /// Whether the page loaded since the last `clear()` committed.
        var committed = false

        /// Forgets what was queued (another page's late signals), before a new page.
        func clear() {
            queue.removeAll()
            committed = false
            loadFinished = false
            navigationsAfterCommit = 0
        }

        /// The next event if one is queued (no wait).
        func take() -> ViewEvent? {
            queue.isEmpty ? nil : queue.removeFirst()
        }

        /// The next event, or nil when `deadline` (monotonic seconds) passed first or the task
        /// was cancelled.
        func next(until deadline: Double? = nil, precise: Bool = false) async -> ViewEvent? {
            if !queue.isEmpty { return queue.removeFirst() }
            guard !Task.isCancelled else { return nil }
            waits += 1
            let wait = waits
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    waiter = continuation
                    if let deadline {
                        deadlineTimer = Task { @GLibActor in
                            await GLibClock.sleep(max(0, deadline - GLibClock.now), precise: precise)
                            self.expire(wait)
                        }
                    }
                }
            } onCancel: {
                Task { @GLibActor in self.expire(wait) }
            }
        }

        /// The wait for the current deadline, ended (its source removed) when an event comes first.
        private var deadlineTimer: Task<Void, Never>?

        private func expire(_ wait: Int) {
            guard wait == waits, let waiter else { return }
            self.waiter = nil
            deadlineTimer.take()?.cancel() // when the wait itself was cancelled
            waiter.resume(returning: nil)
        }
    }

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
    private var window: UnsafeMutablePointer<GtkWidget>?
    private let view: UnsafeMutablePointer<WebKitWebView>
    private let manager: UnsafeMutablePointer<WebKitUserContentManager>
    /// The content filters of the page loaded last (`SubresourceBoundary`), referenced here.
    private(set) var boundary: Boundary?
    /// The view's session history when it held one blank page and nothing else, restored before
    /// every page (`load`): each page then finds a fresh view's history (`history.length` 1),
    /// whatever pages the view showed before it. Without it the length counts them all.
    private var historyBase: OpaquePointer?
    /// Whether the view has its `historyBase`: a page must not be loaded without it (blank first).
    var hasHistoryBase: Bool { historyBase != nil }
    /// The page zoom, viewport width and font size the view was made with (`ViewPool`'s key);
    /// a step (`PageStep`) changes them live, `restoreSettings` gives them back.
    private let made: (zoom: Double, width: Int, fontSize: Int)
    private var zoom: Double
    private var cssWidth: Int
    private let javascript: Bool

    init(context: OpaquePointer, filter: OpaquePointer? = nil, options: MeasureOptions) {
        manager = webkit_user_content_manager_new()
        if let filter { webkit_user_content_manager_add_filter(manager, filter) }
        view = ph_web_view_new(UnsafeMutablePointer(context), manager)
        zoom = options.zoom
        cssWidth = options.width
        made = (options.zoom, options.width, options.fontSize)
        javascript = options.javascript
        g_object_ref_sink(UnsafeMutableRawPointer(view))

        Self.applySettings(options, to: webkit_web_view_get_settings(view))
        webkit_web_view_set_zoom_level(view, options.zoom)
        ph_dismiss_dialogs_and_refuse_popups(view)
        ph_track_requests(view)
        injectScripts(options)
        connectSignals()
        showInOffscreenWindow(height: Double(options.height))
    }

    /// Every setting that changes a result, set explicitly (none inherited from WebKit's defaults).
    private static func applySettings(_ options: MeasureOptions, to settings: UnsafeMutablePointer<WebKitSettings>?) {
        webkit_settings_set_enable_javascript(settings, options.javascript ? 1 : 0)
        Self.setFontSize(options.fontSize, in: settings)
        FamilySettings.apply(DeviceFonts.of(options.deviceProfile.name), to: settings)
        webkit_settings_set_default_charset(settings, "UTF-8")
        webkit_settings_set_enable_page_cache(settings, 0)
        webkit_settings_set_allow_file_access_from_file_urls(settings, 0)
        webkit_settings_set_allow_universal_access_from_file_urls(settings, 0)
        webkit_settings_set_javascript_can_open_windows_automatically(settings, 0)
        webkit_settings_set_enable_smooth_scrolling(settings, 0)
        webkit_settings_set_media_playback_requires_user_gesture(settings, 1)
        webkit_settings_set_enable_developer_extras(settings, 0)
        webkit_settings_set_enable_write_console_messages_to_stdout(settings, 0)
        // No compositing: layout is the same, and a tall view costs a fraction of the memory
        // (no layer backing store as tall as the page).
        webkit_settings_set_hardware_acceleration_policy(settings, WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER)
        // With no GL driver in the web processes (`DriverlessEGL`), WebGL is off rather than failing
        // at every request (WebKit's GL layer then writes errors to stderr): `getContext` returns
        // null either way.
        // No WebGL, as with the driverless EGL, also where that library is missing (a library user's
        // plain `swift build`): a page measures the same either way.
        if !DriverlessEGL.webGLAskedFor { webkit_settings_set_enable_webgl(settings, 0) }
        // No service workers: a worker one page registers outlives the clear between pages and
        // would answer the next same-origin page's requests (and a reader app's web view has none).
        EngineFeature.disable("ServiceWorkers", in: settings)
        // No view transitions of the engine's: WebKit draws one in accelerated compositing, which
        // it enters for a transition whatever the policy above, and our process has nothing to
        // show it in. Its accelerated backing store exists only where GTK can initialise GL and
        // the DMA-BUF renderer is on; ours has neither (our Xvfb runs without GLX, and
        // `PageHeightEngine` turns that renderer off to keep Mesa out of this process), so the
        // first frame of a transition made WebKit dereference the missing store: SIGSEGV in this
        // process, not the web process. The hooks answer `document.startViewTransition` as a
        // browser that skips the transition does (the update runs, nothing is animated).
        EngineFeature.disable("ViewTransitions", in: settings)
        EngineFeature.disable("CrossDocumentViewTransitions", in: settings)
    }

    /// The hooks (every frame), the probe (the top frame, in its own world) and, offline, the
    /// repeatable `Math.random`; and the probe's message handler.
    private func injectScripts(_ options: MeasureOptions) {
        setHooks(virtual: options.clock == .virtual, device: options.deviceProfile)
        addScript(ProbeScript.source(metric: options.metric), frames: WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                  world: ProbeScript.world)
        if options.offline {
            addScript(RepeatableRandom.source, frames: WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES)
        }
        webkit_user_content_manager_register_script_message_handler_in_world(manager, ProbeScript.messageHandler,
                                                                             ProbeScript.world)

    }

    /// Connects the view's signals to its inbox: load changes, failed loads, a web process that
    /// ended, navigation targets and the probe's messages.
    private func connectSignals() {
        // The trampolines run inside the signal on the GLib thread and only queue what they were told.
        let box = { Unmanaged.passRetained(self.inbox).toOpaque() }
        let release: GClosureNotify = { data, _ in Unmanaged<Inbox>.fromOpaque(data!).release() }
        ph_connect_load_changed(view, { view, event, data in
            let load: ViewEvent.Load? = switch event {
            case WEBKIT_LOAD_STARTED: .started
            case WEBKIT_LOAD_REDIRECTED: .redirected
            case WEBKIT_LOAD_COMMITTED: .committed
            case WEBKIT_LOAD_FINISHED: .finished
            default: nil
            }
            guard let load else { return }
            GLibActor.assumeIsolated {
                let inbox = PageView.inbox(data)
                // Once the page committed, a new main-frame load is the page navigating away (a
                // script, a meta refresh, a form): stopped here, inside the signal, as a local
                // page would commit before the event is read.
                if load == .started, inbox.committed { webkit_web_view_stop_loading(view) }
                if load == .committed { inbox.committed = true }
                if load == .finished { inbox.loadFinished = true }
                inbox.post(.load(load))
            }
        }, box(), release)
        ph_connect_load_failed(view, { _, _, uri, error, data in
            let domain = error.map { String(cString: g_quark_to_string($0.pointee.domain)) } ?? "unknown"
            let message = error.map { PageText.prefix($0.pointee.message, bytes: PageText.urlKept) } ?? "unknown error"
            let event = ViewEvent.loadFailed(uri: uri.map { PageText.prefix($0, bytes: PageText.urlKept) } ?? "", domain: domain,
                                             code: error?.pointee.code ?? 0, message: message)
            GLibActor.assumeIsolated { PageView.inbox(data).post(event) }
            return 1 // handled: no error page is loaded
        }, box(), release)
        ph_connect_process_terminated(view, { _, reason, data in
            let end: LoadOutcome.ProcessEnd = reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? .exceededMemoryLimit
                : reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API ? .terminatedByAPI : .crashed
            GLibActor.assumeIsolated {
                let inbox = PageView.inbox(data)
                if inbox.renewing, end == .terminatedByAPI {
                    inbox.renewing = false
                    return
                }
                inbox.processDied = true
                inbox.post(.processTerminated(end))
            }
        }, box(), release)
        ph_connect_navigation_targets(view, { uri, data in
            let target = uri.map { PageText.prefix($0, bytes: PageText.urlKept) } ?? "" // a page chooses its length
            GLibActor.assumeIsolated {
                let inbox = PageView.inbox(data)
                inbox.lastNavigationTarget = target
                guard inbox.loadFinished else { return }
                inbox.navigationsAfterCommit += 1
                if inbox.navigationsAfterCommit == Inbox.navigationLoopAt { inbox.post(.navigationLoop(Inbox.navigationLoopAt)) }
            }
        }, box(), release)
        ph_connect_script_message(manager, ProbeScript.messageHandler, { _, result, data in
            guard let result, let value = webkit_javascript_result_get_js_value(result),
                  let text = jsc_value_to_string(value) else { return }
            // The probe's messages are small; only a page could make one huge, and it cannot reach
            // this handler (the probe's own world): a message past the cap is not the probe's.
            let message = PageText.prefix(text, bytes: 1 << 20)
            g_free(text)
            GLibActor.assumeIsolated { PageView.inbox(data).post(.probeMessage(message)) }
        }, box(), release)

    }

    /// Puts the view in a shown offscreen window `height` CSS px tall (shown: else WebKit runs no
    /// resize observers and reads a 0x0 viewport).
    private func showInOffscreenWindow(height: Double) {
        let offscreen = gtk_offscreen_window_new()!
        window = offscreen
        offscreen.withMemoryRebound(to: GtkContainer.self, capacity: 1) { container in
            view.withMemoryRebound(to: GtkWidget.self, capacity: 1) { gtk_container_add(container, $0) }
        }
        setViewportHeight(height)
        gtk_widget_show_all(offscreen)
        ph_window_skip_drawing(offscreen) // shown for WebKit, never looked at (once realized)
    }

    /// The inbox a signal handler was connected with.
    private static func inbox(_ data: UnsafeMutableRawPointer?) -> Inbox {
        Unmanaged<Inbox>.fromOpaque(data!).takeUnretainedValue()
    }

    isolated deinit {
        close()
        if let hooks { webkit_user_script_unref(hooks.script) }
        if let undrawn { webkit_user_style_sheet_unref(undrawn) }
        if let historyBase { webkit_web_view_session_state_unref(historyBase) }
        g_object_unref(UnsafeMutableRawPointer(view))
        g_object_unref(UnsafeMutableRawPointer(manager))
    }

    /// Replaces the page with an empty document of its own at a viewport `height` CSS px tall,
    /// so that nothing of the page reaches the next one: a navigation its scripts start after
    /// its verdict, a load event still on its way, the view height fit mode gave it. Without
    /// this a batch could hand one page's load events, and so its height, to the next page, or
    /// lay the next page out in a viewport still as tall as the last (a 100vh page then
    /// measures that). True once the view has finished loading and the document itself
    /// says it is that blank page, complete, with that viewport: the view's URI changes as soon
    /// as a load is asked for and a resize takes tens of milliseconds, so only the page can tell, and the
    /// title is new each time, so that a page that failed to load (still the initial
    /// about:blank) cannot pass for it. False if that did not happen within a second,
    /// or the view cannot run JavaScript: then the view must not be reused.
    func blank(height: Double) async -> Bool {
        guard javascript, reusable else { return false }
        Self.blanks += 1
        let title = "pageheight-blank-\(Self.blanks)"
        let prefix = "\(title) complete "
        let expected = prefix + "\(Int(expectedInnerHeight(for: height)))"
        let deadline = GLibClock.now + 1
        inbox.clear()
        noteWebProcess { webkit_web_view_load_uri(view, "data:text/html,%3Ctitle%3E\(title)%3C%2Ftitle%3E") }
        var finished = false
        while GLibClock.now < deadline {
            if !finished {
                switch await inbox.next(until: deadline) {
                case nil: return false
                case .load(.committed)?:
                    // Resized once the page is gone: before, the web process laid the page out
                    // again at the new height (and drew it) only to unload it.
                    setViewportHeight(height)
                case .load(.finished)?: finished = true
                case .processTerminated?: return false // and the view is no longer reusable
                default: continue
                }
            }
            let result = await firstOf(within: max(0, deadline - GLibClock.now), fallback: .failure(JavaScriptError(message: "no answer"))) {
                await self.evaluate("document.title + ' ' + document.readyState + ' ' + window.innerHeight")
            }
            guard case .success(let text) = result, text.hasPrefix(prefix) else {
                finished = false // not the blank page yet: wait for its load to finish
                continue
            }
            // The blank document's own load-finished comes before this answer (the web
            // process reports a load complete before it runs the next script).
            if text == expected && webkit_web_view_is_loading(view) == 0 {
                if historyBase == nil, webkit_back_forward_list_get_length(webkit_web_view_get_back_forward_list(view)) == 1 {
                    historyBase = webkit_web_view_get_session_state(view)
                }
                return true
            }
            setViewportHeight(height) // in case the commit went by unseen; no change if it did not
            await GLibClock.sleep(0.01) // still resizing, or still loading
        }
        return false
    }

    /// Runs `load`; when it starts the view's web process, notes that process's pid.
    private func noteWebProcess(_ load: () -> Void) {
        guard startsWebProcess else { return load() }
        startsWebProcess = false
        let before = Set(WebProcesses.children())
        load()
        let started = Set(WebProcesses.children()).subtracting(before)
        startedProcess = started.count == 1 ? started.first : nil
        knownWebProcess = nil
    }

    /// Blank pages loaded so far (their titles tell them apart).
    private static var blanks = 0

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
    private var hooks: (script: OpaquePointer, virtual: Bool, device: DeviceProfile.Name)?

    /// Puts the hooks of the real clock (every frame's timers and requests) or of the virtual
    /// clock (every frame's time as well) in place for the next load, with what scripts read of
    /// `device`; and the device's user agent.
    func setHooks(virtual: Bool, device: DeviceProfile) {
        guard hooks?.virtual != virtual || hooks?.device != device.name else { return }
        if let hooks {
            webkit_user_content_manager_remove_script(manager, hooks.script)
            webkit_user_script_unref(hooks.script)
        }
        let script = webkit_user_script_new(ProbeScript.hooks(virtualClock: virtual, device: device),
                                            WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
                                            nil, nil)!
        webkit_user_content_manager_add_script(manager, script)
        // Nil gives the engine's own user agent back.
        webkit_settings_set_user_agent(webkit_web_view_get_settings(view), device.userAgent)
        FamilySettings.apply(DeviceFonts.of(device.name), to: webkit_web_view_get_settings(view))
        hooks = (script, virtual, device.name)
    }

    /// The style sheet that keeps the page's pixels undrawn, while it is in place.
    private var undrawn: OpaquePointer?

    /// Every page is drawn as usual (`PAGEHEIGHT_PAINT=1` in the environment), not only those
    /// with a snapshot.
    nonisolated static let drawsEveryPage = ProcessInfo.processInfo.environment["PAGEHEIGHT_PAINT"] == "1"

    /// Whether the next page's pixels are drawn. Undrawn, the top frame's root element has
    /// `opacity: 0` from a user style sheet (`!important`: above the page's own rules and
    /// animations): WebKit lays the page out and runs its rendering updates (resize observers,
    /// animation frames) as ever, and skips painting it. Heights are layout's, which opacity does
    /// not change, and nothing reads the pixels but a snapshot. Drawing a fit-mode view as tall as
    /// the page was a page's costliest step: WebKit draws a resized view whole, into new shared
    /// memory, and this process copies it. What a page can see: its root's computed opacity is 0
    /// (and `checkVisibility({opacityProperty: true})` is false).
    func setDrawn(_ drawn: Bool) {
        if drawn, let sheet = undrawn {
            webkit_user_content_manager_remove_style_sheet(manager, sheet)
            webkit_user_style_sheet_unref(sheet)
            undrawn = nil
        } else if !drawn, undrawn == nil {
            let sheet = webkit_user_style_sheet_new(":root { opacity: 0 !important; }", WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                                                    WEBKIT_USER_STYLE_LEVEL_USER, nil, nil)!
            webkit_user_content_manager_add_style_sheet(manager, sheet)
            undrawn = sheet
        }
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
        open = false
        guard let window else { return }
        self.window = nil
        webkit_web_view_stop_loading(view)
        webkit_user_content_manager_unregister_script_message_handler_in_world(manager, ProbeScript.messageHandler,
                                                                               ProbeScript.world)
        disconnectAll(UnsafeMutableRawPointer(view))
        disconnectAll(UnsafeMutableRawPointer(manager))
        gtk_widget_destroy(window)
        if let boundary {
            webkit_user_content_filter_unref(boundary.files)
            webkit_user_content_filter_unref(boundary.network)
            self.boundary = nil
        }
        // A view's page, surfaces and buffers are freed now: give the pages back, so a long
        // batch's RSS does not keep every high-water mark of the views it retired.
        malloc_trim(0)
    }

    private func disconnectAll(_ instance: UnsafeMutableRawPointer) {
        // Every handler we connected carries the inbox as its data; GLib releases each reference.
        let data = Unmanaged.passUnretained(inbox).toOpaque()
        g_signal_handlers_disconnect_matched(instance, G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, data)
    }

    /// Sets the viewport height in CSS px (the view is `height * zoom` device px tall).
    /// Takes effect asynchronously: `innerHeight` follows some frames later.
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

    // MARK: - Live changes (`PageStep`)

    private static func setFontSize(_ px: Int, in settings: UnsafeMutablePointer<WebKitSettings>?) {
        webkit_settings_set_default_font_size(settings, guint32(px))
        webkit_settings_set_default_monospace_font_size(settings, guint32((Double(px) * 13 / 16).rounded()))
    }

    /// Sets the viewport's width in CSS px, keeping its height (`height` CSS px).
    func setViewportWidth(_ width: Int, height: Double) {
        cssWidth = width
        setViewportHeight(height)
    }

    /// Sets the engine's default font size, live.
    func setFontSize(_ px: Int) {
        Self.setFontSize(px, in: webkit_web_view_get_settings(view))
    }

    /// Sets the page zoom, live; the viewport keeps its CSS size (`height` CSS px tall).
    func setPageZoom(_ factor: Double, height: Double) {
        webkit_settings_set_zoom_text_only(webkit_web_view_get_settings(view), 0)
        webkit_web_view_set_zoom_level(view, factor)
        zoom = factor
        setViewportHeight(height)
    }

    /// Sets a text-only zoom, live. WebKitGTK has one factor, for the page or for its text: the
    /// page zoom is 1 meanwhile (`PageStep.checkZoom` refuses steps that would need both).
    func setTextZoom(_ factor: Double, height: Double) {
        let settings = webkit_web_view_get_settings(view)
        webkit_settings_set_zoom_text_only(settings, factor == 1 ? 0 : 1)
        webkit_web_view_set_zoom_level(view, factor == 1 ? made.zoom : factor)
        zoom = factor == 1 ? made.zoom : 1
        setViewportHeight(height)
    }

    /// Gives back the zoom, width and font size the view was made with, after a page whose steps
    /// changed them.
    func restoreSettings(height: Double) {
        let settings = webkit_web_view_get_settings(view)
        webkit_settings_set_zoom_text_only(settings, 0)
        webkit_web_view_set_zoom_level(view, made.zoom)
        Self.setFontSize(made.fontSize, in: settings)
        (zoom, cssWidth) = (made.zoom, made.width)
        setViewportHeight(height)
    }

    /// A pointer click as a tap: the pointer moves to (`x`, `y`) CSS px of the viewport, then
    /// its first button is pressed and released there. GTK hands the events to the view as it
    /// would a user's, so the page gets trusted `mousedown`, `mouseup` and `click` events.
    func click(x: Double, y: Double) {
        guard let widgetWindow = view.withMemoryRebound(to: GtkWidget.self, capacity: 1, { gtk_widget_get_window($0) }),
              let display = gdk_window_get_display(widgetWindow),
              let pointer = gdk_seat_get_pointer(gdk_display_get_default_seat(display)) else { return }
        let (deviceX, deviceY) = (x * zoom, y * zoom)
        var rootX: gint = 0, rootY: gint = 0
        gdk_window_get_origin(widgetWindow, &rootX, &rootY)
        let time = guint32(truncatingIfNeeded: g_get_monotonic_time() / 1000)
        let widget = UnsafeMutableRawPointer(view).assumingMemoryBound(to: GtkWidget.self)
        for type in [GDK_MOTION_NOTIFY, GDK_BUTTON_PRESS, GDK_BUTTON_RELEASE] {
            guard let event = gdk_event_new(type) else { continue }
            switch type {
            case GDK_MOTION_NOTIFY:
                event.pointee.motion.window = widgetWindow
                event.pointee.motion.time = time
                (event.pointee.motion.x, event.pointee.motion.y) = (deviceX, deviceY)
                (event.pointee.motion.x_root, event.pointee.motion.y_root) = (deviceX + Double(rootX), deviceY + Double(rootY))
            default:
                event.pointee.button.window = widgetWindow
                event.pointee.button.time = time
                event.pointee.button.button = 1
                event.pointee.button.state = type == GDK_BUTTON_RELEASE ? GDK_BUTTON1_MASK.rawValue : 0
                (event.pointee.button.x, event.pointee.button.y) = (deviceX, deviceY)
                (event.pointee.button.x_root, event.pointee.button.y_root) = (deviceX + Double(rootX), deviceY + Double(rootY))
            }
            g_object_ref(UnsafeMutableRawPointer(widgetWindow)) // the event's window, unreferenced by gdk_event_free
            gdk_event_set_device(event, pointer)
            _ = gtk_widget_event(widget, event)
            gdk_event_free(event)
        }
    }

    /// The CSS height `innerHeight` will read once a viewport of `height` CSS px took effect.
    func expectedInnerHeight(for height: Double) -> Double {
        (max(1, (height * zoom).rounded()) / zoom).rounded(.down)
    }

    /// Makes `boundary` the content filters that keep the next page inside what it may load (in
    /// place of the previous page's); returns whether they changed. A change reaches the web
    /// process later: load a blank page (`blank`) before the page that needs it.
    func adopt(_ boundary: Boundary) -> Bool {
        guard boundary != self.boundary else { return false }
        swap(self.boundary?.files, for: boundary.files)
        swap(self.boundary?.network, for: boundary.network)
        self.boundary = boundary
        return true
    }

    private func swap(_ current: OpaquePointer?, for filter: OpaquePointer) {
        guard filter != current else { return }
        if let current {
            webkit_user_content_manager_remove_filter(manager, current)
            webkit_user_content_filter_unref(current)
        }
        webkit_user_content_manager_add_filter(manager, filter)
        webkit_user_content_filter_ref(filter)
    }

    /// Loads `source`; an http(s) page's own request carries `headers` (`--request-header`).
    func load(_ source: PageSource, headers: [PageRequests.Header] = []) {
        renewed = false
        ph_forget_resources(view)
        if let historyBase { webkit_web_view_restore_session_state(view, historyBase) }
        noteWebProcess { start(source, headers: headers) }
    }

    private func start(_ source: PageSource, headers: [PageRequests.Header]) {
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
                webkit_web_view_load_bytes(view, bytes, "text/html", nil, uri)
                g_bytes_unref(bytes)
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

    /// The subresources of the page loaded last that failed so far (the first 50), and how many
    /// failed.
    var failedResources: (listed: [FailedResource], total: Int) {
        var listed: [FailedResource] = []
        var uri: UnsafePointer<CChar>?, reason: UnsafePointer<CChar>?
        while ph_failed_resource(view, Int32(listed.count), &uri, &reason) != 0, let uri, let reason {
            listed.append(FailedResource(url: String(cString: uri), reason: String(cString: reason)))
        }
        return (listed, Int(ph_failed_resources_total(view)))
    }

    /// The view's requests (of any frame, any kind) that started and have not finished.
    var requestsInFlight: Int { Int(ph_requests_in_flight(view)) }
    /// The requests in flight now (their URLs, at most 50) and how many http(s) requests got a response.
    var requestsAtEnd: PendingRequests {
        var uris = [UnsafePointer<CChar>?](repeating: nil, count: 50)
        let count = Int(ph_requests_in_flight_uris(view, &uris, Int32(uris.count)))
        return PendingRequests(urls: uris.prefix(count).compactMap { $0.map { String(cString: $0) } },
                               total: requestsInFlight, answered: Int(ph_requests_answered(view)))
    }

    /// Writes a full-document PNG of the current state to `path`; nil, or what went wrong.
    func snapshot(to path: String) async -> String? {
        await CallbackBridge<String?>.await(cancelled: "cancelled") { context in
            ph_snapshot_png(view, path, nil, { error, data in
                CallbackBridge<String?>.resume(data, with: error.map { String(cString: $0) })
            }, context)
        }
    }

    /// Forgets what pages stored in this view's own data store (cookies, local and session
    /// storage, databases, service workers), so that the next page starts as the first did.
    /// False if WebKit could not: then the view must not be reused.
    func forgetWebsiteData() async -> Bool {
        await CallbackBridge<Bool>.await(cancelled: false) { context in
            ph_web_view_clear_website_data(view, { error, data in
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
