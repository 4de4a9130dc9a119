import Foundation
import PageHeightCore

/// `tune --report FILE`: one self-contained HTML file (inline SVG and CSS, no scripts) with the
/// Pareto charts, the front, and, for the recommended candidate and the reader app's default,
/// each page it gets wrong or cannot judge, with its timeline.
public enum TuneReport {
    /// - Parameters:
    ///   - title: what was tuned on (the report files' names).
    ///   - heading: the lines `tune` prints above its table.
    public static func html(_ result: TuneResult, title: String, heading: [String]) -> String {
        var body = [
            "<h1>pageheight tune: \(escape(title))</h1>",
            heading.map { #"<p class="heading">\#(escape($0))</p>"# }.joined(separator: "\n"),
            #"<div class="charts">\#(ParetoChart.svg(result, x: .jumps))\#n\#(ParetoChart.svg(result, x: .finalAfterLoad))</div>"#,
            #"<p class="legend"><span class="dot best"></span> the front's first <span class="dot app"></span> the reader app's default <span class="dot front"></span> Pareto front <span class="dot other"></span> other candidates</p>"#,
            TuneTable.advice(result).filter { !$0.isEmpty }.map { #"<p class="heading">\#(escape($0))</p>"# }.joined(separator: "\n"),
            "<h2>Pareto front</h2>",
            frontTable(result),
        ]
        var shown: [(String, Int)] = []
        if let best = result.recommended { shown.append((result.advice == best ? "Recommended" : "The front's first", best)) }
        if let reader = result.readerApp, reader != result.recommended {
            shown.append((result.advice == reader ? "The reader app's default (recommended)" : "The reader app's default", reader))
        }
        let names = PageNames.shortened(result.reports.map(\.url))
        for (name, index) in shown {
            body.append(pages(name, score: result.scores[index], result: result, names: names, id: index == result.recommended ? "best" : "app"))
        }
        return HTMLText.document(title: "pageheight tune: \(title)", style: style, body: body)
    }

    static func frontTable(_ result: TuneResult) -> String {
        let header = TuneTable.header
        var rows = result.front.enumerated().map { rank, index in
            (TuneTable.row(result.scores[index], mark: rank == 0 ? "best" : result.scores[index].candidate.isReaderApp ? "app" : "",
                           alike: result.alike[index] ?? 0), rank == 0 ? "best" : result.scores[index].candidate.isReaderApp ? "app" : "")
        }
        if let reader = result.readerApp, !result.front.contains(reader) {
            rows.append((TuneTable.row(result.scores[reader], mark: "app*", alike: 0), "app"))
        }
        let head = "<tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"
        let lines = rows.map { cells, kind in
            "<tr class=\"\(kind)\">" + cells.enumerated().map { column, cell in
                column >= 2 ? "<td class=\"number\">\(escape(cell))</td>" : "<td>\(escape(cell))</td>"
            }.joined() + "</tr>"
        }
        return #"<table class="front">"# + "\n" + ([head] + lines).joined(separator: "\n") + "\n</table>"
    }

    static func pages(_ name: String, score: CandidateScore, result: TuneResult, names: [String], id: String) -> String {
        let candidate = score.candidate
        var parts = [
            #"<section class="candidate" id="\#(id)">"#,
            "<h2>\(escape(name)): sleeps \(escape(candidate.sleeps)) s, threshold \(escape(Pixels.format(candidate.threshold)))</h2>",
            #"<p>\#(escape(TuneTable.sentence(score)))</p>"#,
        ]
        let app = candidate.replay
        var listed = 0
        for (offset, report) in result.reports.enumerated() {
            let replay = PageReplay(report, app: app, tolerance: result.tolerance)
            guard replay.verdict.isWrong || replay.verdict.word == "unknown" else { continue }
            listed += 1
            let jumps = replay.jumps.map { "\(Pixels.signed($0.size)) at \(String(format: "%.2f", $0.t - (replay.loadFinished ?? 0))) s" }
            parts.append("""
            <div class="page \(replay.verdict.word)">
            <h3>\(escape(names[offset]))</h3>
            <p class="verdict">\(escape(replay.verdict.description)): shows \(escape(replay.outcome.height.map(Pixels.format) ?? "nothing")), \
            settled \(escape(replay.settled.map(Pixels.format) ?? "-")); jumps: \(escape(jumps.isEmpty ? "none" : jumps.joined(separator: ", ")))</p>
            <figure>\(ReplayChart.svg(report: report, replay: replay, schedule: candidate.schedule))<figcaption>grey: the page's \
            recorded height; orange: what the app shows (ticks: its polls); dashed: the settled height; shaded: not \
            recorded.</figcaption></figure>
            </div>
            """)
        }
        if listed == 0 { parts.append(#"<p class="empty">No page wrong or unknown.</p>"#) }
        parts.append("</section>")
        return parts.joined(separator: "\n")
    }

    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    static let style = """
    body { font: 14px/1.4 "DejaVu Sans", sans-serif; margin: 16px; color: #222; max-width: 1400px; }
    h1 { font-size: 20px; } h2 { font-size: 16px; margin: 24px 0 4px; } h3 { font-size: 13px; margin: 0 0 2px; word-break: break-all; }
    .heading { margin: 2px 0; color: #444; }
    .charts { display: flex; flex-wrap: wrap; gap: 16px; margin-top: 12px; }
    .legend { font-size: 12px; color: #444; }
    .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin: 0 2px 0 10px; vertical-align: middle; }
    .dot.best { background: #188038; } .dot.app { background: #e8710a; } .dot.front { background: #1a73e8; } .dot.other { background: #c8c8c8; }
    table.front { border-collapse: collapse; font-size: 12px; }
    table.front th, table.front td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; white-space: nowrap; }
    table.front td.number { text-align: right; font-variant-numeric: tabular-nums; }
    table.front td:nth-child(1) { white-space: normal; max-width: 80px; }
    table.front td:nth-child(2) { white-space: normal; word-break: break-all; max-width: 240px; }
    table.front tr.best td { background: #e6f4ea; } table.front tr.app td { background: #fef0e1; }
    .page { border: 1px solid #ddd; border-left: 6px solid #d93025; padding: 8px; margin: 10px 0; }
    .page.unknown { border-left-color: #9e9e9e; }
    .verdict { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; margin: 2px 0; }
    figure { margin: 4px 0; } figcaption { font-size: 11px; color: #666; }
    .empty { color: #188038; }
    """
}
