import CPageHeightShim
import CWebKit
import Foundation
import PageHeightCore

extension PageView {
    /// Every setting that changes a result, set explicitly (none inherited from WebKit's defaults).
    static func applySettings(_ options: MeasureOptions, to settings: UnsafeMutablePointer<WebKitSettings>?) {
        webkit_settings_set_enable_javascript(settings, options.javascript ? 1 : 0)
        Self.setFontSize(options.fontSize, in: settings)
        FamilySettings.apply(DeviceFonts.of(options.deviceProfile.name), to: settings)
        webkit_settings_set_default_charset(settings, "UTF-8")
        webkit_settings_set_enable_page_cache(settings, 0)
        // Under a touch profile, a file page's own sheets (linked, imported) are its origin's, so
        // that the hooks can rewrite their hover and pointer queries; its scripts may then read its
        // folder's files too, and the content filters and the file jail keep them there.
        webkit_settings_set_allow_file_access_from_file_urls(settings, options.deviceProfile.touch ? 1 : 0)
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
        // No preconnection: WebKit opened a connection for a clicked link (a TLS ClientHello to a
        // loopback port under `--offline`) and for `<link rel=preconnect>`, from the network
        // process, around the content filters, which judge requests only.
        EngineFeature.disable("LinkPreconnect", in: settings)
    }

    /// Puts the hooks of the real clock (every frame's timers and requests) or of the virtual
    /// clock (every frame's time as well) in place for the next load, with what scripts read of
    /// `device`; and the device's user agent.
    func setHooks(virtual: Bool, device: DeviceProfile) {
        guard hooks?.virtual != virtual || hooks?.device != device.name else { return }
        if let hooks { webkit_user_content_manager_remove_script(manager, hooks.script.pointer) }
        let script = BoxedReference(adopting: webkit_user_script_new(ProbeScript.hooks(virtualClock: virtual, device: device),
                                                                     WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
                                                                     WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)!,
                                    .userScript)
        webkit_user_content_manager_add_script(manager, script.pointer)
        // Nil gives the engine's own user agent back.
        webkit_settings_set_user_agent(webkit_web_view_get_settings(view), device.userAgent)
        FamilySettings.apply(DeviceFonts.of(device.name), to: webkit_web_view_get_settings(view))
        hooks = (script, virtual, device.name)
    }

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
            webkit_user_content_manager_remove_style_sheet(manager, sheet.pointer)
            undrawn = nil
        } else if !drawn, undrawn == nil {
            let sheet = BoxedReference(adopting: webkit_user_style_sheet_new(":root { opacity: 0 !important; }",
                                                                             WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                                                                             WEBKIT_USER_STYLE_LEVEL_USER, nil, nil)!,
                                       .userStyleSheet)
            webkit_user_content_manager_add_style_sheet(manager, sheet.pointer)
            undrawn = sheet
        }
    }

    /// Runs `source` at document start in the chosen frames of every page this view loads, in
    /// the page's own script world or in the named one.
    func addScript(_ source: String, frames: WebKitUserContentInjectedFrames, world: String? = nil) {
        let script = world.map {
            webkit_user_script_new_for_world(source, frames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, $0, nil, nil)
        } ?? webkit_user_script_new(source, frames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
        webkit_user_content_manager_add_script(manager, script)
        webkit_user_script_unref(script) // the content manager keeps its own reference
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

    static func setFontSize(_ px: Int, in settings: UnsafeMutablePointer<WebKitSettings>?) {
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
