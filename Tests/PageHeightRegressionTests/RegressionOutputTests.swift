import Foundation
import Testing
@testable import PageHeightCore
@testable import PageHeightRegression
import PageHeightWebKit

/// JUnit, the HTML report, the sweep table and the reader template: pure.
struct RegressionOutputTests {
    let card = RegressionCase(page: "card.html", width: 390, fontSize: 16, zoom: 1)

    var moved: CaseComparison {
        CaseComparison(card, baseline: Baseline.Entry(card, status: .ok, height: 600), current: CaseOutcome(status: .ok, height: 660),
                       tolerance: Tolerance())
    }

    @Test func junitHasOneTestcasePerCaseAndAFailureWithTheMessage() {
        let passed = CaseComparison(RegressionCase(page: "a&b.html", width: 320, fontSize: 16, zoom: 1),
                                    baseline: Baseline.Entry(RegressionCase(page: "a&b.html", width: 320, fontSize: 16, zoom: 1), status: .ok, height: 5),
                                    current: CaseOutcome(status: .ok, height: 5), tolerance: Tolerance())
        let xml = JUnitReport.xml(suiteName: "suite.json", comparisons: [moved, passed], seconds: [card: 1.5])
        #expect(xml.contains(#"<testsuite name="suite.json" tests="2" failures="1" errors="0" skipped="0" time="1.500">"#))
        #expect(xml.contains(#"<testcase classname="a&amp;b.html" name="a&amp;b.html (width 320, font 16, zoom 1)" time="0.000"/>"#))
        #expect(xml.contains(#"<failure type="moved" message="card.html (width 390, font 16, zoom 1): baseline 600 px, now 660 px (+60 px, +10.0%; tolerance 0 px)">"#))
        #expect(xml.components(separatedBy: "<testcase ").count == 3)
        // The check's own wall time, when given, is the suite's: its cases ran at once.
        let timed = JUnitReport.xml(suiteName: "suite.json", comparisons: [moved, passed], seconds: [card: 1.5], wall: 0.9)
        #expect(timed.contains(#"skipped="0" time="0.900">"#) && timed.contains(#"time="1.500">"#), "\(timed)")
    }

    @Test func htmlReportShowsBothHeightsBothTimelinesAndMarksTheChange() {
        // The report takes sizes and thumbnails as given; the pictures are made elsewhere.
        func picture(width: Int, height: Int) -> ReportPicture {
            ReportPicture(size: PNGSize(width: width, height: height),
                          thumbnail: SnapshotPictures.Thumbnail(jpeg: Data([0xFF, 0xD8, 0xFF]), width: width / 2, height: height / 2))
        }
        let entry = HTMLReport.Entry(comparison: moved, samples: [HeightSample(t: 0.1, height: 600, source: .load), HeightSample(t: 0.4, height: 660, source: .observer)],
                                     baselineSamples: [HeightSample(t: 0.1, height: 580, source: .load), HeightSample(t: 0.3, height: 600, source: .observer)],
                                     baseline: picture(width: 100, height: 60), current: picture(width: 100, height: 66),
                                     changed: .region(SnapshotPictures.Region(left: 10, top: 30, right: 60, bottom: 66)))
        let html = HTMLReport.html(suiteName: "suite.json", summary: "1 case: 0 passed, 1 failed (1 moved)", entries: [entry])
        #expect(html.contains(#"<td class="baseline-height">600 px</td><td class="current-height">660 px</td>"#))
        #expect(html.contains(#"<svg class="timeline""#) && html.contains("<title>baseline 600 px</title>"))
        #expect(html.contains(#"<path class="baseline-timeline" d="M60.0 "#), "the baseline's own timeline is drawn")
        #expect(html.contains("timelines: current (blue) and as recorded with the baseline (grey)"))
        #expect(html.contains(#"data-role="baseline" width="50" height="30" src="data:image/jpeg;base64,/9j/""#))
        #expect(html.contains(#"data-role="current" width="50" height="33" src="data:image/jpeg;base64,/9j/""#))
        #expect(html.contains(#"<div class="mark tail" style="top:90.909%;height:9.091%"></div>"#))
        #expect(html.contains(#"data-diff="10,30,60,66""#))
        #expect(html.contains(#"<div class="mark diff" style="top:50.000%;height:50.000%;left:10.000%;width:50.000%"></div>"#),
                "on the baseline, the box is cut at its last row")
        #expect(html.contains(#"<div class="mark diff" style="top:45.455%;height:54.545%;left:10.000%;width:50.000%"></div>"#))
        #expect(html.contains("changed region: x 10–60, y 30–66 px (marked in red)"))
        #expect(!html.contains("http://") && !html.contains("https://") || html.contains("http://www.w3.org/2000/svg"), "nothing from elsewhere")

