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
    /// The caller cancelled the measurement before its verdict.
    case cancelled
}

extension EndReason {
    /// The end as the timeout sees it, given the real time (seconds since the load started) at
    /// which it was reached: a verdict, or a load that finished, after `timeout` is a timeout,
    /// however it came to be late (a machine so busy that the timeout's own wake-up came after
    /// the page's events). A failure keeps its own reason: it says more.
    public func reached(atReal realTime: Double, timeout: Double, stalledSince: Double?) -> EndReason {
        switch self {
        case .loadFailed, .crashed, .timedOut, .cancelled: return self
        case .settled, .runaway, .viewDependent, .javascriptDisabled, .navigationLoop:
            return realTime > timeout ? .timedOut(stalledSince: stalledSince) : self
        }
    }
}
