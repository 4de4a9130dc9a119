/// Why the engine stopped measuring a page.
public enum EndReason: Sendable, Equatable {
    /// The settle rule was met.
    case settled
    /// The timeout passed; `stalledSince` is when the oldest JavaScript evaluation that never
    /// came back was started (the page's script does not yield), nil when none is outstanding.
    case timedOut(stalledSince: Double?)
    /// Fit mode proved that the content grows with the view.
    case runaway
    /// Fit mode reached the view cap with content that depends on the view more weakly (its
    /// fit height lies beyond the cap), or that moved while that was checked: no height of its
    /// own that pageheight can confirm (`MeasurementSession.viewDependence` says which).
    case viewDependent
    /// JavaScript is off, so no height can be read.
    case javascriptDisabled
    /// The page kept starting navigations after its load (`attempts` of them): it was stopped
    /// there and is measured as it was, before its navigations cost more.
    case navigationLoop(attempts: Int)
    case loadFailed(String)
    case crashed(String)
}
