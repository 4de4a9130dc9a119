import Foundation

/// Why a wait of the measurement stopped before its answer: the phase's deadline passed, or the
/// caller cancelled the measuring task. Every wait of the driver throws one or the other.
enum Interruption: Error, Equatable {
    case timedOut
    case cancelled
}

/// One phase's deadline (the load and its verdict, or a step and its verdict), on the monotonic
/// clock: `run` races the phase against it, and every wait inside (`sleep`, the view's inbox,
/// probe calls) ends with `check`, which throws `Interruption.timedOut` once it passed and
/// `Interruption.cancelled` when the caller cancelled. The deadline is enforced in one place:
/// when it passes, `run` cancels the phase, whose waits return at once and throw.
@GLibActor
final class Deadline {
    /// Seconds on `GLibClock`.
    let at: Double
    private(set) var passed = false

    init(at: Double) {
        self.at = at
    }

    /// A deadline that never passes (the phases before and after the measured ones).
    static var never: Deadline { Deadline(at: .infinity) }

    /// Throws when the deadline passed or the task was cancelled.
    func check() throws {
        if passed || GLibClock.now >= at { passed = true; throw Interruption.timedOut }
        if Task.isCancelled { throw Interruption.cancelled }
    }

    /// Waits `seconds` (less if the deadline comes first), then `check`s.
    func sleep(_ seconds: Double, precise: Bool = false) async throws {
        await GLibClock.sleep(min(seconds, max(0, at - GLibClock.now)), precise: precise)
        try check()
    }

    /// Sleeps until the deadline, then marks it passed (unless cancelled first).
    private func expire() async {
        await GLibClock.sleep(max(0, at - GLibClock.now))
        if !Task.isCancelled { passed = true }
    }

    /// Runs `phase` until it returns, or until the deadline passes, when it is cancelled and its
    /// waits throw `Interruption.timedOut`.
    func run<T: Sendable>(_ phase: @escaping @Sendable @GLibActor () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await phase() }
            group.addTask { await self.expire(); return nil }
            defer { group.cancelAll() }
            while true {
                do {
                    guard let next = try await group.next() else { throw Interruption.timedOut }
                    if let value = next { return value }
                    group.cancelAll() // the deadline passed: the phase's waits throw
                } catch is CancellationError {
                    throw passed ? Interruption.timedOut : Interruption.cancelled
                } catch Interruption.cancelled where passed {
                    throw Interruption.timedOut
                }
            }
        }
    }
}
