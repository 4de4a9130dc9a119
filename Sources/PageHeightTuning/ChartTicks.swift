import Foundation

/// Axis ticks for the SVG charts.
enum ChartTicks {
    /// About five round ticks (1, 2 or 5 times a power of ten apart) from 0 to `limit`.
    static func round(upTo limit: Double, minimumStep: Double = 0) -> [Double] {
        guard limit > 0 else { return [0] }
        let raw = max(limit / 5, minimumStep)
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        return stride(from: 0, through: limit, by: step).map { $0 }
    }
}