        var unread = entry
        unread.changed = .notCompared
        unread.baselineSamples = nil
        let rows = HTMLReport.html(suiteName: "suite.json", summary: "", entries: [unread])
        #expect(rows.contains("changed region: rows 60–66 exist only in the current snapshot"))
        #expect(!rows.contains("baseline-timeline") && !rows.contains("data-diff"))

        var tall = entry
        tall.current = nil
        tall.currentSnapshotError = "There was an error creating the snapshot"
        #expect(HTMLReport.html(suiteName: "suite.json", summary: "", entries: [tall])
            .contains(#"<p class="no-snapshot">no current snapshot: There was an error creating the snapshot</p>"#))
    }

    @Test func sweepTablePutsWidthsDownAndFontSizesAcross() {
        func row(_ width: Int, _ font: Int, _ height: Double, _ status: PageStatus = .ok) -> SweepTable.Row {
            SweepTable.Row(RegressionCase(page: "a.html", width: width, fontSize: font, zoom: 1), CaseOutcome(status: status, height: height))
        }
        let table = SweepTable([row(390, 16, 916), row(320, 16, 1064), row(320, 20, 1300), row(390, 20, 1111, .fallback)])
        #expect(table.table == """
        a.html
        width \\ font  16 px  20 px
        320            1064   1300
        390             916  ~1111
        """)
        #expect(table.csv.split(separator: "\n").first == "page,width,fontSize,zoom,status,height,nondeterministic")
        #expect(table.csv.contains("\na.html,390,20,1,fallback,1111,false"))
        #expect(table.json.contains(#""height" : 1064"#))
    }

    @Test func theTemplateTakesTheFragmentAtThePlaceholderWithItsDirectoryAsBase() throws {
        let template = try ReaderTemplate(html: "<!DOCTYPE html><body>{{article}}</body>")
        #expect(template.inserting("<p>é</p>") == "<!DOCTYPE html><body><p>é</p></body>")
        #expect(throws: TemplateError.self) { try ReaderTemplate(html: "<body></body>") }
        let fragment = RegressionSuiteTests.pages.appendingPathComponent("regression/fragment.html").path
        guard case .html(let html, let base, _, _) = try ReaderTemplate.standard.page(forFragmentAt: fragment) else {
            Issue.record("not an HTML page")
            return
        }
        #expect(base == RegressionSuiteTests.pages.appendingPathComponent("regression").absoluteString + "/" ||
                base == RegressionSuiteTests.pages.appendingPathComponent("regression/").absoluteString)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains(#"<meta charset="utf-8">"#))
        #expect(html.contains(#"<div id="readability-page-1" class="page">"#) && !html.contains("{{article}}"))
    }

    @Test func aTemplateFileIsBasedAtItsFolderAndTheFragmentsLinksPointAtTheFragmentsFolder() throws {
        let site = RegressionSuiteTests.pages.appendingPathComponent("templates")
        let template = try ReaderTemplate.load(site.appendingPathComponent("site/template.html").path)
        guard case .html(let html, let base, let readable, _) = try template.page(forFragmentAt: site.appendingPathComponent("articles/story.html").path) else {
            Issue.record("not an HTML page")
            return
        }
        let articles = site.appendingPathComponent("articles", isDirectory: true).absoluteString
        // The report names the article and the template, not the folder the page is based at.
        let page = try template.page(forFragmentAt: site.appendingPathComponent("articles/story.html").path)
        #expect(page.url == site.appendingPathComponent("articles/story.html").absoluteString)
        #expect(page.template == site.appendingPathComponent("site/template.html").path)
        #expect(try ReaderTemplate.standard.page(forFragmentAt: site.appendingPathComponent("articles/story.html").path).template == "default")
        #expect(PageSource.html("<p>", baseURL: "file:///tmp/").url == "file:///tmp/" && PageSource.html("<p>", baseURL: "file:///tmp/").template == nil)
        #expect(base == site.appendingPathComponent("site", isDirectory: true).absoluteString)
        #expect(readable == [articles])
        #expect(html.contains(#"<link rel="stylesheet" href="site.css">"#))
        #expect(html.contains(#"<img src="\#(articles)block.png" alt="">"#), "\(html)")
    }

    @Test func fragmentLinksBecomeAbsoluteAndOthersStayAsWritten() {
        let directory = "file:///site/articles/"
        let fragment = #"""
        <p data-src="x.png">src="text.png" stays</p><IMG SRC=a.png srcset="b.png 1x, c.png 2x,d.png 3x">
        <a href="#top">top</a><a href='../up.html?a=1&amp;b=2'>up</a><a href="https://example.com/e">e</a>
        <img src="/abs.png"><img src="//cdn.example/x.png"><img src="data:image/png;base64,AAAA">
        <div style="background: url('bg.png')"></div><video poster=p.jpg></video>
        <style>.x { background: url( "s.png" ) } @import "more.css";</style>
        """#
        let out = FragmentLinks.absolute(fragment, directory: directory)
        #expect(out == #"""
        <p data-src="x.png">src="text.png" stays</p><IMG SRC=file:///site/articles/a.png srcset="file:///site/articles/b.png 1x, file:///site/articles/c.png 2x,file:///site/articles/d.png 3x">
        <a href="#top">top</a><a href='file:///site/articles/../up.html?a=1&amp;b=2'>up</a><a href="https://example.com/e">e</a>
        <img src="/abs.png"><img src="//cdn.example/x.png"><img src="data:image/png;base64,AAAA">
        <div style="background: url('file:///site/articles/bg.png')"></div><video poster=file:///site/articles/p.jpg></video>
        <style>.x { background: url( "file:///site/articles/s.png" ) } @import "file:///site/articles/more.css";</style>
        """#, "\(out)")
    }

    @Test func theBuiltInTemplateIsPagesReaderTemplate() throws {
        let file = try String(contentsOf: RegressionSuiteTests.pages.appendingPathComponent("templates/reader.html"), encoding: .utf8)
        #expect(ReaderTemplate.standard.html.trimmingCharacters(in: .whitespacesAndNewlines) == file.trimmingCharacters(in: .whitespacesAndNewlines))
    }

}

@Suite struct CaseSelectionTests {
    let card = RegressionCase(page: "articles/card.html", width: 390, fontSize: 16, zoom: 1)

    @Test func aPlainPatternIsASubstringOfTheCaseNameAndAGlobMatchesThePageOrTheName() {
        #expect(CaseSelection("card").matches(card))
        #expect(CaseSelection("width 390").matches(card))
        #expect(!CaseSelection("width 320").matches(card))
        #expect(CaseSelection("articles/*.html").matches(card))
        #expect(!CaseSelection("*.htm").matches(card))
        #expect(CaseSelection("*card.html (width 390*").matches(card))
    }

    @Test func staleEntriesAreThoseWhosePageLeftTheSuite() {
        let suite = RegressionSuite(path: "/s/suite.json", pages: [.init(name: "a.html", location: "/s/a.html", template: nil)],
                                    widths: [390], fontSizes: [16], zooms: [1], options: MeasureOptions(),
                                    tolerance: Tolerance(), keepsSnapshots: false, repeatCount: 1)
        let kept = Baseline.Entry(RegressionCase(page: "a.html", width: 390, fontSize: 16, zoom: 1), status: .ok, height: 10)
        let gone = [320, 390].map { Baseline.Entry(RegressionCase(page: "b.html", width: $0, fontSize: 16, zoom: 1), status: .ok, height: 10) }
        let baseline = Baseline(cases: [kept] + gone)
        #expect(baseline.staleEntries(for: suite) == gone)
        #expect(Baseline.staleText(gone) == "b.html (2 cases)")
        #expect(baseline.removing(gone).cases == [kept])
    }
}

@Suite struct HTMLReportNavigationTests {
    func picture(width: Int, height: Int) -> ReportPicture {
        ReportPicture(size: PNGSize(width: width, height: height),
                      thumbnail: SnapshotPictures.Thumbnail(jpeg: Data([0xFF, 0xD8]), width: width, height: height))
    }

    @Test func theReportHasAnIndexFailedFirstAFilterOneScaleAndTheAcceptCommand() {
        let card = RegressionCase(page: "it's/card.html", width: 390, fontSize: 16, zoom: 1)
        let plain = RegressionCase(page: "plain.html", width: 390, fontSize: 16, zoom: 1)
        let moved = CaseComparison(card, baseline: Baseline.Entry(card, status: .ok, height: 600),
                                   current: CaseOutcome(status: .ok, height: 660, message: nil), tolerance: Tolerance(pixels: 2))
        let same = CaseComparison(plain, baseline: Baseline.Entry(plain, status: .ok, height: 600),
                                  current: CaseOutcome(status: .ok, height: 600, message: nil), tolerance: Tolerance(pixels: 2))
        let entries = [
            HTMLReport.Entry(comparison: same, samples: [], baseline: nil, current: nil),
            HTMLReport.Entry(comparison: moved, samples: [], baseline: picture(width: 100, height: 60), current: picture(width: 200, height: 66)),
        ]
        let html = HTMLReport.html(suiteName: "suite.json", summary: "2 cases", entries: entries, suiteArgument: "suites/a suite.json")
        // The index: failed first, each a link to its section; the filter starts on "failed only".
        let index = html.range(of: #"<nav class="index">"#)!.lowerBound
        #expect(html.contains(##"<li class="fail"><a href="#case-1">it's/card.html (width 390, font 16, zoom 1)</a> FAIL</li>"##), "\(html)")
        #expect(html.contains(##"<li class="pass"><a href="#case-2">plain.html (width 390, font 16, zoom 1)</a> passed</li>"##))
        #expect(html.contains(#"<input type="checkbox" id="failed-only" data-role="filter" checked> failed only"#))
        #expect(html.contains(#"<section class="case fail" id="case-1""#) && html.contains(#"<section class="case pass" id="case-2""#))
        #expect(index < html.range(of: #"id="case-1""#)!.lowerBound)
        #expect(html.contains("body.failed-only .case.pass"))
        // The accept command, for the failed case only, quoted for a shell.
        #expect(html.contains(#"<code data-role="accept">pageheight check --update --grep 'it'\''s/card.html (width 390, font 16, zoom 1)' 'suites/a suite.json'</code>"#), "\(html)")
        #expect(html.components(separatedBy: "data-role=\"accept\"").count == 2)
        // One scale: each thumbnail at its own size (made at one scale for both).
        #expect(html.contains(#"<div class="stack" style="width:100px"><img alt="baseline snapshot""#))
        #expect(html.contains(#"<div class="stack" style="width:200px"><img alt="current snapshot""#))
        #expect(html.contains("other.scrollTop = frame.scrollTop"), "the snapshots scroll together")
    }
}
