import Foundation
import PageHeightCore

/// What the view tells of one page, taken in: its load's progress, a failed or interrupted load, a
/// web process that ended, the probe's messages, the navigations the page started. Each event is
/// recorded in the session; the answer says whether the page ended.
@GLibActor
final class PageEvents {
    private let page: MeasuredPage
    /// A load that failed and may be replaced by another (a redirect by script): its failure and
    /// until when (page time) a replacement may come.
    private var interrupted: (failure: String, deadline: Double)?
    /// The first targets of the page's stopped navigations (`PageText.listKept`), and how many.
    private(set) var stoppedNavigations: [String] = []
    private(set) var stoppedNavigationsTotal = 0

    private var view: PageView { page.view }
    private var options: MeasureOptions { page.options }
    private var session: MeasurementSession {
        get { page.session }
        set { page.session = newValue }
    }

    private func note(_ text: String) { page.note(text) }

    init(page: MeasuredPage) {
        self.page = page
    }

    /// Handles the view's events until the load finished, or the page ended first.
    func waitForLoad() async throws -> Flow {
        // An interrupted load is followed by its load-finished: a replacement may still come.
        while session.finishedAt == nil || (interrupted != nil && session.committedAt == nil) {
            guard let event = try await page.nextEvent(until: interrupted.map { page.wallClock($0.deadline) }) else {
                if let interrupted, session.committedAt == nil { return .ended(.loadFailed(interrupted.failure)) }
                interrupted = nil
                continue
            }
            if case .ended(let reason) = handle(event) { return .ended(reason) }
        }
        return .goOn
    }

    /// Takes in one event of the view: the page's end, or go on.
    func handle(_ event: ViewEvent) -> Flow {
        switch event {
        case .load(let load):
            return loadChanged(load).map(Flow.ended) ?? .goOn
        case .loadFailed(let uri, let domain, let code, let message):
            switch LoadOutcome.failure(uri: uri, domain: domain, code: code, message: message,
                                       committed: session.committedAt != nil,
                                       navigationsStopped: !stoppedNavigations.isEmpty,
                                       offline: options.offline ? options.offlineMode : nil) {
            case .ignored: return .goOn
            case .waitForReplacement(let failure):
                note("load interrupted; waiting for a load that replaces it")
                interrupted = (failure, page.now + LoadOutcome.replacementWait)
                return .goOn
            case .failed(let failure):
                note("load failed: \(message)")
                return .ended(.loadFailed(failure))
            }
        case .processTerminated(let end):
            let killed = MemoryWatchdog.shared.killed(view.webProcess)
            view.retire()
            if case .budget(let message)? = killed { return .ended(.crashed(message)) }
            return .ended(.crashed(LoadOutcome.crash(end, killedByWatchdog: killed != nil)))
        case .probeMessage(let json):
            probeMessage(json)
            return .goOn
        case .navigationLoop(let attempts):
            note("the page started \(attempts) navigations after its load: a loop, stopped")
            view.renewAfterThisPage() // what WebKit keeps of the navigations goes with the process
            return .ended(.navigationLoop(attempts: attempts))
        }
    }

    private func loadChanged(_ load: ViewEvent.Load) -> EndReason? {
        switch load {
        case .started where session.committedAt != nil:
            // The page navigating away, which the view stopped at once (`PageView.Inbox`): the
            // page is measured as it was.
            let target = view.inbox.lastNavigationTarget
            stoppedNavigationsTotal += 1
            if stoppedNavigations.count < PageText.listKept { stoppedNavigations.append(target) }
            note("the page navigated to \(target.prefix(200)): stopped")
            session.stoppedLoads(at: page.now)
        case .committed where session.committedAt == nil:
            session.loadCommitted(at: page.now)
            note("committed \(view.uri.prefix(200))")
            if let (code, reason) = view.httpStatus, code >= 400 {
                return .loadFailed("HTTP \(code) \(reason) loading \(page.source.url.prefix(200))")
            }
            if case .url(let url) = page.source, url.lowercased().hasPrefix("http"), view.uri == "about:blank" {
                // WebKit refuses some URLs without a load-failed (a restricted port such as
                // :1 or :25) and shows an empty page instead.
                return .loadFailed("WebKit refused to load \(url.prefix(200)) (a restricted port?) and showed about:blank")
            }
        case .finished where session.finishedAt == nil:
            if page.realNow > options.timeout {
                // The deadline's own wake-up is late (a busy machine): the load did not finish in time.
                note("the load finished after the timeout (\(Seconds.format(options.timeout)) on the wall clock)")
                return .timedOut(stalledSince: nil)
            }
            session.loadFinished(at: page.now)
            note("load finished")
        default:
            break
        }
        return nil
    }

    private func probeMessage(_ json: String) {
        guard session.committedAt != nil, let reading = ProbeReading.decode(json) else { return }
        if reading.notThePage == true, !page.source.url.hasPrefix("about:") {
            return note("a message from the view's blank document, not the page's: ignored")
        }
        let t = page.now
        page.noteClock(reading, at: t)
        let cause = reading.cause.map { PageText.capped($0, to: PageText.kept) }
        let sample = HeightSample(t: t, height: reading.value, source: .observer, cause: cause, real: page.real)
        let moved = session.record(sample, pending: reading.pendingWork(at: t, network: view.requestsInFlight))
        if moved { page.timers.frames.pageMoved(value: reading.value) }
        note(page.describe(sample, moved: moved, error: nil) + "; pending: \(session.pending.summary)")
    }
}
