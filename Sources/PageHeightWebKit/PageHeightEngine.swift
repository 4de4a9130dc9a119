import CPageHeightShim
import CWebKit
import Foundation
import Synchronization
import PageHeightCore

/// The measuring engine: a web context (of ephemeral views) per network mode (online,
/// `--offline=refuse`, `--offline=block`) and their views, on the process's `EngineRuntime` (one
/// GLib thread with GTK and WebKit, its web processes each in WebKit's sandbox where it can start
/// (`WebProcessSandbox`), and, when `DISPLAY` is unset, an Xvfb of its own).
///
/// A library user creates one (`init`) and shuts it down (`shutdown()`, awaited) when done; the
/// command line shares one per process (`shared`). `measure` may be called from any task, and
/// each call gets a fresh view; calling it after `shutdown()` is a programming error.
public final class PageHeightEngine: @unchecked Sendable {
    let runtime: EngineRuntime
    let pools: EnginePools
    /// Whether the engine takes pages, and how many it is measuring (`shutdown` waits for them).
    private let lifecycle = Mutex(Lifecycle())

    /// The fonts every page is rendered with: one configuration for the process and its web
    /// processes, chosen when the first engine starts.
    public var fonts: FontChoice { runtime.fonts }
    /// What the reports record about `fonts`, worked out once at the start.
    public var fontSet: FontSet { runtime.fontSet }
    /// The device scale pages are rendered at, and the languages they are asked for.
    public var scale: Int { runtime.scale }
    public var languages: [String] { runtime.languages }
    /// The device whose font families pages are rendered with.
    public var families: DeviceFonts { runtime.families }
    /// Whether the web processes run in WebKit's sandbox: asked for (`init(sandbox:)`) and
    /// found to start here, turned off, or unavailable and why.
    public var sandbox: SandboxState { runtime.sandbox }
    /// Whether the files the engine's processes can open are confined (`init(files:)`).
    public var fileJail: FileJail.State { runtime.fileJail }

    /// An engine of its own (its own web contexts and views) on the process's runtime, which
    /// the first engine starts (display, GTK) with `fonts` (pinned by default). Asking for other
    /// settings than the running runtime's is an error: fontconfig reads its configuration once
    /// per process.
    ///
    /// `scale` is the device scale the engine renders at (GDK's, whole numbers only), and
    /// `languages` the ones pages are asked for (`Accept-Language`, `navigator.language`): one each
    /// per process too (a web process takes the languages when it starts and keeps them), so a
    /// measurement whose device (`--device`) or languages (`--lang`) differ is a `load-error`.
    /// `families` are the device's font families (`DeviceFonts.of(device)`), part of the font
    /// configuration: one per process as well.
    ///
    /// `sandbox` asks for WebKit's sandbox around each web process (`--no-sandbox` turns it off);
    /// where it cannot start, the engine runs without it and says why in `sandbox`. One setting
    /// per process as well.
    ///
    /// `files`, with the sandbox on, confines the files the engine's processes can open to the
    /// folders it names and the system's (`FileJail`); nil leaves them this user's. The first
    /// engine's choice holds for the process.
    ///
    /// Call `shutdown()` before letting go of it.
    public init(fonts: FontChoice = FontChoice(), scale: Int = 1, languages: [String] = MeasureOptions.defaultLanguages,
                families: DeviceFonts = .desktop, sandbox: Bool = true, files: FileJail.Access? = nil) throws {
        runtime = try EngineRuntime.start(fonts: fonts, scale: scale, languages: languages, families: families, sandbox: sandbox,
                                          files: files)
        pools = EnginePools(sandbox: runtime.sandbox, exposing: runtime.exposed)
    }

    deinit {
        assert(lifecycle.withLock { $0.state == .shutDown }, "a PageHeightEngine was released without shutdown()")
    }

    private static let instance = Mutex<PageHeightEngine?>(nil)

    /// An engine with what `options` needs of a process (`EngineSettings`), as `shared(for:)`.
    public convenience init(for options: MeasureOptions, sandbox: Bool = true, files: FileJail.Access? = nil) throws {
        let settings = EngineSettings(options)
        try self.init(fonts: settings.fonts, scale: settings.scale, languages: settings.languages,
                      families: settings.families, sandbox: sandbox, files: files)
    }

