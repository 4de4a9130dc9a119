import CWebKit
import CPageHeightShim
import Foundation

/// The one thread where GTK and WebKit live, running the GLib main loop of the default context.
///
/// Everything that touches a GObject runs here, queued with `perform` as a GLib idle source;
/// timers are GLib timeout sources. The thread never exits, so a child tied to it with
/// `PR_SET_PDEATHSIG` (our Xvfb) lives exactly as long as the process.
final class GLibThread: @unchecked Sendable {
    private let thread: Thread
    /// The thread's id in the kernel (its entry under /proc/self/task), set before `init` returns.
    nonisolated(unsafe) private(set) var kernelID: Int32 = 0

    /// Starts the thread, runs `setup` on it first, and returns once setup is done.
    init(setup: @escaping () throws -> Void) throws {
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

    /// Runs `job` on the GLib thread, soon and in order.
    func perform(_ job: @escaping () -> Void) {
        let box = Unmanaged.passRetained(JobBox(job)).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            Unmanaged<JobBox>.fromOpaque(data!).takeUnretainedValue().job()
            return 0 // G_SOURCE_REMOVE
        }, box, { data in
            Unmanaged<JobBox>.fromOpaque(data!).release()
        })
    }
}

private final class JobBox {
    let job: () -> Void
    init(_ job: @escaping () -> Void) { self.job = job }
}

/// A one-shot timer on the GLib thread; cancelling it after it fired is harmless.
final class GLibTimer {
    private var sourceID: guint = 0
    private var job: (() -> Void)?

    /// Fires `job` once after `seconds` (GLib thread only). A GLib timeout wakes the loop in whole
    /// milliseconds, rounded up: 0.7 ms late on median. `precise` wakes it to the microsecond
    /// through a timerfd instead (`ph_timeout_add_precise`), for the settle check, whose lateness
    /// is pageheight's overhead. Not for every timer: an fd per timer cost the quick rule about 6%
    /// of its pages per second at four jobs.
    init(after seconds: Double, precise: Bool = false, _ job: @escaping () -> Void) {
        self.job = job
        let me = Unmanaged.passRetained(self).toOpaque()
        let fire: GSourceFunc = { data in
            let timer = Unmanaged<GLibTimer>.fromOpaque(data!).takeUnretainedValue()
            timer.sourceID = 0
            let job = timer.job
            timer.job = nil
            job?()
            return 0 // G_SOURCE_REMOVE
        }
        let release: GDestroyNotify = { data in
            Unmanaged<GLibTimer>.fromOpaque(data!).release()
        }
        if precise {
            sourceID = ph_timeout_add_precise(gint64(max(0, (seconds * 1_000_000).rounded())), fire, me, release)
        } else {
            sourceID = g_timeout_add_full(G_PRIORITY_DEFAULT, guint(max(0, (seconds * 1000).rounded())), fire, me, release)
        }
    }

    func cancel() {
        job = nil
        if sourceID != 0 {
            g_source_remove(sourceID)
            sourceID = 0
        }
    }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    Double(g_get_monotonic_time()) / 1_000_000
}
