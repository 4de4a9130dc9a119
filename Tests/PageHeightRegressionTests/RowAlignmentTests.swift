import Foundation
import PageHeightCore
import PageHeightRegression
import PageHeightWebKit
import Testing

/// Where two snapshots part once a shift is lined up, and where their content ends (issue 61.4),
/// on rows given as signatures.
struct RowAlignmentTests {
    /// Distinct rows 1...n, then `background` rows of 0.
    func page(_ rows: [UInt64], background: Int = 0) -> [UInt64] { rows + Array(repeating: 0, count: background) }

    @Test func aTallerHeaderAndAClipAreTwoChangesNotOneBoxAroundThePage() {
        let content = (1...600).map(UInt64.init)
        let baseline = page([9, 9] + content, background: 40)
        // 16 rows of a new banner above, and the content cut off after its 300th row.
        let current = page(Array(repeating: 7, count: 16) + [9, 9] + Array(content.prefix(300)), background: 40)
        let alignment = RowAlignment(baseline: baseline, current: current)
        #expect(alignment.firstDifference == 0)
        #expect(alignment.shift == 16)
        #expect(alignment.differsAfterShift == RowAlignment.Band(top: 302, bottom: 342), "the clip: the baseline goes on where the current page has its background, to its end")
        #expect(alignment.baselineContentEnd == 602 && alignment.currentContentEnd == 318)
    }

    @Test func aShiftAloneLinesUpAndIdenticalRowsAreNoChange() {
        let content = (1...200).map(UInt64.init)
        let moved = RowAlignment(baseline: page(content, background: 10), current: page(Array(content.prefix(50)) + [5, 5, 5] + content.dropFirst(50), background: 10))
        #expect(moved.firstDifference == 50 && moved.shift == 3 && moved.differsAfterShift == nil)
        let same = RowAlignment(baseline: page(content, background: 5), current: page(content, background: 5))
        #expect(same.firstDifference == nil && same.shift == 0)
        // Rows removed: the shift is up.
        let removed = RowAlignment(baseline: page(content, background: 10), current: page(Array(content.prefix(20)) + content.dropFirst(30), background: 10))
        #expect(removed.firstDifference == 20 && removed.shift == -10 && removed.differsAfterShift == nil)
    }
}

/// The check report's timeline chart is read without hovering (issue 61.4): 640 × 240 px, five
/// height labels with grid lines and five time labels.
struct TimelineChartReadabilityTests {
    @Test func theChartLabelsItsAxes() {
        let samples = [HeightSample(t: 0.1, height: 800, source: .load), HeightSample(t: 2.5, height: 1300, source: .observer)]
        let svg = TimelineChart.svg(samples: samples, baseline: 1000)
        #expect(svg.contains(#"width="640" height="240""#))
        #expect(svg.components(separatedBy: #"class="grid""#).count - 1 == 5)
        #expect(svg.components(separatedBy: " px</text>").count - 1 == 5 && svg.components(separatedBy: " s</text>").count - 1 == 5, "\(svg)")
        #expect(svg.contains(">0.00 s</text>") && svg.contains(">2.50 s</text>"))
    }
}

/// A report of many tall failures stays small (issue 61.4): past the inline budget its
/// thumbnails are files beside index.html, linked; within it, the report stays one file.
struct ReportSizeTests {
    @Test func thumbnailsPastTheBudgetAreLinkedFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-thumbnails").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let testCase = RegressionCase(page: "a.html", width: 390, fontSize: 16, zoom: 1)
        let comparison = CaseComparison(testCase, baseline: Baseline.Entry(testCase, status: .ok, height: 600),
                                        current: CaseOutcome(status: .ok, height: 660), tolerance: Tolerance())
        let jpeg = Data(repeating: 0xAB, count: 1000)
        let picture = ReportPicture(size: PNGSize(width: 390, height: 600), thumbnail: SnapshotPictures.Thumbnail(jpeg: jpeg, width: 195, height: 300))
        let entry = HTMLReport.Entry(comparison: comparison, samples: [], baseline: picture, current: picture)
        let inlined = HTMLReport.linkingThumbnails([entry], in: directory, budget: 2000)
        #expect(inlined[0].baseline?.thumbnailFile == nil)
        #expect(HTMLReport.html(suiteName: "s.json", summary: "", entries: inlined).contains("src=\"data:image/jpeg;base64,"))
        let linked = HTMLReport.linkingThumbnails([entry], in: directory, budget: 1999)
        let stem = testCase.fileStem
        #expect(linked[0].baseline?.thumbnailFile == "thumbnails/\(stem).baseline.jpg" && linked[0].current?.thumbnailFile == "thumbnails/\(stem).current.jpg")
        #expect(FileManager.default.contents(atPath: directory + "/thumbnails/\(stem).current.jpg") == jpeg)
        let html = HTMLReport.html(suiteName: "s.json", summary: "", entries: linked)
        #expect(html.contains(#"src="thumbnails/\#(stem).baseline.jpg""#) && !html.contains("base64"))
    }
}

extension RowAlignmentTests {
    /// A clip that cuts where the shifted rows end: the baseline's rows past it are what differs.
    @Test func aClipAtTheEndOfTheShiftedRowsIsTheBaselinesRest() {
        let content = (1...600).map(UInt64.init)
        let baseline = page(content, background: 20)
        let current = Array(repeating: 7, count: 16) + Array(content.prefix(300))
        let alignment = RowAlignment(baseline: baseline, current: current)
        #expect(alignment.shift == 16 && alignment.differsAfterShift == RowAlignment.Band(top: 300, bottom: 620))
    }
}
