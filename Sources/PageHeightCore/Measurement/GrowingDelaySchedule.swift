import Foundation

/// The reader app's re-measuring schedule: sleeps of growing length after load finished.
///
/// The default sleeps 0.1, 0.2, 0.5, 1.0, 1.5 and 2.0 s give polls at 0.1, 0.3, 0.8, 1.8,
/// 3.3 and 5.3 s after the load finished.
public struct GrowingDelaySchedule: Codable, Sendable, Equatable {
    /// Sleeps between consecutive polls, seconds; the first is counted from load finished.
    public var delays: [Double]

    public static let readerApp = GrowingDelaySchedule(delays: [0.1, 0.2, 0.5, 1.0, 1.5, 2.0])

    public init(delays: [Double]) {
        self.delays = delays
    }

    /// Poll times in seconds after load finished.
    public var pollOffsets: [Double] {
        var total = 0.0
        return delays.map { total += $0; return total }
    }

    /// When the last poll happens, seconds after load finished (0 for an empty schedule).
    public var duration: Double { pollOffsets.last ?? 0 }

    /// Parses a comma-separated list of sleeps, e.g. `0.1,0.2,0.5`.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var delays: [Double] = []
        for part in parts {
            guard let value = Double(part.trimmingCharacters(in: .whitespaces)),
                  value.isFinite, value > 0 else { return nil }
            delays.append(value)
        }
        guard !delays.isEmpty else { return nil }
        self.delays = delays
    }
}
