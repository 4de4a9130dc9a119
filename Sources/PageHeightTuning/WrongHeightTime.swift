import PageHeightCore

/// How long, and by how much, a reader looks at a wrong height on one page: the area between
/// the height the app shows and the page's own content height over time, in px·s, split into
/// clipped (the app shows less than the content: the article's end is cut off) and blank (it
/// shows more: empty space). Only differences beyond the tolerance count.
///
/// It runs from the app's first height to the latest of its final height, the page's last
/// change and the recording's end: a page the app leaves wrong is counted until then (it is
/// also counted as wrong), whatever the app's schedule.
/// Pure; times are seconds since the load started.
public struct WrongHeightTime: Sendable, Equatable {
    public var clipped: Double
    public var blank: Double
    public var total: Double { clipped + blank }

    public static let none = WrongHeightTime(clipped: 0, blank: 0)

    public init(clipped: Double, blank: Double) {
        (self.clipped, self.blank) = (clipped, blank)
    }

    /// - Parameters:
    ///   - shown: the app's adoptions in time order (the first is its first height).
    ///   - content: the page's readings; those without a usable height are skipped.
    ///   - tolerance: px of difference that still count as right.
    ///   - recordingEnd: when the recording ended (seconds since the load started).
    public init(shown: [StrategyOutcome.Jump], content: [HeightSample], tolerance: Double, recordingEnd: Double = 0) {
        var readings = content.filter(\.isUsable)
        if zip(readings, readings.dropFirst()).contains(where: { $0.t > $1.t }) { readings.sort { $0.t < $1.t } }
        guard let start = shown.first?.t, !readings.isEmpty else {
            self = .none
            return
        }
        let end = max(shown.last?.t ?? start, readings.last?.t ?? start, recordingEnd)
        var clipped = 0.0, blank = 0.0
        var shownIndex = 0, readingIndex = -1
        var t = start
        while readingIndex + 1 < readings.count, readings[readingIndex + 1].t <= t { readingIndex += 1 }
        while t < end {
            let nextShown = shownIndex + 1 < shown.count ? shown[shownIndex + 1].t : .infinity
            let nextReading = readingIndex + 1 < readings.count ? readings[readingIndex + 1].t : .infinity
            let next = min(nextShown, nextReading, end)
            // Before the page's first reading its content is what the app first read.
            let page = readingIndex >= 0 ? readings[readingIndex].height! : shown[0].height
            let difference = shown[shownIndex].height - page
            if abs(difference) > tolerance {
                if difference < 0 { clipped += -difference * (next - t) } else { blank += difference * (next - t) }
            }
            t = next
            while shownIndex + 1 < shown.count, shown[shownIndex + 1].t <= t { shownIndex += 1 }
            while readingIndex + 1 < readings.count, readings[readingIndex + 1].t <= t { readingIndex += 1 }
        }
        self.init(clipped: clipped, blank: blank)
    }
}
