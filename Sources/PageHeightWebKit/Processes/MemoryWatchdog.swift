import Foundation

/// Enforces the web processes' memory limit from outside them: WebKit's own check runs only
/// when the page's script yields, so a script that allocates in one synchronous run would grow
/// its process until the machine runs out. Every quarter second, on a dispatch queue of its own
/// (it needs neither the GLib thread nor the page), any web process of ours whose private memory
/// is above the limit is killed; its page then ends `crashed`, saying why.
final class MemoryWatchdog: @unchecked Sendable {
    /// The limit in bytes, the same as WebKit's own (`ph_web_context_new`).
    static let limitBytes = 2048 << 20
    static let shared = MemoryWatchdog()

    private let lock = NSLock()
    /// Guarded by `lock`.
    private var killed: [Int32: Date] = [:]
    private var timer: DispatchSourceTimer?

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
        for pid in WebProcesses.ofThisProcess() {
            guard let bytes = WebProcesses.privateMemory(pid), bytes > Self.limitBytes else { continue }
            kill(pid, SIGKILL)
            lock.lock()
            killed[pid] = Date()
            lock.unlock()
        }
    }

    /// Whether the watchdog killed `pid`; for an unknown pid, whether it killed any web process
    /// within the last second.
    func killed(_ pid: Int32?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let pid { return killed[pid] != nil }
        return killed.values.contains { Date().timeIntervalSince($0) < 1 }
    }
}
