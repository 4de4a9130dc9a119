import Foundation
import PageHeightCore

/// `check --report DIR`: one self-contained HTML file (snapshots inlined as `data:` URLs, no
/// scripts or styles from elsewhere) that opens from disk without a server.
///
/// At the top, an index of the cases (failed first) with anchors and a filter (failed only /
/// all). Per case: the baseline and current heights, the command that accepts a failure
/// (`check --update --grep`), the timeline as an SVG chart, and the baseline and current
/// full-document snapshots side by side, at one scale and scrolling together, with the changed
/// region marked. Snapshots stay inlined: a canvas may read an inline image's pixels, not a
/// file's (Chromium taints `file:` images), and the file stays one that can be mailed. The mark
/// is computed twice: in Swift, the rows only one snapshot has (from the PNG sizes); in the
/// page, a script compares the pixels (inline images do not taint a canvas) and draws the box
/// around every differing pixel.
public enum HTMLReport {
    public struct Entry: Sendable {
        public var comparison: CaseComparison
        /// The current run's timeline.
        public var samples: [HeightSample]
        public var baselineSnapshot: Data?
        public var currentSnapshot: Data?

        public init(comparison: CaseComparison, samples: [HeightSample], baselineSnapshot: Data?, currentSnapshot: Data?) {
            self.comparison = comparison
            self.samples = samples
            self.baselineSnapshot = baselineSnapshot
            self.currentSnapshot = currentSnapshot
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
        let baselineSize = entry.baselineSnapshot.flatMap(PNGSize.init)
        let currentSize = entry.currentSnapshot.flatMap(PNGSize.init)
        return """
        <section class="case \(comparison.passed ? "pass" : "fail")" id="case-\(index + 1)" data-verdict="\(comparison.verdict.rawValue)">
        <h2>\(escape(comparison.testCase.name))</h2>
        <p class="message">\(escape(comparison.message))</p>
        \(comparison.passed ? "" : #"<p class="accept">To accept this change: <code data-role="accept">\#(escape(acceptCommand(comparison.testCase, suite: suite)))</code></p>"#)
        <table class="heights">
        <tr><th>baseline</th><th>current</th><th>change</th><th>tolerance</th></tr>
        <tr><td class="baseline-height">\(escape(was))</td><td class="current-height">\(escape(now))</td><td class="change">\(escape(change))</td><td>\(escape(comparison.tolerance.description))</td></tr>
        </table>
        \(comparison.current.spread.map { #"<p class="spread">\#(escape($0.description))</p>"# } ?? "")
        <figure class="chart">\(TimelineChart.svg(samples: entry.samples, baseline: comparison.baseline?.height))<figcaption>timeline: height (px) over time since the load started</figcaption></figure>
        <div class="snapshots">
        \(figure("baseline", "baseline \(was)", entry.baselineSnapshot, own: baselineSize, other: currentSize))
        \(figure("current", "current \(now)", entry.currentSnapshot, own: currentSize, other: baselineSize))
        </div>
        <p class="changed-region" data-role="changed-region">\(staticRegionText(baselineSize, currentSize))</p>
        </section>
        """
    }

    /// A snapshot with the rows the other snapshot lacks marked (percentages of its height).
    static func figure(_ role: String, _ caption: String, _ png: Data?, own: PNGSize?, other: PNGSize?) -> String {
        guard let png, let own else {
            return #"<figure class="snapshot \#(role) missing"><figcaption>\#(escape(caption))</figcaption><p class="no-snapshot">no \#(role) snapshot\#(role == "baseline" ? " (the baseline was recorded without snapshots)" : "")</p></figure>"#
        }
        var mark = ""
        if let other, other.height < own.height, own.height > 0 {
            let top = Double(other.height) / Double(own.height) * 100
            mark = #"<div class="mark tail" style="top:\#(String(format: "%.3f", top))%;height:\#(String(format: "%.3f", 100 - top))%"></div>"#
        }
        return """
        <figure class="snapshot \(role)"><figcaption>\(escape(caption)) <span class="size">(\(own.width)×\(own.height) px)</span></figcaption>
        <div class="frame"><div class="stack" style="width:\(widthPercent(own, other))%"><img alt="\(role) snapshot" data-role="\(role)" src="data:image/png;base64,\(png.base64EncodedString())">\(mark)</div></div></figure>
        """
    }

