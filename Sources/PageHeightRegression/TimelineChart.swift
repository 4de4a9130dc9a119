import Foundation
import PageHeightCore

/// A small SVG chart of a measurement's timeline: height against time, one step line for the
/// samples, a dot per sample, a dashed line at the baseline height when there is one, and the
/// baseline's own timeline in grey when it was recorded, and a vertical line where each step
/// (`--then`) was applied.
public enum TimelineChart {
    /// - Parameters:
    ///   - samples: the report's samples (readings without a height are skipped).
    ///   - baseline: the baseline height, CSS px.
    ///   - baselineSamples: the timeline recorded with the baseline.
    ///   - marks: when each step was applied, seconds since the load started, and the step.
    ///   - width, height: the chart's size in CSS px.
    public static func svg(samples: [HeightSample], baseline: Double?, baselineSamples: [HeightSample]? = nil,
                           marks: [(t: Double, step: String)] = [], width: Int = 640, height: Int = 240) -> String {
        let points = samples.compactMap { sample in sample.height.map { (t: sample.t, h: $0) } }
        let recorded = (baselineSamples ?? []).compactMap { sample in sample.height.map { (t: sample.t, h: $0) } }
        let margin = (left: 60.0, right: 12.0, top: 10.0, bottom: 24.0)
        let plotWidth = Double(width) - margin.left - margin.right
        let plotHeight = Double(height) - margin.top - margin.bottom
        let tMax = max((points + recorded).map(\.t).max() ?? 1, 0.001)
        let values = (points + recorded).map(\.h) + (baseline.map { [$0] } ?? [])
        var hMin = values.min() ?? 0, hMax = values.max() ?? 1
        if hMax - hMin < 1 { hMin -= 10; hMax += 10 }
        let pad = (hMax - hMin) * 0.08
        hMin -= pad
        hMax += pad
        func x(_ t: Double) -> String { f(margin.left + t / tMax * plotWidth) }
        func y(_ h: Double) -> String { f(margin.top + (hMax - h) / (hMax - hMin) * plotHeight) }

        var parts = [
            ##"<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" role="img" aria-label="height over time">"##,
            ##"<rect x="\##(f(margin.left))" y="\##(f(margin.top))" width="\##(f(plotWidth))" height="\##(f(plotHeight))" fill="#fafafa" stroke="#ddd"/>"##,
        ]
        // Five height labels with grid lines, five time labels: read off without hovering.
        for step in 0...4 {
            let h = hMin + (hMax - hMin) * Double(step) / 4, t = tMax * Double(step) / 4
            parts.append(##"<line class="grid" x1="\##(f(margin.left))" x2="\##(f(margin.left + plotWidth))" y1="\##(y(h))" y2="\##(y(h))" stroke="#e0e0e0"/>"##)
            parts.append(##"<text x="\##(f(margin.left - 4))" y="\##(y(h))" dy="4" text-anchor="end" font-size="12">\##(Int(h.rounded())) px</text>"##)
            let anchor = step == 0 ? "start" : step == 4 ? "end" : "middle"
            parts.append(##"<text x="\##(x(t))" y="\##(height - 6)" text-anchor="\##(anchor)" font-size="12">\##(String(format: "%.2f", t)) s</text>"##)
        }
        if let baseline {
            parts.append(##"<line class="baseline" x1="\##(f(margin.left))" x2="\##(f(margin.left + plotWidth))" y1="\##(y(baseline))" y2="\##(y(baseline))" stroke="#888" stroke-dasharray="4 3"><title>baseline \##(Pixels.format(baseline))</title></line>"##)
        }
        func steps(_ points: [(t: Double, h: Double)]) -> String {
            guard let first = points.first else { return "" }
            var path = "M\(x(0)) \(y(first.h))"
            for point in points { path += " H\(x(point.t)) V\(y(point.h))" }
            return path + " H\(x(tMax)) V\(y(points.last!.h))"
        }
        for step in marks {
            parts.append(##"<line class="step" x1="\##(x(step.t))" x2="\##(x(step.t))" y1="\##(f(margin.top))" y2="\##(f(margin.top + plotHeight))" stroke="#e8710a" stroke-dasharray="2 2"><title>\##(String(format: "%.3f", step.t)) s: \##(HTMLText.escape(step.step))</title></line>"##)
        }
        if !recorded.isEmpty {
            parts.append(##"<path class="baseline-timeline" d="\##(steps(recorded))" fill="none" stroke="#9e9e9e" stroke-width="1.5"><title>the baseline's timeline</title></path>"##)
        }
        if !points.isEmpty {
            parts.append(##"<path d="\##(steps(points))" fill="none" stroke="#1a73e8" stroke-width="1.5"/>"##)
            for point in points {
                parts.append(##"<circle cx="\##(x(point.t))" cy="\##(y(point.h))" r="2" fill="#1a73e8"><title>\##(String(format: "%.3f", point.t)) s: \##(Pixels.format(point.h))</title></circle>"##)
            }
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
