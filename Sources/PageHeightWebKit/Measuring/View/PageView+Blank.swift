import CWebKit
import Foundation

extension PageView {
    /// Replaces the page with an empty document of its own at a viewport `height` CSS px tall,
    /// so that nothing of the page reaches the next one: a navigation its scripts start after
    /// its verdict, a load event still on its way, the view height fit mode gave it. Without
    /// this a batch could hand one page's load events, and so its height, to the next page, or
    /// lay the next page out in a viewport still as tall as the last (a 100vh page then
    /// measures that). True once the view has finished loading and the document itself
    /// says it is that blank page, complete, with that viewport: the view's URI changes as soon
    /// as a load is asked for and a resize takes tens of milliseconds, so only the page can tell, and the
    /// title is new each time, so that a page that failed to load (still the initial
    /// about:blank) cannot pass for it. False if that did not happen within a second,
    /// or the view cannot run JavaScript: then the view must not be reused.
    func blank(height: Double) async -> Bool {
        guard javascript, reusable else { return false }
        Self.blanks += 1
        let title = "pageheight-blank-\(Self.blanks)"
        let prefix = "\(title) complete "
        let expected = prefix + "\(Int(expectedInnerHeight(for: height)))"
        let deadline = GLibClock.now + 1
        inbox.clear()
        noteWebProcess { webkit_web_view_load_uri(view, "data:text/html,%3Ctitle%3E\(title)%3C%2Ftitle%3E") }
        var finished = false
        while GLibClock.now < deadline {
            if !finished {
                switch await inbox.next(until: deadline) {
                case nil: return false
                case .load(.committed)?:
                    // Resized once the page is gone: before, the web process laid the page out
                    // again at the new height (and drew it) only to unload it.
                    setViewportHeight(height)
                case .load(.finished)?: finished = true
                case .processTerminated?: return false // and the view is no longer reusable
                default: continue
                }
            }
            let result = await firstOf(within: max(0, deadline - GLibClock.now), fallback: .failure(JavaScriptError(message: "no answer"))) {
                await self.evaluate("document.title + ' ' + document.readyState + ' ' + window.innerHeight")
            }
            guard case .success(let text) = result, text.hasPrefix(prefix) else {
                finished = false // not the blank page yet: wait for its load to finish
                continue
            }
            // The blank document's own load-finished comes before this answer (the web
            // process reports a load complete before it runs the next script).
            if text == expected && webkit_web_view_is_loading(view) == 0 {
                if historyBase == nil, webkit_back_forward_list_get_length(webkit_web_view_get_back_forward_list(view)) == 1 {
                    historyBase = webkit_web_view_get_session_state(view).map { BoxedReference(adopting: $0, .sessionState) }
                }
                return true
            }
            setViewportHeight(height) // in case the commit went by unseen; no change if it did not
            await GLibClock.sleep(0.01) // still resizing, or still loading
        }
        return false
    }
}
