import PageHeightCore
import PageHeightRegression
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
