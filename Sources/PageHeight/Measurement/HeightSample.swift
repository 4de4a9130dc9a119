/// One reading of the measured height on the timeline.
public struct HeightSample: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable {
        /// The one measurement when the load finished.
        case load
        /// A native measurement: a schedule poll (`poll` set) or a settle or resize check.
        case poll
        /// A change reported by the in-page probe.
        case observer
    }

    /// Seconds since the load started.
    public var t: Double
    /// The metric's value in CSS px; nil when JavaScript gave no value (error or stall).
    public var height: Double?
    public var source: Source
    /// The 1-based index of the schedule poll this reading is.
    public var poll: Int?
    /// Why the reading was taken: the probe's cause (`resize-observer`, `image-load`,
    /// `font-load`, `mutation`, `transition-end`, ...) or a native step (`settle-check`).
    public var cause: String?

    public init(t: Double, height: Double?, source: Source, poll: Int? = nil, cause: String? = nil) {
        self.t = t
        self.height = height
        self.source = source
        self.poll = poll
        self.cause = cause
    }

    /// Whether the reading is a height the reader app would use.
    public var isUsable: Bool { (height ?? 0) > 0 }
}
