/// The memory the whole process tree (pageheight, its web, network and display processes) may
/// hold at once, and which web process goes when it holds more. Pure: the watchdog
/// (`MemoryWatchdog`) reads the processes' private memory and acts on `decide`.
///
/// Each web process is also held to `processLimit` on its own; the budget bounds what
/// `jobs` of them reach together, which without it grew to `jobs` × `processLimit`.
public struct MemoryBudget: Sendable, Equatable {
    /// The budget in bytes.
    public var bytes: Int
    /// Jobs it was derived for (named in the message).
    public var jobs: Int
    /// Whether it was set through `environmentVariable` rather than derived.
    public var fromEnvironment: Bool

    /// One web process's limit in bytes (WebKit's own and the watchdog's).
    public static let processLimit = 2048 << 20
    /// What a job's page may hold besides the one page that reaches `processLimit`.
    public static let perJob = 512 << 20
    /// Sets the budget in MB, for tests and for machines shared with other work.
    public static let environmentVariable = "PAGEHEIGHT_MEMORY_BUDGET_MB"

    public init(bytes: Int, jobs: Int, fromEnvironment: Bool = false) {
        (self.bytes, self.jobs, self.fromEnvironment) = (bytes, jobs, fromEnvironment)
    }

    /// The budget for `jobs` pages at once on a machine with `machineMemory` bytes: one page at
    /// its process limit plus `perJob` for every job and one more (pageheight's own processes),
    /// and never more than three quarters of the machine.
    public static func derived(machineMemory: Int, jobs: Int) -> MemoryBudget {
        let jobs = max(1, jobs)
        let wanted = processLimit + (jobs + 1) * perJob
        return MemoryBudget(bytes: machineMemory > 0 ? min(wanted, machineMemory / 4 * 3) : wanted, jobs: jobs)
    }

    /// `derived`, unless `environment` sets `environmentVariable` to a positive number of MB.
    public static func chosen(environment: [String: String], machineMemory: Int, jobs: Int) -> MemoryBudget {
        if let text = environment[environmentVariable], let megabytes = Int(text), megabytes > 0 {
            return MemoryBudget(bytes: megabytes << 20, jobs: max(1, jobs), fromEnvironment: true)
        }
        return derived(machineMemory: machineMemory, jobs: jobs)
    }

    /// One process of the tree and its private memory in bytes.
    public struct Process: Sendable, Equatable {
        public var pid: Int32
        public var bytes: Int
        /// A web process (one page's), which may be stopped; the others may not.
        public var isWebProcess: Bool
        /// WebKit's network process, which holds what pages store (IndexedDB, the Cache API) in
        /// memory: a page's data there is found and forgotten, not its process stopped.
        public var isNetworkProcess: Bool

        public init(pid: Int32, bytes: Int, isWebProcess: Bool, isNetworkProcess: Bool = false) {
            (self.pid, self.bytes, self.isWebProcess, self.isNetworkProcess) = (pid, bytes, isWebProcess, isNetworkProcess)
        }
    }

    /// What the watchdog does with the tree as it read it.
    public enum Verdict: Sendable, Equatable {
        case within
        /// Stop this web process: the tree held `treeBytes`, the process `processBytes`.
        case stop(pid: Int32, treeBytes: Int, processBytes: Int)
        /// The network process holds the most (`networkBytes`, more than any web process), or
        /// more than one web process may: find the page whose stored data it is, stop that page's
        /// web process and forget its data. Where no page holds such data, `fallback` is the
        /// largest web process's stop, if the tree is over the budget.
        indirect case findStoredData(treeBytes: Int, networkBytes: Int, fallback: Verdict?)
    }

    /// Within the budget, or the largest web process to stop. `stopping`: processes already
    /// stopped and not yet gone, which count neither in the tree nor as candidates (their memory
    /// is on its way out; stopping a second page for it would be one too many).
    public func decide(_ tree: [Process], stopping: Set<Int32> = []) -> Verdict {
        let live = tree.filter { !stopping.contains($0.pid) }
        let total = live.reduce(0) { $0 + $1.bytes }
        let largest = live.filter(\.isWebProcess).max(by: { ($0.bytes, $1.pid) < ($1.bytes, $0.pid) })
        let stop = largest.flatMap { total > bytes ? Verdict.stop(pid: $0.pid, treeBytes: total, processBytes: $0.bytes) : nil }
        if let network = live.filter(\.isNetworkProcess).max(by: { $0.bytes < $1.bytes }),
           network.bytes > Self.processLimit || (total > bytes && network.bytes > largest?.bytes ?? 0) {
            return .findStoredData(treeBytes: total, networkBytes: network.bytes, fallback: stop)
        }
        return stop ?? .within
    }

    /// The `crashed` result's message for a page whose stored data filled the network process.
    public func storedDataMessage(treeBytes: Int, networkBytes: Int) -> String {
        "the web process was stopped by pageheight: what the page stored (IndexedDB, the Cache API) filled WebKit's "
            + "network process (\(Self.text(networkBytes)); the process tree \(Self.text(treeBytes)), its budget "
            + "\(Self.text(bytes)), a process's limit \(Self.text(Self.processLimit)))"
    }

    /// The `crashed` result's message for a page whose web process was stopped for the budget.
    public func message(treeBytes: Int, processBytes: Int) -> String {
        let source = fromEnvironment ? "set by \(Self.environmentVariable)"
            : "for \(jobs) job\(jobs == 1 ? "" : "s") on this machine"
        return "the web process was stopped by pageheight: the process tree exceeded its memory budget ("
            + "\(Self.text(bytes)), \(source)) at \(Self.text(treeBytes)), and this page's web process was the largest "
            + "(\(Self.text(processBytes)))"
    }

    /// Bytes as MB below 10 GB, else GB with one decimal.
    static func text(_ bytes: Int) -> String {
        let megabytes = Double(bytes) / Double(1 << 20)
        if megabytes < 10240 { return "\(Int(megabytes.rounded())) MB" }
        return "\((megabytes / 1024 * 10).rounded() / 10) GB"
    }
}
