/// The reader app's rule for taking a new height: only a positive value that moved more
/// than the threshold from the last adopted one.
public struct AdoptionRule: Sendable, Equatable {
    public var threshold: Double

    public init(threshold: Double) {
        self.threshold = threshold
    }

    /// Whether `value` replaces `adopted` (nil when nothing was adopted yet).
    public func adopts(_ value: Double?, over adopted: Double?) -> Bool {
        guard let value, value > 0 else { return false }
        guard let adopted else { return true }
        return abs(value - adopted) > threshold
    }
}
