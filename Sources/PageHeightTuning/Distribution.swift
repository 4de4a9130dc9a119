/// A summary of values over pages: count, mean, median and 95th percentile (nearest rank, as
/// `batch`'s seconds per page).
public struct Distribution: Sendable, Equatable {
    public var count: Int
    public var mean: Double
    public var median: Double
    public var p95: Double

    /// nil for no values.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double {
            sorted[min(max(Int((p / 100 * Double(sorted.count - 1)).rounded()), 0), sorted.count - 1)]
        }
        count = sorted.count
        mean = sorted.reduce(0, +) / Double(sorted.count)
        median = percentile(50)
        p95 = percentile(95)
    }
}
