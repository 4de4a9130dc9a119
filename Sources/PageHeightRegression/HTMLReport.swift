import Foundation
import PageHeightCore

/// `check --report DIR`: one HTML file (no scripts or styles from elsewhere) that opens from
/// disk without a server.
///
/// At the top, an index of the cases (failed first) with anchors and a filter (failed only /
/// all). Per case: the baseline and current heights, the command that accepts a failure
/// (`check --update --grep`), both timelines in one SVG chart, and the two snapshots side by
/// side as JPEG thumbnails inlined (made at one scale and shown at their own size), scrolling
/// together, with the changed region marked: the rows only one snapshot has, and the box around
/// every pixel that differs (found at full resolution when the report is written). A failed
/// case links its full-size PNGs: the baseline's where it is, the current one kept under
/// `fullSize/` beside the file (`HTMLReport.Entry.init(comparison:…baselinePNG:…)`).
public enum HTMLReport {
    public struct Entry: Sendable {
        public var comparison: CaseComparison
        /// The current run's timeline.
        public var samples: [HeightSample]
        /// The timeline recorded with the baseline, when it was kept.
        public var baselineSamples: [HeightSample]?
        public var baseline: ReportPicture?
        public var current: ReportPicture?
        public var changed: ChangedPixels
        /// Why this run has no snapshot (the report's `snapshotError`: a page too tall to draw).
        public var currentSnapshotError: String?
        /// The steps of the current run (`--then`), marked on its timeline.
        public var steps: [StepReport] = []
        /// Where the snapshots part, once a shift is lined up, and where each one's content ends.
        public var alignment: RowAlignment?

        public init(comparison: CaseComparison, samples: [HeightSample], baselineSamples: [HeightSample]? = nil,
                    baseline: ReportPicture?, current: ReportPicture?, changed: ChangedPixels = .notCompared,
                    currentSnapshotError: String? = nil) {
            (self.comparison, self.samples, self.baselineSamples, self.baseline, self.current, self.changed, self.currentSnapshotError)
                = (comparison, samples, baselineSamples, baseline, current, changed, currentSnapshotError)
        }
    }