    /// The process's shared engine with what `options` needs of a process (`EngineSettings`: its
    /// fonts, its device's scale and font families, its languages): `options.device = .iphone`
    /// renders at the iPhone's scale 3. The first call decides for the process; a later one with
    /// other settings throws.
    public static func shared(for options: MeasureOptions, sandbox: Bool = true,
                              files: FileJail.Access? = nil) throws -> PageHeightEngine {
        let settings = EngineSettings(options)
        return try shared(fonts: settings.fonts, scale: settings.scale, languages: settings.languages,
                          families: settings.families, sandbox: sandbox, files: files)
    }

    /// The process's shared engine (the command line's), made on first use with these settings
    /// (as `init`), and again after it was shut down. Asking again with other settings than the
    /// runtime's is an error.
    public static func shared(fonts: FontChoice = FontChoice(), scale: Int = 1,
                              languages: [String] = MeasureOptions.defaultLanguages,
                              families: DeviceFonts = .desktop, sandbox: Bool = true,
                              files: FileJail.Access? = nil) throws -> PageHeightEngine {
        try instance.withLock { instance in
            if let instance, instance.lifecycle.withLock({ $0.state == .running }) {
                // The same checks as a new engine's: one runtime per process.
                _ = try EngineRuntime.start(fonts: fonts, scale: scale, languages: languages, families: families, sandbox: sandbox)
                return instance
            }
            let engine = try PageHeightEngine(fonts: fonts, scale: scale, languages: languages, families: families, sandbox: sandbox,
                                              files: files)
            instance = engine
            return engine
        }
    }

