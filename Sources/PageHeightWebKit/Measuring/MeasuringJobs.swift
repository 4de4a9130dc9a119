import Synchronization

/// The worker pool of every run that measures many pages (a batch, a regression suite): at most
/// `jobs` pages before their verdict at once, taken in list order until none is left.
///
/// A page holds its job until its verdict; what follows (its final reading, its report, the
/// caller's writing of it) overlaps the job's next page, which starts meanwhile in another view.
public enum MeasuringJobs {
    /// Calls `work` once for every item. With each item come the one that is next in the list
    /// once every job has had an item (nil before: the first items start at once, with no view
    /// to make ready for them), so that a view can be made ready for it meanwhile
    /// (`PageHeightEngine.measure(upcoming:)`), and `verdictReached`, which frees the item's job
    /// for the next item (pass it to `PageHeightEngine.measure`; the job is freed when `work`
    /// returns in any case). Returns when every call has returned. `stopStarting`, asked before
    /// each item once it has a job, ends the run early: the items after it are not started.
    public static func run<Item: Sendable>(
        _ items: [Item], jobs: Int, stopStarting: @escaping @Sendable () -> Bool = { false },
        _ work: @escaping @Sendable (Item, _ upcoming: Item?, _ verdictReached: @escaping @Sendable () -> Void) async -> Void
    ) async {
        let jobs = max(1, jobs)
        MemoryWatchdog.shared.measuring(jobs: jobs)
        let slots = Slots(jobs)
        await withTaskGroup(of: Void.self) { group in
            for (index, item) in items.enumerated() {
                await slots.take()
                if stopStarting() {
                    slots.give()
                    break
                }
                let upcoming = index + 1 >= jobs && index + 1 < items.count ? items[index + 1] : nil
                let slot = Slot(slots)
                group.addTask {
                    await work(item, upcoming, slot.free)
                    slot.free()
                }
            }
        }
    }

    /// Free jobs, and the item waiting for one.
    private final class Slots: Sendable {
        private let state: Mutex<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

        init(_ jobs: Int) { state = Mutex((jobs, [])) }

        func take() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.free > 0 { state.free -= 1; return true }
                    state.waiting.append(waiter)
                    return false
                }
                if now { waiter.resume() }
            }
        }

        func give() {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty { state.free += 1; return nil }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }

    /// One item's job, freed once however often it is told.
    private final class Slot: Sendable {
        private let slots: Slots
        private let freed = Mutex(false)

        init(_ slots: Slots) { self.slots = slots }

        func free() {
            guard freed.withLock({ freed in defer { freed = true }; return !freed }) else { return }
            slots.give()
        }
    }
}
