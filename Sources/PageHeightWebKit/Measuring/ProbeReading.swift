import Foundation
import PageHeightCore

/// What the probe returns from `measure()` or posts as a message, decoded from JSON.
struct ProbeReading: Decodable, Sendable {
    struct Pending: Decodable {
        var document: Bool
        var images: Int
        var fonts: Bool
        var requests: Int
        /// Calls of the engine's asynchronous work under way, in any frame.
        var calls: Int?
        /// Child frames (at any depth) whose document has not finished loading.
        var frames: Int?
        /// Dedicated workers running, in any frame.
        var workers: Int?
        /// The first way of keeping time the hooks do not move that the page uses now.
        var realTime: String?
        /// Seconds from the moment of the reading.
        var timers: [Double]
        var animations: Int
    }


    var value: Double?
    var cause: String?
    /// Set on a message from one of the view's own documents (its initial empty document, the
    /// blank page between pages), which can arrive after the page's load began.
    var notThePage: Bool?
    var pending: Pending?
    /// The page's clock when the reading was taken.
    var clock: PageClock?
    var metrics: HeightMetrics?
    /// The body's own computed top and bottom margins, CSS px, with the metrics.
    var bodyMargins: [Double]?
    /// `document.compatMode`, with the metrics: `BackCompat` is quirks mode.
    var compatMode: String?
    /// With the metrics: the URLs of the elements whose resource failed, as the page saw them.
    var resourceErrors: [String]?
    /// Time spent inside `measure()` (the forced layout and the reads), milliseconds.
    var layoutMs: Double?
    /// `performance.timing.loadEventEnd`, milliseconds since the epoch.
    var loadEventEnd: Double?
    /// When the style and layout pass right after the load event ended, milliseconds since the
    /// epoch, and how long it took (the probe runs it in the first `pageshow`).
    var loadWorkEnd: Double?
    var loadLayoutMs: Double?

    /// The page's clock is coarse: WebKit floors `performance.timeOrigin` and
    /// `performance.now()` each to whole milliseconds, so an epoch stamp made of the two comes
    /// 0-2 ms before the moment it marks: 1 ms on average (two independent fractions). Stamps
    /// are moved on by that mean; uncorrected, every page's overhead would be overstated by it.
    static let pageClockFloorMs = 1.0

    /// An epoch stamp from the page (milliseconds) as seconds since `startedEpoch`.
    static func secondsSince(_ startedEpoch: Double, stamp: Double) -> Double {
        (stamp + pageClockFloorMs) / 1000 - startedEpoch
    }

    static func decode(_ json: String) -> ProbeReading? {
        try? JSONDecoder().decode(ProbeReading.self, from: Data(json.utf8))
    }

    /// The answer to `ProbeScript.clockCall` or `advanceCall`.
    static func decodeClock(_ json: String) -> PageClock? {
        try? JSONDecoder().decode(PageClock.self, from: Data(json.utf8))
    }

    /// The pending work with timer due times made absolute (seconds since the load started), and
    /// the view's requests in flight as the engine counts them.
    func pendingWork(at t: Double, network: Int) -> PendingWork? {
        guard let pending else { return nil }
        return PendingWork(document: pending.document, images: pending.images, fonts: pending.fonts,
                           requests: pending.requests, calls: pending.calls ?? 0, timers: pending.timers.map { t + $0 },
                           animations: pending.animations, network: network, frames: pending.frames ?? 0,
                           workers: pending.workers ?? 0, realTime: pending.realTime)
    }
}

/// The page's clock as the probe tells it. All in milliseconds of the page's time: its
/// `performance.now()` scale, with the virtual clock's jumps included (on the real clock, the
/// offset is 0 and the times are real).
struct PageClock: Decodable, Equatable, Sendable {
    /// The page's time at the reading.
    var now: Double
    /// The sum of the jumps so far: the page's time minus real time.
    var offset: Double
    /// When the earliest of the page's timers is due (periodic ones included); nil when it has
    /// none, or on the real clock, whose timers are not tracked to the end.
    var next: Double?
    /// When the earliest of the child frames' timers is due; nil when they have none.
    var childNext: Double?
    /// When the earliest one-shot timer of any frame (pending work) is due; nil for none.
    var oneShot: Double?
    /// The top frame's animation frame callbacks waiting for a frame (virtual clock only).
    var animationFrames: Int?
    /// When the first running finite animation of the document ends.
    var animationEnd: Double?
}