    /// Stops taking pages, waits for those being measured, then closes the engine's views (their
    /// web processes end with them). What the runtime started stays for the process (the GLib
    /// thread, GTK, the display): a new engine reuses it. Calling `measure` afterwards, or
    /// `shutdown` twice, is a programming error.
    public func shutdown() async {
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            lifecycle.withLock { lifecycle in
                precondition(lifecycle.state == .running, "PageHeightEngine.shutdown() called twice")
                lifecycle.state = .shuttingDown
                if lifecycle.measuring == 0 { drained.resume() } else { lifecycle.drained = drained }
            }
        }
        await pools.shutdown()
        lifecycle.withLock { $0.state = .shutDown }
    }

    /// Whether the engine takes pages, and how many are being measured.
    private struct Lifecycle {
        enum State { case running, shuttingDown, shutDown }
        var state = State.running
        var measuring = 0
        /// `shutdown`'s wait for the last page being measured.
        var drained: CheckedContinuation<Void, Never>?
    }

    /// Counts a page in; a precondition that the engine was not shut down.
    private func admit() {
        lifecycle.withLock { lifecycle in
            precondition(lifecycle.state == .running, "PageHeightEngine.measure called after shutdown()")
            lifecycle.measuring += 1
        }
    }

    /// Counts a page out, and ends `shutdown`'s wait after the last one.
    private func release() {
        lifecycle.withLock { lifecycle in
            lifecycle.measuring -= 1
            if lifecycle.measuring == 0 { lifecycle.drained.take()?.resume() }
        }
    }

    /// The WebKitGTK library this process runs, `major.minor.micro`: asks the library, not
    /// the headers it was built with.
    public static var webKitGTKVersion: String {
        "\(webkit_get_major_version()).\(webkit_get_minor_version()).\(webkit_get_micro_version())"
    }

    /// What this engine's heights depend on besides the pages, as a baseline records it.
    public var measuredWith: MeasuredWith { MeasuredWith(webKitGTK: Self.webKitGTKVersion, fonts: fontSet) }

    /// The kernel's id of the engine's thread (its entry under /proc/self/task).
    var threadID: Int32 { runtime.thread.kernelID }

    /// Measures one page; never throws: a page that cannot be measured is a report with a status.
    /// - Parameters:
    ///   - snapshot: where to write a full-document PNG of the final state.
    ///   - freshView: measure in a new view with a new web process, not one reused from an
    ///     earlier page (for `--repeat`: runs that share nothing).
    ///   - upcoming: the page most likely measured next with these options (a batch's next
    ///     entry): a view is made ready for it (its content filter compiled and adopted, a blank
    ///     page shown) while this one is measured.
    ///   - log: timestamped steps (the CLI's `--verbose`), called on the engine's thread.
    ///   - verdictReached: called (on the engine's thread) the moment the page has its verdict,
    ///     before its final reading and report: a worker pool may start its next page then.
    public func measure(_ page: PageSource, options: MeasureOptions = MeasureOptions(), snapshot: String? = nil,
                        freshView: Bool = false, upcoming: PageSource? = nil,
                        log: @escaping @Sendable (String) -> Void = { _ in },
                        verdictReached: (@Sendable () -> Void)? = nil) async -> PageReport {
        admit()
        defer { release() }
        var report: PageReport
        if options.deviceProfile.engineScale != scale {
            let device = options.deviceProfile
            report = ReportBuilder.inputError(url: page.url, message: "this measurement's device (\(device.name.rawValue)) renders "
                + "at scale \(device.engineScale); the engine renders at scale \(scale) (one scale per process: start "
                + "the engine for these options, PageHeightEngine.shared(for: options), or with "
                + "PageHeightEngine.shared(scale: \(device.engineScale)))", options: options)
        } else if options.languages ?? MeasureOptions.defaultLanguages != languages {
            report = ReportBuilder.inputError(url: page.url, message: "this measurement asks for the languages "
                + (options.languages ?? MeasureOptions.defaultLanguages).joined(separator: ",") + "; the engine asks for "
                + languages.joined(separator: ",") + " (one language list per process: start the engine with them)",
                options: options)
        } else if DeviceFonts.of(options.deviceProfile.name) != families {
            let device = options.deviceProfile.name
            report = ReportBuilder.inputError(url: page.url, message: "this measurement's device (\(device.rawValue)) renders "
                + "with the \(DeviceFonts.of(device).rawValue) device's font families; the engine renders with the "
                + "\(families.rawValue) device's (one font configuration per process: start the engine with the device's)",
                options: options)
        } else if let asked = options.fonts, asked != fonts {
            let problem = EngineError.fontsUnavailable("this measurement asks for \(asked.mode.rawValue) fonts and "
                + "\(asked.directories.count) font directories; the engine renders with \(fonts.mode.rawValue) fonts and "
                + "\(fonts.directories.count) (one font configuration per process)")
            report = ReportBuilder.inputError(url: page.url, message: "\(problem)", options: options)
        } else {
            report = await measureInItsFolders(page, options: options, snapshot: snapshot, freshView: freshView,
                                               upcoming: upcoming, log: log, verdictReached: verdictReached)
        }
        report.options.fonts = fonts
        report.fonts = fontSet
        report.template = page.template
        return report
    }

    /// Measures `page` with its folders shown in the file jail while it is measured (copied here,
    /// outside the jail; mounted on the engine's thread). A folder that cannot be shown is the
    /// page's `load-error`: the page would not read its own files.
    private func measureInItsFolders(_ page: PageSource, options: MeasureOptions, snapshot: String?, freshView: Bool,
                                     upcoming: PageSource?, log: @escaping @Sendable (String) -> Void,
                                     verdictReached: (@Sendable () -> Void)?) async -> PageReport {
        let folders = runtime.pageFolders
        let copies: [FileJail.PageFolders.Copy]
        do {
            copies = try folders?.prepare(page.readableFolders) ?? []
        } catch {
            return ReportBuilder.inputError(url: page.url, message: "\(error)", options: options)
        }
        let shown = folders?.show(copies)
        // Taken away at the verdict (before a worker pool starts its next page), or at the end.
        let hidden = Mutex(false)
        let hide: @Sendable () -> Void = {
            guard let shown, !hidden.withLock({ done in defer { done = true }; return done }) else { return }
            folders?.hide(shown)
        }
        if let problem = shown?.problems.first {
            hide()
            return ReportBuilder.inputError(url: page.url, message: problem, options: options)
        }
        let report = await Self.measure(page, options: options, snapshot: snapshot, freshView: freshView, upcoming: upcoming,
                                        log: log, verdictReached: { hide(); verdictReached?() }, pools: pools)
        hide()
        return report
    }

    @GLibActor
    private static func measure(_ page: PageSource, options: MeasureOptions, snapshot: String?, freshView: Bool,
                                upcoming: PageSource?, log: @escaping @Sendable (String) -> Void,
                                verdictReached: (@Sendable () -> Void)?, pools: EnginePools) async -> PageReport {
        let pool: ViewPool
        let boundary: Boundary
        do {
            pool = try await pools.pool(for: options)
            boundary = try await BoundaryFilters.filters(for: page, options: options)
            if !options.offline {
                // What the user names is theirs to reach: the hosts they allow, the page's own.
                let gate = try ConnectionGate.shared()
                for host in options.allowedHosts ?? [] { gate.allow(host) }
                if case .url(let text) = page, let host = URLComponents(string: text)?.host { await gate.pin(host) }
            }
        } catch {
            let session = MeasurementSession(options: options)
            return ReportBuilder(url: page.url, session: session, end: .loadFailed("\(error)"), endedAt: 0).build()
        }
        let view = await pool.checkout(options, boundary: boundary, fresh: freshView)
        if let upcoming {
            Task { @GLibActor in
                guard let next = try? await BoundaryFilters.filters(for: upcoming, options: options) else { return }
                pool.prepare(next, options: options)
            }
        }
        let driver = MeasurementDriver(pool: pool, view: view, source: page, boundary: boundary, options: options,
                                       snapshotPath: snapshot, freshView: freshView, log: log, verdictReached: verdictReached)
        await ColorSchemeGate.shared.enter(options.colorScheme ?? .light)
        defer { ColorSchemeGate.shared.leave() }
        let report = await driver.run()
        // A reused view whose web process was killed while it waited, before WebKit reported it,
        // dies before the page commits: not the page's doing (it never ran). Once more, in a new view.
        if report.status == .crashed, report.timings.committed == nil, !freshView {
            log("the view's web process was gone before the page committed: measuring it again in a new view")
            return await measure(page, options: options, snapshot: snapshot, freshView: true, upcoming: upcoming, log: log,
                                 verdictReached: verdictReached, pools: pools)
        }
        return report
    }

    /// What to say when the display goes away (our Xvfb killed, the X server gone): GTK cannot go
    /// on without it, so the process then exits with 70 right after `body` ran (on the engine's
    /// thread) and the engine's files are removed.
    public static func onDisplayLost(_ body: @escaping @Sendable () -> Void) {
        DisplayLoss.set(body)
    }

    /// Ends the process with `code` at once, through `_exit` (the CLI's way out: exit handlers
    /// would race with the engine's thread). First ends every process we started but the display,
    /// which follows us (its loss now would be reported as an error), as a web process starting at
    /// that moment (a spare view's, perhaps not yet named) would find the display gone with us and
    /// say so on our standard error after we ended; and removes the files the engine made (its
    /// private directory). WebKit's threads may meanwhile find a process they were starting gone
    /// and log a fatal error: from here on such a message ends the process with `code`
    /// (`GLibLog`), not with a crash. A process that ends through `exit` or by returning from
    /// `main` need not call it: an `atexit` hook removes the files, and our processes follow us. A
    /// run killed before either is swept up by the next one.
    /// The first caller decides the code: a signal's exit and the run's own (which may end at the
    /// same moment, reading the processes being killed as crashed) do not race; a later caller
    /// waits for the first to end the process.
    public static func exit(_ code: Int32) -> Never {
        guard exitClaimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            while true { sleep(60) }
        }
        GLibLog.exiting(with: code)
        // What this process's threads print from here on is not ours to show (a run reading its
        // killed web process as a crash), nor what a process they start from now on prints: it
        // inherits these streams. The caller has said and flushed its last words.
        fflush(nil)
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, STDOUT_FILENO)
            dup2(null, STDERR_FILENO)
        }
        // Stopped first, all of them, then killed: a web process that saw the network process
        // go first would print WebKit's "internal error" lines after the caller's last words.
        // Again until none is left: one that WebKit started while the others were being killed
        // still has the caller's standard error.
        var killed = Set<Int32>()
        for _ in 0..<4 {
            let processes = WebProcesses.descendants().filter { !$0.name.hasPrefix("Xvfb") && !killed.contains($0.pid) }
            if processes.isEmpty { break }
            for process in processes { kill(process.pid, SIGSTOP) }
            for process in processes { kill(process.pid, SIGKILL); killed.insert(process.pid) }
        }
        PrivateDirectory.remove()
        _exit(code)
    }

    private static let exitClaimed = Atomic<Bool>(false)
}

