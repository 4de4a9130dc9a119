import Foundation
import PageHeightCore

/// An SVG chart of one page under one app: the page's recorded height over time (grey), the
/// height the app shows (orange, from its first height), the settled height (dashed), a tick
/// for each of the app's polls, and where the recording stops answering (shaded) when it does.
///
/// Times on the axis are seconds after load finished; heights CSS px.
public enum ReplayChart {
    public static func svg(report: RecordedReport, replay: PageReplay, schedule: GrowingDelaySchedule,
                           width: Int = 560, height: Int = 170) -> String {
        let finished = report.timings.finished ?? 0
        let timeline = report.timeline
        let page = timeline.samples.sorted { $0.t < $1.t }.compactMap { sample in sample.height.map { (t: sample.t - finished, h: $0) } }
        let shown = replay.outcome.jumps.map { (t: $0.t - finished, h: $0.height) }
        let polls = schedule.pollOffsets
        var horizon: Double?
        if case .watched(let until) = timeline.horizon { horizon = until - finished }
        let tMin = min(0, page.map(\.t).min() ?? 0)
        let tMax = max(page.map(\.t).max() ?? 0, polls.last ?? 0, horizon ?? 0, 0.5) * 1.04 + 0.05
        let values = page.map(\.h) + shown.map(\.h) + [replay.settled].compactMap { $0 }
        var hMin = values.min() ?? 0, hMax = values.max() ?? 1
        if hMax - hMin < 1 { hMin -= 10; hMax += 10 }
        let pad = (hMax - hMin) * 0.08
        hMin -= pad
        hMax += pad

        let margin = (left: 58.0, right: 10.0, top: 10.0, bottom: 34.0)
        let plotWidth = Double(width) - margin.left - margin.right
        let plotHeight = Double(height) - margin.top - margin.bottom
        func x(_ t: Double) -> String { f(margin.left + (t - tMin) / (tMax - tMin) * plotWidth) }
        func y(_ h: Double) -> String { f(margin.top + (hMax - h) / (hMax - hMin) * plotHeight) }
        let bottom = margin.top + plotHeight

        var parts = [
            ##"<svg class="replay" xmlns="http://www.w3.org/2000/svg" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" role="img" aria-label="page height and the app's height over time">"##,
            ##"<rect x="\##(f(margin.left))" y="\##(f(margin.top))" width="\##(f(plotWidth))" height="\##(f(plotHeight))" fill="#fafafa" stroke="#ddd"/>"##,
        ]
        if let horizon, horizon < tMax {
            parts.append(##"<rect class="unknown" x="\##(x(max(horizon, tMin)))" y="\##(f(margin.top))" width="\##(f((tMax - max(horizon, tMin)) / (tMax - tMin) * plotWidth))" height="\##(f(plotHeight))" fill="#eee"><title>not recorded after \##(String(format: "%.2f", horizon)) s</title></rect>"##)
        }
        parts += [
            ##"<text x="\##(f(margin.left - 4))" y="\##(f(margin.top + 9))" text-anchor="end" font-size="10">\##(Int(hMax.rounded()))</text>"##,
            ##"<text x="\##(f(margin.left - 4))" y="\##(f(bottom))" text-anchor="end" font-size="10">\##(Int(hMin.rounded()))</text>"##,
            ##"<text x="\##(f(margin.left + plotWidth))" y="\##(height - 2)" text-anchor="end" font-size="10">s after load finished</text>"##,
        ]
        for tick in ChartTicks.round(upTo: tMax) {
            parts.append(##"<text x="\##(x(tick))" y="\##(f(bottom + 17))" text-anchor="middle" font-size="10">\##(DecimalText.format(tick))</text>"##)
        }
        for poll in polls {
            parts.append(##"<line class="poll" x1="\##(x(poll))" x2="\##(x(poll))" y1="\##(f(bottom))" y2="\##(f(bottom + 6))" stroke="#e8710a" stroke-width="1.5"><title>poll at \##(String(format: "%.2f", poll)) s</title></line>"##)
        }
        if let settled = replay.settled {
            parts.append(##"<line class="settled" x1="\##(f(margin.left))" x2="\##(f(margin.left + plotWidth))" y1="\##(y(settled))" y2="\##(y(settled))" stroke="#555" stroke-dasharray="4 3"><title>settled \##(Pixels.format(settled))</title></line>"##)
        }
        if let first = page.first {
            var path = "M\(x(first.t)) \(y(first.h))"
            for point in page.dropFirst() { path += " H\(x(point.t)) V\(y(point.h))" }
            path += " H\(x(horizon.map { min($0, tMax) } ?? tMax))"
            parts.append(##"<path class="page" d="\##(path)" fill="none" stroke="#9e9e9e" stroke-width="1.5"/>"##)
            for point in page {
                parts.append(##"<circle cx="\##(x(point.t))" cy="\##(y(point.h))" r="1.8" fill="#9e9e9e"><title>page \##(String(format: "%.3f", point.t)) s: \##(Pixels.format(point.h))</title></circle>"##)
            }
        }
        if let first = shown.first {
            var path = "M\(x(first.t)) \(y(first.h))"
            for point in shown.dropFirst() { path += " H\(x(point.t)) V\(y(point.h))" }
            // Past the recording what the app shows is unknown.
            path += " H\(x(horizon.map { min(max($0, shown.last!.t), tMax) } ?? tMax))"
            parts.append(##"<path class="app" d="\##(path)" fill="none" stroke="#e8710a" stroke-width="2"/>"##)
            for point in shown {
                parts.append(##"<circle cx="\##(x(point.t))" cy="\##(y(point.h))" r="3" fill="#e8710a"><title>app shows \##(Pixels.format(point.h)) at \##(String(format: "%.2f", point.t)) s</title></circle>"##)
            }
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
