/// A Prometheus histogram of durations in seconds: cumulative counts per upper bound, the sum
/// and the count.
struct SecondsHistogram: Sendable, Equatable {
    static let bounds: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60]
    /// Observations at or below each bound (not cumulative: `lines` adds them up).
    private(set) var counts = [Int](repeating: 0, count: bounds.count)
    private(set) var sum = 0.0
    private(set) var count = 0

    mutating func observe(_ seconds: Double) {
        if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
        sum += seconds
        count += 1
    }

    /// The metric's sample lines: `name_bucket{le="…"}`, `name_sum`, `name_count`.
    func lines(_ name: String) -> [String] {
        var running = 0
        var lines: [String] = []
        for (bound, count) in zip(Self.bounds, counts) {
            running += count
            lines.append("\(name)_bucket{le=\"\(PrometheusText.number(bound))\"} \(running)")
        }
        lines.append("\(name)_bucket{le=\"+Inf\"} \(count)")
        lines.append("\(name)_sum \(PrometheusText.number(sum))")
        lines.append("\(name)_count \(count)")
        return lines
    }
}
