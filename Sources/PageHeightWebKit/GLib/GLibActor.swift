import CPageHeightShim
import CWebKit
import Foundation
import Synchronization

/// The GLib main context of the engine's thread as a Swift executor: every job is a GLib idle
/// source, so code isolated to `GLibActor` runs on the thread where GTK and WebKit live, in order
/// with their signals, and may touch any GObject without a lock.
@globalActor
public actor GLibActor {
    public static let shared = GLibActor()
    private static let executor = GLibExecutor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }

    /// Runs `body` as isolated to the actor from a C callback, which GLib calls on its own thread
    /// but which Swift cannot know is isolated. Checked: a call from another thread stops the
    /// process rather than race. (The same cast as the standard library's
    /// `MainActor.assumeIsolated`.)
    static func assumeIsolated<T>(_ body: @GLibActor () throws -> T) rethrows -> T {
        precondition(GLibExecutor.onGLibThread, "GLibActor.assumeIsolated called off the GLib thread")
        return try withoutActuallyEscaping(body) { body in
            try unsafeBitCast(body, to: (() throws -> T).self)()
        }
    }
}

/// Enqueues jobs as idle sources of GLib's default main context (run by `GLibThread`).
final class GLibExecutor: SerialExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let box = Unmanaged.passRetained(JobBox(UnownedJob(job), executor: asUnownedSerialExecutor())).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            let box = Unmanaged<JobBox>.fromOpaque(data!).takeUnretainedValue()
            box.job.runSynchronously(on: box.executor)
            return 0 // G_SOURCE_REMOVE
        }, box, { data in
            Unmanaged<JobBox>.fromOpaque(data!).release()
        })
    }

    func checkIsolated() {
        precondition(Self.onGLibThread, "expected to run on the GLib thread")
    }

    /// Whether the calling thread is the one running GLib's default main context.
    static var onGLibThread: Bool { g_main_context_is_owner(g_main_context_default()) != 0 }

    private final class JobBox {
        let job: UnownedJob
        let executor: UnownedSerialExecutor
        init(_ job: UnownedJob, executor: UnownedSerialExecutor) {
            (self.job, self.executor) = (job, executor)
        }
    }
}

/// The one bridge from a one-shot C callback to `await`: `start` gets an opaque context to pass
/// as the callback's user data, and the trampoline hands it back to `resume(_:with:)`, which
/// resumes the waiting task exactly once. If the task is cancelled first it resumes at once with
/// `cancelled`; the callback's late answer is then dropped.
final class CallbackBridge<Value: Sendable>: Sendable {
    private let state: Mutex<CheckedContinuation<Value, Never>?>

    private init(_ continuation: CheckedContinuation<Value, Never>) {
        state = Mutex(continuation)
    }

    private func resume(returning value: Value) {
        let continuation = state.withLock { current -> CheckedContinuation<Value, Never>? in
            defer { current = nil }
            return current
        }
        continuation?.resume(returning: value)
    }

    /// Calls `start` with a retained context; returns what the callback reported.
    static func await(isolation: isolated (any Actor)? = #isolation, cancelled: Value,
                      _ start: (UnsafeMutableRawPointer) -> Void) async -> Value {
        let holder = Mutex<CallbackBridge?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { continuation in
                let bridge = CallbackBridge(continuation)
                holder.withLock { $0 = bridge }
                // Cancelled before the handler could see the bridge: nothing to start.
                if Task.isCancelled { return bridge.resume(returning: cancelled) }
                start(Unmanaged.passRetained(bridge).toOpaque())
            }
        } onCancel: {
            holder.withLock { $0 }?.resume(returning: cancelled)
        }
    }

    /// For the trampoline: resumes the task waiting on `context` and releases the context.
    static func resume(_ context: UnsafeMutableRawPointer?, with value: Value) {
        Unmanaged<CallbackBridge>.fromOpaque(context!).takeRetainedValue().resume(returning: value)
    }
}

/// Time on the GLib thread: monotonic seconds, and waits that are GLib timeout sources.
enum GLibClock {
    /// Seconds on the monotonic clock.
    static var now: Double { Double(g_get_monotonic_time()) / 1_000_000 }

    /// Waits `seconds`; returns early, without throwing, when the task is cancelled, and then
    /// removes its source: every source of the context is looked at on each turn of the loop, so
    /// waits that lost a race (a timeout, a deadline an event beat) must not linger until their
    /// time. A GLib timeout wakes the loop in whole milliseconds, rounded up, so it is late.
    /// `precise` wakes it to the microsecond through a timerfd instead (`ph_timeout_add_precise`),
    /// for the settle check, whose lateness is pageheight's overhead; not for every wait, as an fd
    /// per timer costs throughput.
    @GLibActor
    static func sleep(_ seconds: Double, precise: Bool = false) async {
        guard !Task.isCancelled else { return }
        let timer = Timer()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                timer.start(seconds, precise: precise, continuation)
            }
        } onCancel: {
            Task { @GLibActor in timer.cancel() }
        }
    }

    /// One wait's source and its waiting task, on the GLib thread only.
    @GLibActor
    private final class Timer {
        private var continuation: CheckedContinuation<Void, Never>?
        private var source: guint = 0
        private var cancelled = false

        func start(_ seconds: Double, precise: Bool, _ continuation: CheckedContinuation<Void, Never>) {
            guard !cancelled else { return continuation.resume() }
            self.continuation = continuation
            let context = Unmanaged.passRetained(self).toOpaque()
            let fire: GSourceFunc = { data in
                GLibActor.assumeIsolated { Unmanaged<Timer>.fromOpaque(data!).takeUnretainedValue().fired() }
                return 0 // G_SOURCE_REMOVE
            }
            let release: GDestroyNotify = { data in Unmanaged<Timer>.fromOpaque(data!).release() }
            source = precise
                ? ph_timeout_add_precise(gint64(max(0, (seconds * 1_000_000).rounded())), fire, context, release)
                : g_timeout_add_full(G_PRIORITY_DEFAULT, guint(max(0, (seconds * 1000).rounded())), fire, context, release)
        }

        private func fired() {
            source = 0
            continuation.take()?.resume()
        }

        /// Ends the wait now; its source, not yet fired (this runs on the loop's thread), goes.
        func cancel() {
            cancelled = true
            if source != 0 {
                g_source_remove(source)
                source = 0
            }
            continuation.take()?.resume()
        }
    }
}

/// Runs `operation`, but gives up on it after `seconds` and returns `fallback`: for WebKit calls
/// that a page can hold up without end (an evaluation in a page that spins), which no
/// cancellation reaches. The operation then finishes in the background and its answer is dropped.
@GLibActor
func firstOf<T: Sendable>(within seconds: Double, fallback: T, _ operation: @escaping @GLibActor () async -> T) async -> T {
    let answer = Mutex<CheckedContinuation<T, Never>?>(nil)
    let resume: @Sendable (T) -> Void = { value in
        answer.withLock { current -> CheckedContinuation<T, Never>? in
            defer { current = nil }
            return current
        }?.resume(returning: value)
    }
    return await withCheckedContinuation { continuation in
        answer.withLock { $0 = continuation }
        let timeout = Task { @GLibActor in
            await GLibClock.sleep(seconds)
            resume(fallback)
        }
        Task { @GLibActor in
            resume(await operation())
            timeout.cancel() // its source goes now, not in `seconds`
        }
    }
}