/// The message for a lost display (`PageHeightEngine.onDisplayLost`).
enum DisplayLoss {
    private static let body = Mutex<(@Sendable () -> Void)?>(nil)

    static func set(_ new: @escaping @Sendable () -> Void) {
        body.withLock { $0 = new }
    }

    static func report() {
        if let body = body.withLock({ $0 }) {
            body()
        } else {
            FileHandle.standardError.write(Data("Error: the display went away (\(ProcessInfo.processInfo.environment["DISPLAY"] ?? "")); the engine cannot go on\n".utf8))
        }
        PrivateDirectory.remove()
    }
}

/// One view pool (and web context) per network mode, made on first use.
@GLibActor
final class EnginePools {
    private var pools: [String: ViewPool] = [:]
    private var refusingPort: RefusingPort?
    /// Whether each context's web processes get the sandbox, and the paths it shows them.
    private let sandbox: SandboxState
    private let sandboxPaths: [String]

    nonisolated init(sandbox: SandboxState, exposing paths: [String]) {
        self.sandbox = sandbox
        sandboxPaths = paths
    }

    /// The views of every pool not closed yet.
    var liveViews: Int { pools.values.reduce(0) { $0 + $1.liveViews } }

    /// Closes every pool's views (`PageHeightEngine.shutdown`, once no page is measured).
    func shutdown() async {
        for pool in pools.values { await pool.shutdown() }
    }

