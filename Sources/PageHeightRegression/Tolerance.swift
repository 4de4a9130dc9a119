import PageHeightCore

/// How far a case's height may move from its baseline and still pass.
///
/// With both set, a move passes when it is within either (the larger allowance wins); with
/// neither, any move fails (heights are whole CSS px on most pages, so this is exact).
public struct Tolerance: Sendable, Equatable {
    /// Absolute allowance in CSS px.
    public var pixels: Double?
    /// Allowance as a percentage of the baseline height.
    public var percent: Double?

    public init(pixels: Double? = nil, percent: Double? = nil) {
        (self.pixels, self.percent) = (pixels, percent)
    }

    /// The largest move allowed from `baseline`, in CSS px.
    public func allowance(from baseline: Double) -> Double {
        max(pixels ?? 0, (percent ?? 0) / 100 * abs(baseline))
    }

    public func allows(from baseline: Double, to current: Double) -> Bool {
        abs(current - baseline) <= allowance(from: baseline) + 1e-9
    }

    /// `2 px`, `1%`, `2 px or 1%`, `0 px`.
    public var description: String {
        switch (pixels, percent) {
        case let (px?, pc?): "\(Pixels.format(px)) or \(RegressionCase.format(pc))%"
        case let (px?, nil): Pixels.format(px)
        case let (nil, pc?): "\(RegressionCase.format(pc))%"
        case (nil, nil): "0 px"
        }
    }
}
