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

extension PageView {
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
}
