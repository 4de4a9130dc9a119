import Foundation
import PageHeightCore

/// Enforces the web processes' memory limit and the whole process tree's memory budget
/// (`MemoryBudget`) from outside the processes: WebKit's own check runs only when the page's
/// script yields, so a script that allocates in one synchronous run would grow its process until
/// the machine runs out, and WebKit knows nothing of the other processes. Every quarter second,
/// on a dispatch queue of its own (it needs neither the GLib thread nor the page), any web
/// process of ours whose private memory is above the limit is killed, and while the tree's
/// private memory is above the budget, its largest web process is; the page then ends
/// `crashed`, saying why.
final class MemoryWatchdog: @unchecked Sendable {
    /// The limit in bytes, the same as WebKit's own (`ph_web_context_new`).
    static let limitBytes = MemoryBudget.processLimit
    static let shared = MemoryWatchdog()

    /// Why the watchdog killed a process.
    enum Kill {
        case processLimit
        /// The tree's budget: the page's message.
        case budget(message: String)
    }

    private let lock = NSLock()
    /// Guarded by `lock`.
    private var killed: [Int32: (at: Date, why: Kill)] = [:]
    /// The most jobs measured at once so far (guarded by `lock`).
    private var jobs = 1
    private var timer: DispatchSourceTimer?

    /// The machine's memory in bytes (`MemTotal`), 0 when unknown.
    static let machineMemory: Int = {
        let text = WebProcesses.read("/proc/meminfo") ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }()

    /// The budget in force for the most jobs measured at once so far.
    var budget: MemoryBudget {
        lock.lock()
        defer { lock.unlock() }
        return MemoryBudget.chosen(environment: ProcessInfo.processInfo.environment,
                                   machineMemory: Self.machineMemory, jobs: jobs)
    }

    /// Notes that `count` pages are measured at once (`MeasuringJobs`): the budget grows with it.
    func measuring(jobs count: Int) {
        lock.lock()
        jobs = max(jobs, count)
        lock.unlock()
    }

    /// Starts watching; calling it again changes nothing.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pageheight.memory-watchdog"))
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
        self.timer = timer
    }

    private func check() {
        let tree = [(pid: getpid(), name: Substring("pageheight"))] + WebProcesses.descendants()
        var processes: [MemoryBudget.Process] = []
        for (pid, name) in tree {
            guard let bytes = WebProcesses.privateMemory(pid) else { continue }
            let web = name.hasPrefix("WebKitWebProces")
            if web, bytes > Self.limitBytes { stop(pid, .processLimit) }
            processes.append(MemoryBudget.Process(pid: pid, bytes: bytes, isWebProcess: web,
                                                  isNetworkProcess: name.hasPrefix("WebKitNetworkPr")))
        }
        let budget = self.budget
        lock.lock()
        let stopping = Set(killed.keys.filter { WebProcesses.isRunning($0) })
        let searching = searchingStoredData || Date() < storedDataQuietUntil
        lock.unlock()
        switch budget.decide(processes, stopping: stopping) {
        case .within: break
        case .stop(let pid, let tree, let largest):
            stop(pid, .budget(message: budget.message(treeBytes: tree, processBytes: largest)))
        case .findStoredData(let tree, let network, let fallback):
            guard !searching else { break }
            lock.lock()
            searchingStoredData = true
            lock.unlock()
            let message = budget.storedDataMessage(treeBytes: tree, networkBytes: network)
            Task { @GLibActor in
                let found = await StoredDataWatch.stopTheHolder(message: message)
                if !found, case .stop(let pid, let tree, let largest)? = fallback {
                    self.stop(pid, .budget(message: budget.message(treeBytes: tree, processBytes: largest)))
                }
                self.searchDone(found: found)
            }
        }
    }

    private func searchDone(found: Bool) {
        lock.lock()
        defer { lock.unlock() }
        searchingStoredData = false
        // The network process gives the forgotten data back within a moment: one search at a time.
        storedDataQuietUntil = Date().addingTimeInterval(found ? 1 : 0.25)
    }

    /// Guarded by `lock`: a search for the page whose stored data fills the network process is
    /// under way, or was just done.
    private var searchingStoredData = false
    private var storedDataQuietUntil = Date.distantPast

    func stop(_ pid: Int32, _ why: Kill) {
        lock.lock()
        defer { lock.unlock() }
        guard killed[pid] == nil || !WebProcesses.isRunning(pid) else { return } // killed, not yet gone
        kill(pid, SIGKILL)
        killed[pid] = (Date(), why)
    }

    /// Why the watchdog killed `pid`, nil if it did not; for an unknown pid, why it killed a web
    /// process within the last second, if it did.
    func killed(_ pid: Int32?) -> Kill? {
        lock.lock()
        defer { lock.unlock() }
        if let pid { return killed[pid]?.why }
        return killed.values.filter { Date().timeIntervalSince($0.at) < 1 }.max { $0.at < $1.at }?.why
    }
}