    /// The pool for the network mode of `options`. Online, the context sends every request for
    /// anything but literal loopback through the connection gate, which checks the address it
    /// goes to. Offline, it sends them to a refusing proxy; in block mode its views also carry the
    /// content filter that stops those requests before they are sent (the proxy stays, for what
    /// the filter does not see). 
    func pool(for options: MeasureOptions) async throws -> ViewPool {
        let mode = options.offline ? options.offlineMode.rawValue : "online"
        if let pool = pools[mode] { return pool }
        let filter = options.offline && options.offlineMode == .block ? try await OfflineBlocker.filter() : nil
        if let pool = pools[mode] { return pool } // made by a page that asked while the filter compiled
        // A page that allocates without end gets its web process killed at 2 GB (checked
        // every second): `crashed`, "exceeded its memory limit", and the batch goes on.
        let context = ph_web_context_new(2048, 1.0, try PrivateDirectory.path())!
        // WebKit's default model: the document-viewer one changed some pages' layout.
        webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_WEB_BROWSER)
        webkit_web_context_set_spell_checking_enabled(context, 0)
        // Before the context's first web process (its first view's first load).
        WebProcessSandbox.apply(sandbox, to: context, exposing: sandboxPaths)
        // Nothing a page does may write a file: every download is cancelled as it starts.
        ph_web_context_refuse_downloads(context, RequestLedger.downloadRefused)
        if options.offline {
            let port = try refusingPort ?? RefusingPort()
            refusingPort = port
            ph_web_context_route_through_proxy(context, port.proxyURI)
        } else {
            ph_web_context_route_through_proxy(context, try ConnectionGate.shared().proxyURI)
        }
        MemoryWatchdog.shared.start()
        let pool = ViewPool(context: OpaquePointer(context), filter: filter)
        pools[mode] = pool
        return pool
    }
}