    /// The snapshot's width as a share of the wider of the two: both frames are as wide, so
    /// both snapshots are drawn at one scale.
    static func widthPercent(_ own: PNGSize, _ other: PNGSize?) -> String {
        let widest = max(own.width, other?.width ?? 0)
        return String(format: "%.3f", widest > 0 ? Double(own.width) / Double(widest) * 100 : 100)
    }

    static func staticRegionText(_ baseline: PNGSize?, _ current: PNGSize?) -> String {
        guard let baseline, let current else { return "changed region: needs both snapshots" }
        if baseline.height == current.height { return "snapshots are the same height (\(current.height) px)" }
        let (low, high) = (min(baseline.height, current.height), max(baseline.height, current.height))
        return "changed region: rows \(low)–\(high) exist only in the \(baseline.height > current.height ? "baseline" : "current") snapshot"
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
    .index ol { columns: 2; } .index li.fail a { color: #c62828; font-weight: bold; }
    body.failed-only .case.pass, body.failed-only .index li.pass { display: none; }
    .accept code { background: #f4f4f4; padding: 1px 4px; user-select: all; }
    .mark { position: absolute; left: 0; right: 0; pointer-events: none; }
    .mark.tail { background: rgba(255, 193, 7, 0.35); border-top: 2px dashed #e65100; }
    .mark.diff { outline: 3px solid #d50000; background: rgba(213, 0, 0, 0.12); }
    .no-snapshot { color: #777; font-style: italic; }
    """

    /// Compares the two inline snapshots pixel by pixel and marks the bounding box of the
    /// differences on both (as percentages, so it scales with the images).
    static let script = """
    function pixels(img) {
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
      const context = canvas.getContext('2d');
      context.drawImage(img, 0, 0);
      return context.getImageData(0, 0, canvas.width, canvas.height);
    }
    function compare(section) {
      const a = section.querySelector('img[data-role=baseline]'), b = section.querySelector('img[data-role=current]');
      const out = section.querySelector('[data-role=changed-region]');
      if (!a || !b || !a.naturalWidth || !b.naturalWidth) return;
      let pa, pb;
      try { pa = pixels(a); pb = pixels(b); } catch (e) { out.textContent += ' (pixel comparison unavailable: ' + e.name + ')'; return; }
      const w = Math.max(pa.width, pb.width), h = Math.max(pa.height, pb.height);
      let top = -1, bottom = -1, left = w, right = -1;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let same = y < pa.height && y < pb.height && x < pa.width && x < pb.width;
          if (same) {
            const i = (y * pa.width + x) * 4, j = (y * pb.width + x) * 4;
            same = pa.data[i] === pb.data[j] && pa.data[i + 1] === pb.data[j + 1] && pa.data[i + 2] === pb.data[j + 2];
          }
          if (!same) { if (top < 0) top = y; bottom = y; if (x < left) left = x; if (x > right) right = x; }
        }
      }
      section.dataset.diff = top < 0 ? 'none' : [left, top, right + 1, bottom + 1].join(',');
      if (top < 0) { out.textContent = 'no pixel differs'; return; }
      for (const tail of section.querySelectorAll('.mark.tail')) { const frame = tail.closest('.frame'); frame.scrollTop = Math.max(0, tail.offsetTop - 80); }
      out.textContent = 'changed region: x ' + left + '–' + (right + 1) + ', y ' + top + '–' + (bottom + 1) + ' px (marked in red)';
      for (const [img, data] of [[a, pa], [b, pb]]) {
        const mark = document.createElement('div');
        mark.className = 'mark diff';
        const y2 = Math.min(bottom + 1, data.height);
        if (top >= data.height) continue;
        mark.style.top = (top / data.height * 100) + '%';
        mark.style.height = ((y2 - top) / data.height * 100) + '%';
        mark.style.left = (left / data.width * 100) + '%';
        mark.style.width = ((Math.min(right + 1, data.width) - left) / data.width * 100) + '%';
        mark.style.right = 'auto';
        img.parentNode.appendChild(mark);
        const frame = img.closest('.frame');
        frame.scrollTop = Math.max(0, mark.offsetTop - 80);
      }
    }
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
      document.querySelectorAll('section.case').forEach(compare);
      document.body.dataset.compared = 'yes';
    });
    """
}
