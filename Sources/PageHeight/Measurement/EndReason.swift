/// Why the engine stopped measuring a page.
public enum EndReason: Sendable, Equatable {
    /// The settle rule was met.
    case settled
    /// The timeout passed; `stalledSince` is when the oldest JavaScript evaluation that never
    /// came back was started (the page's script does not yield), nil when none is outstanding.
    case timedOut(stalledSince: Double?)
    /// Fit mode proved that the content grows with the view.
    case runaway
    /// JavaScript is off, so no height can be read.
    case javascriptDisabled
    case loadFailed(String)
    case crashed(String)
}
