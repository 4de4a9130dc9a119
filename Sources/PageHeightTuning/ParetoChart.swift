import Foundation
import PageHeightCore

/// An SVG scatter of `tune`'s candidates: pages wrong or unknown against one other objective
/// (jumps per page, or seconds to the final height). Every candidate is a grey dot, the front
/// blue, the recommendation green, the reader app's default orange.
public enum ParetoChart {
    public enum Axis: Sendable {
        case jumps, finalAfterLoad

        var label: String {
            switch self {
            case .jumps: "visible jumps per page (mean)"
            case .finalAfterLoad: "final height, s after load finished (mean)"
            }
        }

        func value(_ score: CandidateScore) -> Double {
            switch self {
            case .jumps: score.jumps?.mean ?? 0
            case .finalAfterLoad: score.finalAfterLoad?.mean ?? 0
            }
        }
    }

    public static func svg(_ result: TuneResult, x axis: Axis, width: Int = 520, height: Int = 360) -> String {
        let scores = result.scores
        let xs = scores.map(axis.value)
        let ys = scores.map { Double($0.notRight) }
        let xMax = max(xs.max() ?? 1, 0.01) * 1.05
        let yMax = max(ys.max() ?? 1, 1) * 1.08 + 0.5
        let margin = (left: 48.0, right: 12.0, top: 12.0, bottom: 40.0)
        let plotWidth = Double(width) - margin.left - margin.right
        let plotHeight = Double(height) - margin.top - margin.bottom
        func x(_ value: Double) -> String { f(margin.left + value / xMax * plotWidth) }
        func y(_ value: Double) -> String { f(margin.top + (yMax - value) / yMax * plotHeight) }

        var parts = [
            ##"<svg class="pareto" xmlns="http://www.w3.org/2000/svg" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" role="img" aria-label="pages wrong or unknown against \##(axis.label)">"##,
            ##"<rect x="\##(f(margin.left))" y="\##(f(margin.top))" width="\##(f(plotWidth))" height="\##(f(plotHeight))" fill="#fafafa" stroke="#ddd"/>"##,
        ]
        for tick in ChartTicks.round(upTo: yMax, minimumStep: 1) {
            parts.append(##"<line x1="\##(f(margin.left))" x2="\##(f(margin.left + plotWidth))" y1="\##(y(tick))" y2="\##(y(tick))" stroke="#eee"/>"##)
            parts.append(##"<text x="\##(f(margin.left - 4))" y="\##(y(tick))" dy="3" text-anchor="end" font-size="10">\##(DecimalText.format(tick))</text>"##)
        }
        for tick in ChartTicks.round(upTo: xMax) {
            parts.append(##"<text x="\##(x(tick))" y="\##(f(margin.top + plotHeight + 13))" text-anchor="middle" font-size="10">\##(DecimalText.format(tick))</text>"##)
        }
        parts.append(##"<text x="\##(f(margin.left + plotWidth / 2))" y="\##(height - 6)" text-anchor="middle" font-size="11">\##(axis.label)</text>"##)
        parts.append(##"<text transform="translate(12 \##(f(margin.top + plotHeight / 2))) rotate(-90)" text-anchor="middle" font-size="11">pages wrong or unknown</text>"##)

        let front = Set(result.front)
        for index in scores.indices where !front.contains(index) {
            parts.append(##"<circle cx="\##(x(xs[index]))" cy="\##(y(ys[index]))" r="2" fill="#c8c8c8"/>"##)
        }
        for index in result.front {
            parts.append(##"<circle class="front" cx="\##(x(xs[index]))" cy="\##(y(ys[index]))" r="3.5" fill="#1a73e8"><title>\##(HTMLText.escape(label(scores[index])))</title></circle>"##)
        }
        for (index, colour, name) in [(result.readerApp, "#e8710a", "app"), (result.recommended, "#188038", "best")] {
            guard let index else { continue }
            parts.append(##"<circle class="\##(name)" cx="\##(x(xs[index]))" cy="\##(y(ys[index]))" r="6" fill="\##(colour)" stroke="#fff" stroke-width="1.5"><title>\##(name): \##(HTMLText.escape(label(scores[index])))</title></circle>"##)
            // The two labels apart (above for best, below for app): the points may coincide.
            parts.append(##"<text x="\##(x(xs[index]))" y="\##(y(ys[index]))" dx="8" dy="\##(name == "best" ? -7 : 15)" font-size="11" fill="\##(colour)">\##(name)</text>"##)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    static func label(_ score: CandidateScore) -> String {
        "sleeps \(score.candidate.sleeps) s, threshold \(Pixels.format(score.candidate.threshold)): "
            + "\(score.wrong) wrong, \(score.unknown) unknown, "
            + String(format: "%.2f jumps per page, final at %.2f s", score.jumps?.mean ?? 0, score.finalAfterLoad?.mean ?? 0)
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
