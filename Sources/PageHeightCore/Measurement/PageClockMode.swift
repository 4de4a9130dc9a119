/// Which clock the page's scripts read (`--clock`).
public enum PageClockMode: String, Codable, Sendable, CaseIterable {
    /// The wall clock: the page's timers and animations run in real time.
    case real
    /// Real time plus the jumps the measurement takes while the page is idle: its timers,
    /// `Date`, `performance.now()` and finite animations move with the jumps (see `ProbeScript`).
    case virtual
}

extension KeyedDecodingContainer {
    /// Options recorded before the clock could be chosen have no `clock`: they were measured on
    /// the real clock. (Picked over the generic `decode` by the synthesized `MeasureOptions` init.)
    func decode(_ type: PageClockMode.Type, forKey key: Key) throws -> PageClockMode {
        try decodeIfPresent(type, forKey: key) ?? .real
    }
}