    /// - Parameter suiteArgument: the suite as the command line named it, for the accept command.
    public static func html(suiteName: String, summary: String, entries: [Entry], note: String? = nil,
                            suiteArgument: String? = nil) -> String {
        var body = [
            "<h1>pageheight check: \(escape(suiteName))</h1>",
            #"<p class="summary">\#(escape(summary))</p>"#,
        ]
        if let note { body.append(#"<p class="note">\#(escape(note))</p>"#) }
        if entries.isEmpty { body.append(#"<p class="empty">No failing cases.</p>"#) }
        // Failed cases first, in the index and below.
        let ordered = entries.filter { !$0.comparison.passed } + entries.filter { $0.comparison.passed }
        if !ordered.isEmpty { body.append(index(ordered)) }
        for (index, entry) in ordered.enumerated() { body.append(section(entry, index: index, suite: suiteArgument ?? suiteName)) }
        return HTMLText.document(title: "pageheight check: \(suiteName)", style: style, body: body, script: script)
    }

    /// The index: a link to every case with its verdict, and the filter.
    static func index(_ entries: [Entry]) -> String {
        let failed = entries.filter { !$0.comparison.passed }.count
        let items = entries.enumerated().map { index, entry in
            let comparison = entry.comparison
            return ##"<li class="\##(comparison.passed ? "pass" : "fail")"><a href="#case-\##(index + 1)">\##(escape(comparison.testCase.name))</a> \##(comparison.passed ? "passed" : "FAIL")</li>"##
        }
        return """
        <nav class="index"><p><label><input type="checkbox" id="failed-only" data-role="filter"\(failed > 0 ? " checked" : "")> failed only</label> (\(failed) failed of \(entries.count) shown)</p>
        <ol>
        \(items.joined(separator: "\n"))
        </ol></nav>
        """
    }

    /// The shell command that takes the case's current result as its baseline.
    static func acceptCommand(_ testCase: RegressionCase, suite: String) -> String {
        "pageheight check --update --grep \(shellQuoted(testCase.name)) \(shellQuoted(suite))"
    }

    static func shellQuoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "-_./".contains($0) } ? text
            : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    static func section(_ entry: Entry, index: Int, suite: String = "suite.json") -> String {
        let comparison = entry.comparison
        let was = comparison.baseline.map { CaseOutcome.format(status: $0.status, height: $0.height) } ?? "none"
        let now = comparison.current.formatted
        let change = comparison.delta.map { CaseComparison.signed($0) + " px" } ?? "–"
        let (baseline, current) = (entry.baseline, entry.current)
        return """
        <section class="case \(comparison.passed ? "pass" : "fail")" id="case-\(index + 1)" data-verdict="\(comparison.verdict.rawValue)"\(diffAttribute(entry.changed))>
        <h2>\(escape(comparison.testCase.name))</h2>
        <p class="message">\(escape(comparison.message))</p>
        \(comparison.passed ? "" : #"<p class="accept">To accept this change: <code data-role="accept">\#(escape(acceptCommand(comparison.testCase, suite: suite)))</code></p>"#)
        <table class="heights">
        <tr><th>baseline</th><th>current</th><th>change</th><th>tolerance</th></tr>
        <tr><td class="baseline-height">\(escape(was))</td><td class="current-height">\(escape(now))</td><td class="change">\(escape(change))</td><td>\(escape(comparison.tolerance.description))</td></tr>
        </table>
        \(comparison.current.spread.map { #"<p class="spread">\#(escape($0.description))</p>"# } ?? "")
        <figure class="chart">\(TimelineChart.svg(samples: entry.samples, baseline: comparison.baseline?.height, baselineSamples: entry.baselineSamples,
                                                    marks: entry.steps.compactMap { step in step.timings.appliedAt.map { ($0, step.step) } }))<figcaption>\(chartCaption(entry))</figcaption></figure>
        <div class="snapshots">
        \(figure("baseline", "baseline \(was)", baseline, other: current?.size, changed: entry.changed,
                 contentEnd: entry.alignment.map(\.baselineContentEnd), aligned: entry.alignment?.differsAfterShift))
        \(figure("current", "current \(now)", current, other: baseline?.size, changed: entry.changed, error: entry.currentSnapshotError,
                 contentEnd: entry.alignment.map(\.currentContentEnd),
                 aligned: entry.alignment.flatMap { a in a.differsAfterShift.map { .init(top: $0.top + a.shift, bottom: $0.bottom + a.shift) } }))
        </div>
        <p class="changed-region" data-role="changed-region">\(regionText(baseline?.size, current?.size, entry.changed))\(alignmentText(entry.alignment))</p>
        </section>
        """
    }

    static func chartCaption(_ entry: Entry) -> String {
        entry.baselineSamples == nil
            ? "timeline: height (px) over time since the load started"
            : "timelines: current (blue) and as recorded with the baseline (grey), height (px) over time since the load started"
    }

    static func diffAttribute(_ changed: ChangedPixels) -> String {
        switch changed {
        case .notCompared: ""
        case .none: #" data-diff="none""#
        case .region(let box): #" data-diff="\#(box.left),\#(box.top),\#(box.right),\#(box.bottom)""#
        }
    }

    /// A snapshot's thumbnail with the rows the other snapshot lacks and the changed pixels
    /// marked (percentages of its size, so the marks scale with it).
    static func figure(_ role: String, _ caption: String, _ picture: ReportPicture?, other: PNGSize?, changed: ChangedPixels,
                       error: String? = nil, contentEnd: Int? = nil, aligned: RowAlignment.Band? = nil) -> String {
        guard let picture, let thumbnail = picture.thumbnail else {
            let why = picture != nil ? " (the file could not be read)" : error.map { ": " + $0 }
                ?? (role == "baseline" ? " (the baseline was recorded without snapshots)" : "")
            return #"<figure class="snapshot \#(role) missing"><figcaption>\#(escape(caption))</figcaption><p class="no-snapshot">no \#(role) snapshot\#(why)</p></figure>"#
        }
        let own = picture.size
        var marks = ""
        if let other, other.height < own.height, own.height > 0 {
            let top = Double(other.height) / Double(own.height) * 100
            marks += #"<div class="mark tail" style="top:\#(percent(top));height:\#(percent(100 - top))"></div>"#
        }
        if case .region(let box) = changed, box.top < own.height, box.left < own.width {
            let bottom = min(box.bottom, own.height), right = min(box.right, own.width)
            marks += #"<div class="mark diff" style="top:\#(percent(Double(box.top) / Double(own.height) * 100));"#
                + #"height:\#(percent(Double(bottom - box.top) / Double(own.height) * 100));"#
                + #"left:\#(percent(Double(box.left) / Double(own.width) * 100));width:\#(percent(Double(right - box.left) / Double(own.width) * 100))"></div>"#
        }
        if let band = aligned, band.top < own.height, own.height > 0 {
            let bottom = min(max(band.bottom, band.top + 1), own.height)
            marks += #"<div class="mark aligned" style="top:\#(percent(Double(band.top) / Double(own.height) * 100));"#
                + #"height:\#(percent(Double(bottom - band.top) / Double(own.height) * 100))"></div>"#
        }
        if let end = contentEnd, end > 0, end <= own.height {
            marks += #"<div class="mark end" data-content-end="\#(end)" style="top:\#(percent(Double(end) / Double(own.height) * 100))"></div>"#
        }
        let full = picture.link.map { #" <a class="full-size" href="\#(escape($0))">full size</a>"# } ?? ""
        return """
        <figure class="snapshot \(role)"><figcaption>\(escape(caption)) <span class="size">(\(own.width)×\(own.height) px)</span>\(full)</figcaption>
        <div class="frame"><div class="stack" style="width:\(thumbnail.width)px"><img alt="\(role) snapshot" data-role="\(role)" width="\(thumbnail.width)" height="\(thumbnail.height)" src="\(picture.thumbnailFile.map(escape) ?? "data:image/jpeg;base64," + thumbnail.jpeg.base64EncodedString())">\(marks)</div></div></figure>
        """
    }

    static func percent(_ value: Double) -> String { String(format: "%.3f%%", value) }

    static func regionText(_ baseline: PNGSize?, _ current: PNGSize?, _ changed: ChangedPixels) -> String {
        guard let baseline, let current else { return "changed region: needs both snapshots" }
        switch changed {
        case .region(let box):
            return "changed region: x \(box.left)–\(box.right), y \(box.top)–\(box.bottom) px (marked in red)"
        case .none:
            return "no pixel differs"
        case .notCompared:
            if baseline.height == current.height { return "snapshots are the same height (\(current.height) px)" }
            let (low, high) = (min(baseline.height, current.height), max(baseline.height, current.height))
            return "changed region: rows \(low)–\(high) exist only in the \(baseline.height > current.height ? "baseline" : "current") snapshot"
        }
    }

    /// `; from y 154 the content moved down by 16 px; lined up, the first rows that still differ: y 4984–5000 of the
    /// baseline; the content ends at y 11877 in the baseline, 5154 now (marked in blue)`, or nothing.
    static func alignmentText(_ alignment: RowAlignment?) -> String {
        guard let alignment, let first = alignment.firstDifference else { return "" }
        var text = "; the first row that differs: y \(first)"
        if alignment.shift != 0 {
            text += ", from where the content moved \(alignment.shift > 0 ? "down" : "up") by \(abs(alignment.shift)) px"
            if let band = alignment.differsAfterShift {
                text += "; lined up, the first rows that still differ: y \(band.top)–\(band.bottom) of the baseline (marked in purple)"
            } else {
                text += "; lined up, nothing else differs"
            }
        }
        if alignment.baselineContentEnd != alignment.currentContentEnd {
            text += "; the content ends at y \(alignment.baselineContentEnd) in the baseline, \(alignment.currentContentEnd) now (marked in blue)"
        }
        return escape(text)
    }

    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    static let style = """
    body { font: 14px/1.4 "DejaVu Sans", sans-serif; margin: 16px; color: #222; }
    h1 { font-size: 20px; } h2 { font-size: 16px; margin: 0 0 4px; }
    .case { border: 1px solid #ddd; border-left: 6px solid #2e7d32; padding: 12px; margin: 16px 0; }
    .case.fail { border-left-color: #c62828; }
    .message { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
    table.heights { border-collapse: collapse; } table.heights td, table.heights th { border: 1px solid #ccc; padding: 2px 8px; }
    .snapshots { display: flex; gap: 16px; align-items: flex-start; }
    .snapshot { flex: 1 1 0; margin: 0; min-width: 0; }
    .frame { max-height: 480px; overflow: auto; border: 1px solid #bbb; background: #eee; }
    .stack { position: relative; display: inline-block; vertical-align: top; }
    .stack img { display: block; width: 100%; height: auto; }
    .full-size { font-size: 12px; }
    .index ol { max-height: 40vh; overflow: auto; margin: 0; } .index li { overflow-wrap: anywhere; }
    .index li.fail a { color: #c62828; font-weight: bold; }
    body.failed-only .case.pass, body.failed-only .index li.pass { display: none; }
    .accept code { background: #f4f4f4; padding: 1px 4px; user-select: all; }
    .mark { position: absolute; left: 0; right: 0; pointer-events: none; }
    .mark.tail { background: rgba(255, 193, 7, 0.35); border-top: 2px dashed #e65100; }
    .mark.diff { right: auto; outline: 3px solid #d50000; background: rgba(213, 0, 0, 0.12); }
    .mark.end { height: 0; border-top: 3px solid #1565c0; }
    .mark.aligned { outline: 3px dashed #6a1b9a; background: rgba(106, 27, 154, 0.12); }
    .no-snapshot { color: #777; font-style: italic; }
    figure.chart { margin: 8px 0; } figure.chart svg { width: 100%; max-width: 640px; min-width: 360px; height: auto; }
    """

    /// The filter, the snapshots scrolling together, each frame scrolled to its first mark;
    /// `data-compared` on the body once the thumbnails have loaded.
    static let script = """
    function whenLoaded(img) {
      return img.complete ? Promise.resolve() : new Promise(r => { img.onload = img.onerror = r; });
    }
    const filter = document.querySelector('[data-role=filter]');
    function applyFilter() { document.body.classList.toggle('failed-only', !!filter && filter.checked); }
    if (filter) filter.addEventListener('change', applyFilter);
    applyFilter();
    // The two snapshots of a case scroll together (same scale, so the same share of the height).
    document.querySelectorAll('.snapshots').forEach(pair => {
      const frames = [...pair.querySelectorAll('.frame')];
      let syncing = false;
      for (const frame of frames) frame.addEventListener('scroll', () => {
        if (syncing) return;
        syncing = true;
        for (const other of frames) if (other !== frame) { other.scrollTop = frame.scrollTop; other.scrollLeft = frame.scrollLeft; }
        requestAnimationFrame(() => { syncing = false; });
      });
    });
    Promise.all([...document.images].map(whenLoaded)).then(() => {
      for (const frame of document.querySelectorAll('.frame')) {
        const mark = frame.querySelector('.mark.aligned') || frame.querySelector('.mark.diff') || frame.querySelector('.mark.tail');
        if (mark) frame.scrollTop = Math.max(0, mark.offsetTop - 80);
      }
      document.body.dataset.compared = 'yes';
    });
    """
}
