import Foundation
import PageHeightCore

/// Views kept for the next page, so a batch does not pay a new web process per page, nor wait
/// for a view to be cleaned between two pages: that happens in the background (`ready`).
///
/// A view is reused only with the settings it was made with (the key), only while its web
/// process is alive; after `maxUses` pages its web process is replaced, so memory stays flat.
@GLibActor
final class ViewPool {
    private let context: OpaquePointer
    /// The content filter every view of this pool carries (`--offline=block`), if any.
    private let filter: OpaquePointer?
    /// Pages a web process measures before it is replaced. A web process keeps what its pages left
    /// (JIT code, heap, engine caches; WebKit's memory-pressure release frees little of it), and a
    /// new one costs a start (mostly the dynamic linker and fontconfig, about 70 ms of CPU), which
    /// with more jobs than cores is CPU the other jobs' pages wait for. What a page leaves is
    /// bounded by `maxPrivateMemory` whatever this count; the count bounds the rest. 32 against 8:
    /// a corpus batch at four jobs about 5% faster, its process tree's peak 14% larger (the runs
    /// are in BENCHMARKS.md's decisions).
    nonisolated static let maxUses = 32
    /// A web process whose private memory reaches this after a page is replaced before its next
    /// page, however few pages it measured: a page can leave its process several times larger than
    /// an ordinary page does (an image `onerror` that sets the same `src` again without end,
    /// `readability/ehow-2`), and the process keeps that through its next pages. Judged by each
    /// view's own web process (`PageView.webProcess`), so it holds at any number of jobs.
    nonisolated static let maxPrivateMemory = 64 << 20
    /// Views checked out and not yet back, of every key.
    private var measuring = 0
    /// Idle views kept per key at most.
    var maxIdle = 8
    /// Views per key beyond those measuring: while a page is measured, a view that came back
    /// is made ready (blank, its data forgotten, its web process renewed when due) or a spare is
    /// made, so that the next page starts the moment the last one ends. One spare costs one
    /// idle web process (its view holds a blank page) per key in use.
    nonisolated static let spares = 1

    /// The views of one key (one set of view settings).
    @GLibActor
    private struct Shelf {
        /// Ready: blank, clean, each carrying the content filter of the page it was made ready for.
        var idle: [PageView] = []
        /// Views not closed: measuring, being made ready, or idle.
        var live = 0
        var measuring = 0
        /// The content filters of the views being made ready (one each).
        var readying: [Boundary?] = []
        /// The filters of pages announced (`prepare`) that no view has taken on yet, oldest first.
        var expected: [Boundary] = []
        var waiters: [CheckedContinuation<Void, Never>] = []

        func carries(_ boundary: Boundary?) -> Bool {
            idle.contains { $0.boundary == boundary } || readying.contains(boundary)
        }
    }
    private var shelves: [String: Shelf] = [:]
    /// The views not closed yet, of every key: measuring, being made ready, or idle.
    var liveViews: Int { shelves.values.reduce(0) { $0 + $1.live } }
    /// Set by `shutdown`: a view that comes back or was being made ready is closed.
    private var shutDown = false

    init(context: OpaquePointer, filter: OpaquePointer? = nil) {
        (self.context, self.filter) = (context, filter)
    }

    /// A view for a page of `options` whose content filter is `boundary`: a ready view that
    /// carries it, else one about to be ready with it, else any ready view (the caller adopts
    /// the filter), else one of those being made ready, when the key has its spares already;
    /// else a new view. `fresh`: always a new view.
    func checkout(_ options: MeasureOptions, boundary: Boundary?, fresh: Bool = false) async -> PageView {
        let view = await take(options, boundary: boundary, fresh: fresh)
        StoredDataWatch.started(view)
        return view
    }

    private func take(_ options: MeasureOptions, boundary: Boundary?, fresh: Bool) async -> PageView {
        let key = Self.key(options)
        measuring += 1
        shelves[key, default: Shelf()].measuring += 1
        while !fresh, shelves[key] != nil {
            // A ready view whose web process was killed or crashed while it waited.
            let dead = shelves[key]!.idle.filter { !$0.usable }
            shelves[key]!.idle.removeAll { view in dead.contains { $0 === view } }
            dead.forEach { close($0, key: key) }
            let shelf = shelves[key]!
            if let index = shelf.idle.lastIndex(where: { $0.boundary == boundary })
                ?? (shelf.readying.contains(boundary) ? nil : shelf.idle.indices.last) {
                return shelves[key]!.idle.remove(at: index)
            }
            guard shelf.readying.contains(boundary) || (!shelf.readying.isEmpty && shelf.live >= shelf.measuring + Self.spares)
            else { break }
            await withCheckedContinuation { shelves[key]!.waiters.append($0) }
        }
        return makeView(options, key: key)
    }

