import Synchronization

/// The worker pool of a long-running server (`pageheight serve`): at most `jobs` pages before their
/// verdict at once, as in `MeasuringJobs`, for pages that arrive one by one rather than as a list;
/// the pages that wait for a job wait in line, first come first served, and at most `waitingLimit`
/// of them.
///
/// A page holds its job (`Job`) until its verdict (pass `Job.free` to `PageHeightEngine.measure`
/// as `verdictReached`) or until it is freed after the report, whichever comes first.
public final class MeasuringSlots: Sendable {
    public let jobs: Int
    public let waitingLimit: Int
    private struct State {
        var free: Int
        /// Places in line promised (`reserve`) and not yet taken up or given back.
        var reserved = 0
        var line: [(id: Int, waiter: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }
    private let state: Mutex<State>

    public init(jobs: Int, waitingLimit: Int) {
        self.jobs = max(1, jobs)
        self.waitingLimit = max(0, waitingLimit)
        state = Mutex(State(free: max(1, jobs)))
        MemoryWatchdog.shared.measuring(jobs: self.jobs)
    }

    /// Jobs measuring a page now.
    public var busy: Int { state.withLock { jobs - $0.free } }
    /// Pages waiting for a job, and places promised to pages about to wait.
    public var waiting: Int { state.withLock { $0.line.count + $0.reserved } }
    /// Whether `count` more pages could wait now.
    public func hasRoom(for count: Int = 1) -> Bool {
        state.withLock { $0.free + waitingLimit - $0.line.count - $0.reserved >= count }
    }

    /// Promises `count` pages a place (each then takes a job with `take(reserved: true)`), or
    /// none: false when the line has no room for all of them.
    public func reserve(_ count: Int) -> Bool {
        state.withLock { state in
            guard state.free + waitingLimit - state.line.count - state.reserved >= count else { return false }
            state.reserved += count
            return true
        }
    }

    /// Gives back a place promised by `reserve` that will not be taken.
    public func unreserve(_ count: Int = 1) {
        state.withLock { $0.reserved = max(0, $0.reserved - count) }
    }

    /// Waits for a job; nil when the task is cancelled first (its place goes). `reserved`: the
    /// place was promised by `reserve`.
    public func take(reserved: Bool = false) async -> Job? {
        let id = state.withLock { state -> Int in
            if reserved { state.reserved = max(0, state.reserved - 1) }
            state.nextID += 1
            return state.nextID
        }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.free > 0, state.line.isEmpty { state.free -= 1; return true }
                    state.line.append((id, waiter))
                    return nil
                }
                if let now { waiter.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.line.firstIndex(where: { $0.id == id }) else { return nil }
                return state.line.remove(at: index).waiter
            }
            waiter?.resume(returning: false)
        }
        return granted ? Job(self) : nil
    }

    fileprivate func give() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if state.line.isEmpty { state.free += 1; return nil }
            return state.line.removeFirst().waiter
        }
        next?.resume(returning: true)
    }

    /// One page's job, freed once however often it is told.
    public final class Job: Sendable {
        private let slots: MeasuringSlots
        private let freed = Mutex(false)

        fileprivate init(_ slots: MeasuringSlots) { self.slots = slots }

        public func free() {
            guard freed.withLock({ freed in defer { freed = true }; return !freed }) else { return }
            slots.give()
        }
    }
}
