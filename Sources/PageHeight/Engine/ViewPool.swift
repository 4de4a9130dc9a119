import Foundation

/// Idle views kept for the next page, so a batch does not pay a new web process per page.
///
/// A view is reused only with the settings it was made with (the key), only while its web
/// process is alive; after `maxUses` pages its web process is replaced, so memory stays flat.
@GLibActor
final class ViewPool {
    private let context: OpaquePointer
    /// The content filter every view of this pool carries (`--offline=block`), if any.
    private let filter: OpaquePointer?
    private var idle: [String: [PageView]] = [:]
    /// Pages a web process measures before it is replaced. A web process keeps what its pages left
    /// (JIT code, heap, engine caches; WebKit's memory-pressure release frees little of it):
    /// on the 185 corpus pages under the quick rule, one job's tree peaked at 343 MB with 50
    /// pages a process and 316 MB with 10, four jobs' at 535-581 and 454-479 MB. A new web
    /// process costs about 0.17 s of CPU, mostly the dynamic linker: 10 cost about 18% of the
    /// quick rule's throughput at four jobs against 50, little in default mode. 5 against 10:
    /// one job's quick-rule peak 291-295 MB against 299-302 (three runs each), and quick-rule
    /// throughput at four jobs within the noise (7.73 and 8.68 pages/s against 8.66 and 8.06).
    nonisolated static let maxUses = 5
    /// A web process whose private memory reaches this after a page is replaced before its next
    /// page, however few pages it measured. On the 185 corpus pages in default mode at one job, a
    /// process held about 38 MB after one page and 45 MB after five, but 145-160 MB after a page
    /// whose `onerror` sets the image's `src` again without end (`readability/ehow-2`), and it
    /// kept that through its next pages: the tree peaked at 337 MB with five pages a process,
    /// 270 MB with this bound as well, in the same wall time (288 s against 286). Judged by each
    /// view's own web process (`PageView.webProcess`), it holds at more jobs too: default mode's
    /// peak at two jobs 490 -> 408 MB, at four 586 -> 494 MB, at the same pages/s.
    nonisolated static let maxPrivateMemory = 64 << 20
    /// Views checked out and not yet back.
    private var measuring = 0
    /// Idle views kept per key at most.
    var maxIdle = 8

    init(context: OpaquePointer, filter: OpaquePointer? = nil) {
        self.context = context
        self.filter = filter
    }

    /// A view for `options`: an idle one when there is one, else a new one.
    func checkout(_ options: MeasureOptions, fresh: Bool = false) -> PageView {
        measuring += 1
        let key = Self.key(options)
        if !fresh, var views = idle[key], let view = views.popLast() {
            idle[key] = views
            return view
        }
        return PageView(context: context, filter: filter, options: options)
    }

    /// Returns a view after a page. A view that can be reused is kept for the next page once
    /// it is blank again (`PageView.blank`) and has forgotten what the page stored (its
    /// cookies, storage and databases: a page must measure the same whichever pages came before
    /// it in the view), else closed; returns when the view is back or gone (a few ms), so that
    /// the next page gets it back rather than a new web process.
    func checkin(_ view: PageView, options: MeasureOptions) async {
        let alone = measuring == 1
        measuring -= 1
        IdleLibraryPages.pageOut() // what every process of ours but the web processes ran once
        view.uses += 1
        let key = Self.key(options)
        guard view.reusable, (idle[key]?.count ?? 0) < maxIdle else { return view.close() }
        if view.uses >= Self.maxUses || (Self.privateMemory(of: view, alone: alone) ?? 0) >= Self.maxPrivateMemory {
            view.renewWebProcess()
        }
        guard await view.blank(height: Double(options.height)),
              await firstOf(within: 1, fallback: false, { await view.forgetWebsiteData() }),
              (idle[key]?.count ?? 0) < maxIdle else { return view.close() }
        idle[key, default: []].append(view)
    }

    /// The private memory of the view's web process. When its pid is not known (the load that
    /// started it started none or several of ours) or that process is gone, and the view was
    /// the only one measuring, the largest of our web processes': then its own, or an idle
    /// view's that the bound let through. With other views measuring, the largest renewed views
    /// for their neighbours' pages (quick rule, four jobs: 5.59/6.00 pages/s against 5.83/6.42).
    /// WebKitGTK 2.50 keeps a view's process across navigations to other sites (no process swap
    /// seen from script or `load_uri`, `http:` to `file:` included).
    private static func privateMemory(of view: PageView, alone: Bool) -> Int? {
        if let pid = view.webProcess, let memory = WebProcesses.privateMemory(pid) { return memory }
        return alone ? WebProcesses.largestPrivateMemory() : nil
    }

    /// The settings a view is made with; pages with other settings get another view.
    private static func key(_ options: MeasureOptions) -> String {
        "\(options.width)|\(options.fontSize)|\(options.zoom)|\(options.javascript)|\(options.metric.rawValue)|\(options.clock.rawValue)"
    }
}
