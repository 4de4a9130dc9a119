import Foundation
@testable import PageHeightBatch
@testable import PageHeightCore
import Testing

/// The live progress line fits the terminal and names pages by their normalised paths (issue 45.6).
@Suite struct ProgressLineTests {
    @Test func theLineFitsItsWidthShorteningThePathInTheMiddle() {
        let progress = RunProgress(total: 30, unit: "page", display: .none)
        let long = "/data/lists/../articles/" + String(repeating: "very-long-folder-name/", count: 8) + "source.html"
        progress.started(1, name: long)
        let full = progress.line()
        #expect(full.contains("slowest running: /data/articles/very-long-folder-name/"), "\(full)")
        for width in [80, 120, 200] {
            let line = progress.line(width: width)
            #expect(line.count <= width, "\(width): \(line)")
            #expect(line.hasPrefix("0/30 pages (0 ok, 0 not ok)") && line.contains("slowest running: /data"), "\(line)")
            #expect(line.contains("…") && line.contains(".html ("), "\(line)")
            if width > 80 { #expect(line.contains("slowest running: /data/articles/") && line.contains("source.html ("), "\(line)") }
        }
        #expect(progress.line(width: 40).count <= 40)
        #expect(RunProgress.middleShortened("abcdefghij", to: 5) == "ab…ij")
        #expect(RunProgress.middleShortened("abc", to: 5) == "abc")
    }
}
