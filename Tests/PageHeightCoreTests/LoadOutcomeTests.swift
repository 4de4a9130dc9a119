import PageHeightCore
import Testing

/// What failed loads and ended web processes mean for a page (no WebKit: WebKit's facts as text).
@Suite struct LoadOutcomeTests {
    func failure(domain: String = "WebKitNetworkError", code: Int32, message: String = "failed", committed: Bool = false,
                 stopped: Bool = false, offline: OfflineMode? = nil) -> LoadOutcome.Failure {
        LoadOutcome.failure(uri: "http://example.test/", domain: domain, code: code, message: message,
                            committed: committed, navigationsStopped: stopped, offline: offline)
    }

    @Test func aReplacedLoadIsNoFailure() {
        #expect(failure(code: 302) == .ignored)
    }

    @Test func aNavigationStoppedAfterTheCommitIsNoFailure() {
        #expect(failure(code: 2, committed: true, stopped: true) == .ignored)
        #expect(failure(code: 2, committed: true, stopped: false) != .ignored)
    }

    @Test func anInterruptedLoadBeforeTheCommitWaitsForItsReplacement() {
        guard case .waitForReplacement(let text) = failure(domain: "WebKitPolicyError", code: 102,
                                                            message: "Frame load interrupted") else {
            Issue.record("not waited for")
            return
        }
        #expect(text.contains("Frame load interrupted (WebKitPolicyError 102)"))
        #expect(failure(domain: "WebKitPolicyError", code: 102, committed: true) != .ignored)
        if case .waitForReplacement = failure(domain: "WebKitPolicyError", code: 102, committed: true) {
            Issue.record("after the commit an interruption is a failure")
        }
    }

    @Test func offlineRefusalsSayWhy() {
        #expect(failure(code: 1, message: "Could not connect to proxy server", offline: .refuse)
            == .failed("refused by --offline=refuse (only local files and loopback load): http://example.test/"))
        #expect(failure(domain: "WebKitPolicyError", code: 104, offline: .block)
            == .failed("refused by --offline=block (only local files and loopback load): http://example.test/"))
        #expect(failure(code: 1, message: "Could not connect to proxy server")
            == .failed("Could not connect to proxy server (WebKitNetworkError 1) loading http://example.test/"))
    }

    @Test func crashTexts() {
        #expect(LoadOutcome.crash(.crashed, killedByWatchdog: false) == "the web process crashed")
        #expect(LoadOutcome.crash(.crashed, killedByWatchdog: true)
            == "the web process exceeded its memory limit (2 GB; stopped by pageheight)")
        #expect(LoadOutcome.crash(.exceededMemoryLimit, killedByWatchdog: false) == "the web process exceeded its memory limit")
        #expect(LoadOutcome.crash(.terminatedByAPI, killedByWatchdog: false) == "the web process was terminated")
    }

    @Test func whichEndsLeaveAPageThatCanAnswer() {
        #expect(EndReason.settled.pageCanAnswer(loadFinished: true))
        #expect(EndReason.runaway.pageCanAnswer(loadFinished: true))
        #expect(!EndReason.loadFailed("x").pageCanAnswer(loadFinished: true))
        #expect(!EndReason.crashed("x").pageCanAnswer(loadFinished: true))
        #expect(!EndReason.javascriptDisabled.pageCanAnswer(loadFinished: true))
        #expect(EndReason.timedOut(stalledSince: nil).pageCanAnswer(loadFinished: true))
        #expect(!EndReason.timedOut(stalledSince: nil).pageCanAnswer(loadFinished: false), "the load never finished")
        #expect(!EndReason.timedOut(stalledSince: 3).pageCanAnswer(loadFinished: true), "an evaluation never came back")
    }

    /// Issue 47.9: a verdict, or a load that finished, after the timeout is a timeout; a failure
    /// keeps its reason.
    @Test func anEndReachedAfterTheTimeoutIsATimeout() {
        for end: EndReason in [.settled, .runaway, .viewDependent, .javascriptDisabled, .navigationLoop(attempts: 30)] {
            #expect(end.reached(atReal: 18.83, timeout: 15, stalledSince: nil) == .timedOut(stalledSince: nil), "\(end)")
            #expect(end.reached(atReal: 18.83, timeout: 15, stalledSince: 2) == .timedOut(stalledSince: 2), "\(end)")
            #expect(end.reached(atReal: 14.99, timeout: 15, stalledSince: nil) == end, "\(end)")
            #expect(end.reached(atReal: 15, timeout: 15, stalledSince: nil) == end, "\(end)")
        }
        for end: EndReason in [.loadFailed("HTTP 500"), .crashed("killed"), .timedOut(stalledSince: 3)] {
            #expect(end.reached(atReal: 30, timeout: 15, stalledSince: nil) == end, "\(end)")
        }
    }
}
