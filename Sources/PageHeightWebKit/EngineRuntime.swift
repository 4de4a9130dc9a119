import CPageHeightShim
import CWebKit
import Foundation
import Synchronization
import PageHeightCore

/// What the engine starts once per process and never stops: the GLib thread with GTK and WebKit,
/// the display (an Xvfb of its own when `DISPLAY` is unset), the font configuration, the device
/// scale, the languages and the sandbox setting. GTK runs on one thread for the life of the
/// process, fontconfig reads its configuration once, a web process takes the languages when it
/// starts: so every `PageHeightEngine` of a process shares the first one's settings, and asking
/// for others is an error (`start`).
final class EngineRuntime: Sendable {
    let thread: GLibThread
    let fonts: FontChoice
    let fontSet: FontSet
    let scale: Int
    let languages: [String]
    let families: DeviceFonts
    let sandbox: SandboxState
    /// Whether the caller asked for the sandbox.
    let sandboxAsked: Bool
    /// What the web processes read of ours, shown to them read-only inside the sandbox.
    let exposed: [String]
    /// Whether the files the engine's processes can open are confined (`FileJail`).
    let fileJail: FileJail.State
    /// The pages' folders, shown in the jail while their pages are measured; nil without a jail,
    /// or where it shows them for the whole run.
    let pageFolders: FileJail.PageFolders?

    private static let instance = Mutex<EngineRuntime?>(nil)
    /// JavaScript bytes a web process allocates between two garbage collections (see `init`).
    static let garbageBudget = 8 << 20

    /// The process's runtime, started on first use; an error when it runs with other settings
    /// (`PageHeightEngine.init` says which are one per process).
    /// `files` (the first start's holds for the process): the folders the file jail shows.
    static func start(fonts: FontChoice, scale: Int, languages: [String], families: DeviceFonts,
                      sandbox: Bool, files: FileJail.Access? = nil) throws -> EngineRuntime {
        try instance.withLock { instance in
            if let instance {
                try instance.check(fonts: fonts, scale: scale, languages: languages, families: families, sandbox: sandbox)
                return instance
            }
            let runtime = try EngineRuntime(fonts: fonts, scale: scale, languages: languages, families: families, sandbox: sandbox,
                                            files: files)
            instance = runtime
            return runtime
        }
    }

    /// Throws unless the running runtime has these settings.
    private func check(fonts: FontChoice, scale: Int, languages: [String], families: DeviceFonts, sandbox: Bool) throws {
        guard self.fonts == fonts else {
            throw EngineError.fontsUnavailable("the engine already renders with \(self.fonts.mode.rawValue) fonts"
                + " and \(self.fonts.directories.count) font directories; one font configuration per process")
        }
        guard self.families == families else {
            throw EngineError.fontsUnavailable("the engine already renders with the \(self.families.rawValue) "
                + "device's font families, not the \(families.rawValue) device's; one font configuration per process")
        }
        guard self.scale == scale else {
            throw EngineError.scaleUnavailable("the engine already renders at scale \(self.scale), not \(scale); "
                + "one device scale per process")
        }
        guard self.languages == languages else {
            throw EngineError.languagesUnavailable("the engine already asks for \(self.languages.joined(separator: ",")), "
                + "not \(languages.joined(separator: ",")); one language list per process")
        }
        guard sandboxAsked == sandbox else {
            throw EngineError.sandboxUnavailable("the engine already runs its web processes "
                + (sandboxAsked ? "in" : "without") + " a sandbox; one sandbox setting per process")
        }
    }

