import CWebKit
import CPageHeightShim
import Foundation

/// The one thread where GTK and WebKit live, running the GLib main loop of the default context.
///
/// Everything that touches a GObject runs here, isolated to `GLibActor`, whose jobs are GLib
/// idle sources; waits are GLib timeout sources (`GLibClock`). The thread never exits, so a child tied to it with
/// `PR_SET_PDEATHSIG` (our Xvfb) lives exactly as long as the process.
final class GLibThread: @unchecked Sendable {
    private let thread: Thread
    /// The thread's id in the kernel (its entry under /proc/self/task), set before `init` returns.
    nonisolated(unsafe) private(set) var kernelID: Int32 = 0

    /// Starts the thread, runs `setup` on it first, and returns once setup is done.
    init(setup: @escaping @Sendable () throws -> Void) throws {
        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error?
        nonisolated(unsafe) var kernelID: Int32 = 0
        thread = Thread {
            // Named from inside: set before start, the name never reaches the kernel, and the
            // thread kept the name of the queue that started it. (Threads it starts without a
            // name of their own carry this one.)
            Thread.current.name = "pageheight-glib"
            // "PID/task/TID"
            let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
            kernelID = Int32(me.split(separator: "/").last ?? "") ?? 0
            do {
                try setup()
            } catch {
                failure = error
                ready.signal()
                return
            }
            ready.signal()
            let loop = g_main_loop_new(nil, 0)
            g_main_loop_run(loop)
        }
        thread.stackSize = 8 << 20
        thread.start()
        ready.wait()
        self.kernelID = kernelID
        if let failure { throw failure }
    }
}
