import Foundation
import PageHeightCore

/// Fit mode's work on the view: the view pinned to the content's height, as the app pins its
/// frame, and the checks that tell content of its own from content that follows the view. The
/// session decides (`MeasurementSession.fitTarget`, `resized`, `viewChecked`); this type resizes
/// and reads.
@GLibActor
final class ViewFitting {
    private let page: MeasuredPage
    private let clock: VirtualClock
    /// Whether the report gets a snapshot: the view then goes back to its cap after a view check.
    private let snapshots: Bool
    /// Whether the content beneath the fitted view was looked at, in this phase (the load's, or
    /// a step's).
    var lookedBeneathView = false

    init(page: MeasuredPage, clock: VirtualClock, snapshots: Bool) {
        (self.page, self.clock, self.snapshots) = (page, clock, snapshots)
    }

    /// The view reaches its new height within this many seconds, or the driver goes on without.
    static let resizeWithin = 0.5

    /// Gives the view the adopted height, waits until the viewport has it, then reads the
    /// content twice, 50 ms apart: content that is taller than the new view and holds still
    /// grew with the view (evidence of a runaway); content still moving moves by itself.
    func fit(to height: Double) async throws -> Flow {
        page.note("fit: view height \(Pixels.format(page.session.viewHeight)) → \(Pixels.format(height))")
        let issuedAt = page.now
        try await resizeView(to: height)
        let first = try await page.read(.poll, cause: "after-resize")
        try await clock.holdStill()
        let second = try await page.read(.poll, cause: "after-resize")
        let still = first != nil && second != nil && abs(first! - second!) <= 1
        guard page.session.resized(to: height, issuedAt: issuedAt, at: page.now, contentHeight: still ? second : nil) else {
            return .again
        }
        page.note("runaway: \(page.session.runaway.evidence)")
        let (content, culprits) = try await readAtOtherView(Double(page.session.options.height))
        page.session.runawayExplained(noFitHeight: content, culprits: culprits)
        return .ended(.runaway)
    }

    /// Once a phase, at the verdict: where the body is at least as tall as the view (quirks mode,
    /// `min-height: 100%`), content that shrank after the view grew to it reads as tall as the
    /// view, and the fixed point keeps the height the content had at the last fit, which depends
    /// on when that fit ran against the page's real events. When the content's own boxes end above
    /// the view, the view goes back to `--height` and fit mode grows it to the content again, as
    /// from a fresh load; true when it did.
    func contentShrankBeneathView() async throws -> Bool {
        let session = page.session
        let start = Double(session.options.height)
        guard session.options.fit, !lookedBeneathView, let anchor = session.anchor,
              session.viewHeight > start + 0.5, abs(anchor - session.viewHeight) <= 1 else { return false }
        lookedBeneathView = true
        guard let bottom = try await page.ask(ProbeScript.contentBottom),
              bottom < session.viewHeight - max(session.options.threshold, 1) else { return false }
        page.note("the content ends at \(Pixels.format(bottom)), above the view that holds it up: fitting again from \(Pixels.format(start))")
        try await resizeView(to: start)
        _ = page.session.resized(to: start, at: page.now, contentHeight: nil)
        try await page.read(.poll, cause: "after-resize")
        return true
    }

    /// The view reached the cap below the content and the page has settled there: reads the
    /// content at `--height` (and which elements changed with the view) and lets the session tell
    /// whether the content depends on the view. Content that does not is the verdict as it
    /// stands: the view goes back to the cap only for a snapshot (what the app's frame shows), as
    /// that is another full paint of the tallest view, the costliest drawing a page gets.
    func checkViewAtCap() async throws -> Flow {
        let cap = page.session.viewHeight
        let check = Double(page.session.options.height)
        page.note("the view is at its cap, \(Pixels.format(cap)), below the content: checking the content at \(Pixels.format(check))")
        let (content, culprits) = try await readAtOtherView(check)
        let finding = page.session.viewChecked(view: check, content: content, culprits: culprits)
        page.note("view check: \(finding)")
        if case .independent = finding, !snapshots { return .ended(.settled) }
        try await resizeView(to: cap)
        switch finding {
        case .independent:
            try await page.read(.poll, cause: "after-resize")
            return .again
        case .runaway: return .ended(.runaway)
        case .beyondCap, .moved: return .ended(.viewDependent)
        }
    }

    /// Notes every element's height, gives the view `height`, and reads the content there twice,
    /// 50 ms apart, without recording it (it is not what the app shows): the content if it held
    /// still, and the elements whose height changed with the view.
    func readAtOtherView(_ height: Double) async throws -> (content: Double?, culprits: [String]) {
        _ = try await page.ask(ProbeScript.markView)
        try await resizeView(to: height)
        let first = try await page.silentRead()
        try await clock.holdStill()
        let second = try await page.silentRead()
        let still = first != nil && second != nil && abs(first! - second!) <= 1
        let culprits = try await page.ask(ProbeScript.viewCulprits(threshold: page.options.threshold)) ?? []
        page.note("at view \(Pixels.format(height)): content \(second.map { Pixels.format($0) } ?? "unknown")"
            + "\(still ? "" : " (moving)"); following the view: \(culprits.isEmpty ? "nothing found" : culprits.joined(separator: ", "))")
        return (still ? second : nil, culprits)
    }

    /// Sets the view's height and waits (`resizeWithin` at most) until the page's viewport has
    /// it, and `width` too when given (a step changed it).
    func resizeView(to height: Double, width: Int? = nil) async throws {
        page.view.setViewportHeight(height)
        let expected = page.view.expectedInnerHeight(for: height)
        let reached = try await page.poll(ProbeScript.viewport, every: 0.01, for: Self.resizeWithin) { size in
            abs(size[1] - expected) < 1 && (width.map { abs(size[0] - Double($0)) < 1.5 } ?? true)
        }
        if !reached { page.note("the viewport did not take its new height within \(Self.resizeWithin) s") }
    }
}
