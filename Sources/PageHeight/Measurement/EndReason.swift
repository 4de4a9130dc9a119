/// Why the engine stopped measuring a page.
public enum EndReason: Sendable, Equatable {
    /// The settle rule was met.
    case settled
    /// The timeout passed; `stalled` when a JavaScript evaluation never came back.
    case timedOut(stalled: Bool)
    /// Fit mode proved that the content grows with the view.
    case runaway
    /// JavaScript is off, so no height can be read.
    case javascriptDisabled
    case loadFailed(String)
    case crashed(String)
}
