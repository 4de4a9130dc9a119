import Foundation
import PageHeightTestSupport
import Testing

/// The check report points at the clip (issue 61.4): a template change that adds a 16 px banner
/// and cuts the article off at 3000 px is told as a shift, the first rows that differ once it is
/// lined up, and where the content ends now, not as one box around the whole page.
@Suite(.serialized)
struct CheckReportAlignmentTests {
    @Test func aShiftAndAClipAreToldApart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-clip")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let blocks = (0..<60).map { #"<div style="height:100px;background:hsl(\#(($0 * 37) % 360),60%,70%)">block \#($0)</div>"# }.joined()
        func article(_ style: String) -> String {
            #"<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0} \#(style)</style></head><body>"#
                + #"<div class="banner"></div><main>\#(blocks)</main><div style="height:40px"></div></body></html>"#
        }
        let page = directory.appendingPathComponent("article.html")
        try article(".banner{height:0}").write(to: page, atomically: true, encoding: .utf8)
        try #"{ "pages": ["article.html"], "offline": true }"#.write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let update = try PageHeightBinary.run(["check", "--update"], in: directory)
        #expect(update.status == 0, "\(update.stdout)\(update.stderr)")
        try article(".banner{height:16px;background:#000} main{max-height:3000px;overflow:hidden}").write(to: page, atomically: true, encoding: .utf8)
        let check = try PageHeightBinary.run(["check", "--report", "report"], in: directory)
        #expect(check.status == 1 && check.stdout.hasPrefix("FAIL article.html (width 390, font 16, zoom 1): baseline 6040 px, now 3056 px"), "\(check.stdout)")
        let html = try String(contentsOf: directory.appendingPathComponent("report/index.html"), encoding: .utf8)
        #expect(html.contains("the first row that differs: y 0, from where the content moved down by 16 px; lined up, the first rows "
            + "that still differ: y 3000–3040 of the baseline (marked in purple); the content ends at y 6000 in the baseline, 3016 now (marked in blue)"), "\(html.prefix(3000))")
        #expect(html.contains(#"data-content-end="6000""#) && html.contains(#"data-content-end="3016""#))
        #expect(html.components(separatedBy: #"<div class="mark aligned""#).count - 1 == 2, "both snapshots mark the rows that still differ")
    }
}