    private init(fonts: FontChoice, scale: Int, languages: [String], families: DeviceFonts, sandbox sandboxAsked: Bool,
                 files: FileJail.Access?) throws {
        self.fonts = fonts
        self.families = families
        self.scale = scale
        self.languages = languages
        self.sandboxAsked = sandboxAsked
        // Started by a program that runs an engine: from the environment that program was given.
        EngineEnvironment.restoreCallers()
        // GDK's scale is the web views' device scale factor (`devicePixelRatio`, `srcset`'s
        // choice, snapshots' pixels), one for the process; a scale in the user's environment
        // would change every height's images.
        EngineEnvironment.set("GDK_SCALE", "\(scale)")
        let resolvedFonts = try FontConfiguration.resolve(fonts, families: families)
        fontSet = resolvedFonts.set
        Self.setProcessEnvironment()
        nonisolated(unsafe) var found = SandboxState.off
        nonisolated(unsafe) var exposed: [String] = []
        nonisolated(unsafe) var jail = FileJail.State.off
        nonisolated(unsafe) var folders: FileJail.PageFolders?
        thread = try GLibThread {
            // This thread hears every page's load events and takes every settle reading. With more
            // jobs than cores it waited behind the web processes for a core, and that wait is
            // pageheight's overhead. Nice -10 puts it first; the processes it starts (web, network,
            // Xvfb) begin at nice 0. Without CAP_SYS_NICE (not root) the thread keeps its priority.
            _ = ph_prioritize_thread(-10)
            GLibLog.install()
            let directory = try PrivateDirectory.path()
            // Xvfb, the bus and the sandbox's check start while the fonts are set up.
            let display = VirtualDisplay.begin()
            // In the file jail, a session bus of the caller's (its socket outside the folders the
            // jail shows) is out of reach of WebKit's D-Bus proxy, which then fails to start: the
            // engine starts its own, in its private directory, as it does when none is given.
            if sandboxAsked, files != nil { EngineEnvironment.unset("DBUS_SESSION_BUS_ADDRESS") }
            let bus = SessionBus.begin(in: directory)
            let sandbox = WebProcessSandbox.begin(asked: sandboxAsked)
            let webProcessFiles = try PrivateDirectory.webProcessFiles()
            try FontConfiguration.install(resolvedFonts, in: webProcessFiles)
            try display()
            bus()
            found = sandbox()
            if found == .on, ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]?.isEmpty ?? true {
                // Before GLib reads it (once per process): WebKit's D-Bus proxy sockets and
                // bubblewrap's records go where the engine's files go, not into `~/.cache`.
                EngineEnvironment.set("XDG_RUNTIME_DIR", try PrivateDirectory.runtime())
            }
            if found == .on, var files {
                // Before WebKit starts a process: each starts in the jail.
                files.readable += FontConfiguration.sandboxPaths() + fonts.directories + (DriverlessEGL.library().map { [$0] } ?? [])
                if ph_children_confinable() == 0 {
                    jail = .unavailable("this program does not export posix_spawn, posix_spawnp and execve (link it with "
                        + "-Xlinker --export-dynamic-symbol=NAME for each), so WebKit's processes cannot start in the jail")
                } else {
                    let warden: FileJail.Warden?
                    (jail, warden, folders) = FileJail.Warden.start(files, privateDirectory: directory)
                    if let warden, case let failed = ph_jail_children(warden.namespace), failed != 0 {
                        jail = .unavailable("WebKit's processes cannot enter the jail: \(String(cString: strerror(failed)))")
                        folders = nil
                    }
                }
            }
            // Pages are drawn in software (hardware acceleration off), so this process never
            // needs EGL, yet WebKit opens it here for its DMA-BUF renderer, and Mesa's EGL brings
            // its LLVM, whose relocations no process can give back. With that renderer off, an EGL
            // that finds no driver is tolerated here, and the start is shorter. The web processes,
            // started later, abort without an EGL display: they get ours, which has no driver.
            // Without that renderer (or without GLX in the X server) this process has no backing
            // store for accelerated compositing, which WebKit enters for a view transition whatever
            // the views' policy: the views run no view transitions (`PageView.applySettings`).
            EngineEnvironment.set("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
            ph_ui_process_without_egl()
            DriverlessEGL.install(describingIn: webProcessFiles)
            // What the web processes read of ours, shown to them read-only inside the sandbox.
            if found == .on {
                exposed = [webProcessFiles] + (DriverlessEGL.installed ? DriverlessEGL.library().map { [$0] } ?? [] : [])
                    + FontConfiguration.sandboxPaths()
            }
            guard gtk_init_check(nil, nil) != 0 else {
                throw EngineError.gtkInitFailed(display: ProcessInfo.processInfo.environment["DISPLAY"] ?? "")
            }
            ph_on_display_lost { DisplayLoss.report() }
            // Before any web process starts: each takes the list when it starts and keeps it.
            let copies = languages.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var list = copies.map { UnsafePointer<CChar>($0) } + [nil]
            webkit_web_context_set_preferred_languages(webkit_web_context_get_default(), &list)
        }
        sandbox = found
        self.exposed = exposed
        fileJail = jail
        pageFolders = folders
    }

    /// The environment this process and the processes it starts (web, network) run with: no
    /// accessibility bus, no settings daemon, GStreamer's registry and GDK's drawing kept to
    /// ourselves, the web processes' garbage budget; and two malloc arenas.
    private static func setProcessEnvironment() {
        EngineEnvironment.set("WEBKIT_A11Y_BUS_ADDRESS", "")
        EngineEnvironment.set("NO_AT_BRIDGE", "1")
        EngineEnvironment.set("GSETTINGS_BACKEND", "memory")
        // GStreamer, which WebKit asks which media types it can show, writes its plugin registry
        // under the user's cache (`~/.cache/gstreamer-1.0`): a page with a media type made
        // pageheight write into $HOME. Its registry lives in our private directory instead.
        if let directory = try? PrivateDirectory.webProcessFiles() {
            EngineEnvironment.set("GST_REGISTRY", directory + "/gstreamer-registry.bin", overwrite: false)
        }
        // GDK paints the off-screen windows into image surfaces in this process, not into X
        // pixmaps: a fit-mode view up to 16384 px tall no longer leaves copies of itself in
        // Xvfb.
        EngineEnvironment.set("GDK_RENDERING", "image", overwrite: false)
        // Web processes (started later, with this environment) collect JavaScript garbage after
        // every 8 MB allocated, however large the heap, where JavaScriptCore's own budget is
        // 32 MB or the heap's size. A page whose image `onerror` sets the same broken `src`
        // again without end (`readability/ehow-2`, `Pages/error-loop.html`) otherwise piles up
        // garbage many times its live heap between collections. A live heap above the budget is
        // legal (`Pages/large-heap.html`); a script that builds a million objects at once runs a
        // little longer.
        EngineEnvironment.set("JSC_gcMaxHeapSize", "\(Self.garbageBudget)", overwrite: false)
        // GLib and WebKit start a score of threads; one malloc arena each would keep memory
        // that another thread freed out of reach. Two arenas serve this process.
        mallopt(M_ARENA_MAX, 2)
    }
}