    /// Announces a page of `options` that will be measured soon (a batch's next entry): a view
    /// is made ready for it, carrying its content filter, while the pages before it are measured.
    func prepare(_ boundary: Boundary, options: MeasureOptions) {
        let key = Self.key(options)
        guard var shelf = shelves[key], !shelf.carries(boundary), !shelf.expected.contains(boundary) else { return }
        shelf.expected.append(boundary)
        if shelf.expected.count > 16 { shelf.expected.removeFirst() }
        shelves[key] = shelf
        if let view = shelves[key]!.idle.popLast() {
            ready(view, key: key, options: options, forget: false)
        } else if shelf.live < shelf.measuring + Self.spares {
            ready(makeView(options, key: key), key: key, options: options, forget: false)
        } // else a view that comes back takes it on
    }

    /// The page in `view` has its verdict: what is left (its final reading, its report) no
    /// longer counts as measuring, so that the next page, which may start meanwhile, finds or
    /// awaits this view rather than a new one.
    func verdictReached(_ view: PageView, options: MeasureOptions) {
        guard !view.finishing else { return }
        view.finishing = true
        measuring -= 1
        shelves[Self.key(options)]?.measuring -= 1
    }

    /// Returns a view after a page, at once. A view that can be reused is made ready for the
    /// next page in the background (`ready`), else closed.
    func checkin(_ view: PageView, options: MeasureOptions) {
        StoredDataWatch.ended(view)
        let key = Self.key(options)
        verdictReached(view, options: options) // counts the page out, unless its verdict already did
        view.finishing = false
        let alone = measuring == 0
        IdleLibraryPages.pageOut() // what every process of ours but the web processes ran once
        view.uses += 1
        guard !shutDown, view.reusable, (shelves[key]?.idle.count ?? 0) < maxIdle else { return close(view, key: key) }
        if view.uses >= Self.maxUses || view.renewDue || (Self.privateMemory(of: view, alone: alone) ?? 0) >= Self.maxPrivateMemory {
            view.renewWebProcess()
            WebProcessRenewals.count.add(1, ordering: .relaxed)
        }
        ready(view, key: key, options: options, forget: true)
    }

    /// Makes `view` ready for a next page: it takes on the filter of an announced page, shows a
    /// blank page (`PageView.blank`) and, after a page, forgets what that page stored (its
    /// cookies, storage and databases: a page must measure the same whichever pages came
    /// before it in the view). Then it is idle; closed if any of that failed.
    private func ready(_ view: PageView, key: String, options: MeasureOptions, forget: Bool) {
        Task { @GLibActor in
            var forget = forget
            repeat {
                if let next = takeExpected(key) { _ = view.adopt(next) }
                shelves[key]!.readying.append(view.boundary)
                var clean = await view.blank(height: Double(options.height))
                if clean, forget { clean = await firstOf(within: 1, fallback: false, { await view.forgetWebsiteData() }) }
                shelves[key]!.readying.remove(at: shelves[key]!.readying.firstIndex(of: view.boundary)!)
                guard clean, shelves[key]!.idle.count < maxIdle else { return close(view, key: key) }
                forget = false
            } while shelves[key]!.expected.contains { $0 != view.boundary && !shelves[key]!.carries($0) } // announced meanwhile
            if shutDown { return close(view, key: key) }
            shelves[key]!.idle.append(view)
            wake(key)
        }
    }

    /// The oldest announced filter that no view carries or is being made ready with.
    private func takeExpected(_ key: String) -> Boundary? {
        while let next = shelves[key]?.expected.first {
            shelves[key]!.expected.removeFirst()
            if !shelves[key]!.carries(next) { return next }
        }
        return nil
    }

    private func makeView(_ options: MeasureOptions, key: String) -> PageView {
        shelves[key, default: Shelf()].live += 1
        return PageView(context: context, filter: filter, options: options)
    }

    private func close(_ view: PageView, key: String) {
        view.close()
        shelves[key]?.live -= 1
        wake(key)
    }

    /// Closes the idle views, and those being made ready once they are; returns when every view
    /// of the pool is closed. Called when no page is being measured (`PageHeightEngine.shutdown`).
    func shutdown() async {
        shutDown = true
        for (key, shelf) in shelves {
            shelves[key]!.idle = []
            shelf.idle.forEach { close($0, key: key) }
        }
        while shelves.values.contains(where: { $0.live > 0 }) { await GLibClock.sleep(0.01) }
    }

    /// Lets the pages waiting for a view of `key` look again.
    private func wake(_ key: String) {
        let waiters = shelves[key]?.waiters ?? []
        shelves[key]?.waiters = []
        waiters.forEach { $0.resume() }
    }

    /// The private memory of the view's web process. When its pid is not known (the load that
    /// started it started none or several of ours) or that process is gone, and the view was
    /// the only one measuring, the largest of our web processes': then its own, or an idle
    /// view's that the bound let through. With other views measuring, the largest would renew
    /// views for their neighbours' pages, so then nil.
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
