import Foundation
import PageHeightCore
import Testing

/// Verdicts, messages and the one-line answer, from recorded sessions.
@Suite struct ReportTests {
    func session(timeout: Double = 15, until: StopRule = .schedule, _ events: (inout MeasurementSession) -> Void) -> MeasurementSession {
        var options = MeasureOptions()
        options.timeout = timeout
        options.until = until
        var s = MeasurementSession(options: options)
        events(&s)
        return s
    }

    @Test func settledPageIsOKWithTheLineFromTheBrief() {
        let s = session {
            $0.loadCommitted(at: 0.1)
            $0.loadFinished(at: 0.3)
            $0.record(HeightSample(t: 0.3, height: 1198, source: .load))
            $0.record(HeightSample(t: 0.5, height: 1234, source: .observer, cause: "font-load"))
            $0.record(HeightSample(t: 5.6, height: 1234, source: .poll, poll: 6))
        }
        let report = ReportBuilder(url: "file:///a.html", session: s, end: .settled, endedAt: 5.6).build()
        #expect(report.status == .ok && report.height == 1234 && report.message == nil)
        #expect(report.total == 1234)
        #expect(report.timings.settledAt == 5.6 && report.timings.firstMeasurement == 0.3)
        #expect(SummaryLine.format(report)
            == "1234 px (settled at 5.60 s; the 5.30 s schedule shows the same; one measurement at load would show 1198 px)")
    }

    /// The earliest stop (`--until quiet`) ends before the schedule's last poll: its later polls
    /// are taken to read the settled value, and the line says that it is an assumption.
    @Test func theEarliestStopSaysTheScheduleIsAssumed() {
        let s = session(until: .quiet) {
            $0.loadCommitted(at: 0.1)
            $0.loadFinished(at: 0.3)
            $0.record(HeightSample(t: 0.3, height: 1198, source: .load))
            $0.record(HeightSample(t: 0.5, height: 1234, source: .observer, cause: "font-load"))
            $0.record(HeightSample(t: 1.0, height: 1234, source: .poll, cause: "settle-check"))
        }
        let report = ReportBuilder(url: "file:///a.html", session: s, end: .settled, endedAt: 1.0).build()
        #expect(report.status == .ok && report.height == 1234 && report.scheduleMissed == false)
        #expect(SummaryLine.format(report) == "1234 px (settled at 1.00 s; stopped before the 5.30 s schedule's end, which shows "
            + "the same if nothing changes later; one measurement at load would show 1198 px)")
    }

    /// Fit mode's first resize can start before pageheight's own load reading answers; the
    /// strategies still start from that reading, as the app measures before it resizes.
    @Test func aRunawayKeepsTheLoadMeasurementWhicheverCameFirst() {
        func report(loadAnsweredAt: Double) -> PageReport {
            let s = session {
                $0.loadCommitted(at: 0.1)
                $0.loadFinished(at: 0.70)
                $0.record(HeightSample(t: loadAnsweredAt, height: 4064, source: .load))
                for (step, t) in [0.72, 0.80, 0.88, 0.96].enumerated() {
                    let view = 4064 + Double(step) * 1000
                    _ = $0.resized(to: view, issuedAt: t, at: t + 0.05, contentHeight: view + 1000)
                    $0.record(HeightSample(t: t + 0.05, height: view + 1000, source: .poll, cause: "after-resize"))
                }
            }
            return ReportBuilder(url: "u", session: s, end: .runaway, endedAt: 1.1).build()
        }
        let before = report(loadAnsweredAt: 0.71)
        let after = report(loadAnsweredAt: 0.73) // the first resize was issued at 0.72
        #expect(before.status == .runaway && after.status == .runaway)
        #expect(before.strategies.schedule.height == 4064 && before.strategies.once.height == 4064)
        #expect(after.strategies.schedule.height == 4064 && after.strategies.once.height == 4064)
    }

    /// pageheight's overhead starts where the engine's load work ends: the load event and
    /// the layout WebKit runs right after it. Without that pass timed, it counts from the load
    /// event; a page that did not settle has no overhead figure.
    @Test func overheadStartsWhereTheEnginesLoadWorkEnds() throws {
        func report(_ engine: EngineWork, end: EndReason = .settled) -> PageReport {
            let s = session {
                $0.loadCommitted(at: 0.1)
                $0.loadFinished(at: 0.252)
                $0.record(HeightSample(t: 0.26, height: 1000, source: .load))
                $0.record(HeightSample(t: 0.805, height: 1000, source: .poll, cause: "settle-check"))
            }
            var builder = ReportBuilder(url: "u", session: s, end: end, endedAt: 0.805)
            builder.engine = engine
            builder.verdictDue = 0.800
            builder.verdictLayout = 0.002
            return builder.build()
        }
        let timed = report(EngineWork(loadEventEnd: 0.200, loadLayout: 0.050, loadWorkEnd: 0.250, layout: 0.01))
        #expect(abs(try #require(timed.overhead) - 0.005) < 1e-9) // 2 ms to the signal, 3 ms to the verdict
        let untimed = report(EngineWork(loadEventEnd: 0.200, layout: 0.01))
        #expect(abs(try #require(untimed.overhead) - 0.055) < 1e-9)
        #expect(report(EngineWork(loadEventEnd: 0.2, loadLayout: 0.05, loadWorkEnd: 0.25), end: .runaway).overhead == nil)
    }

    @Test func headerAndFooterMakeTheTotal() {
        var options = MeasureOptions()
        options.header = 50
        options.footer = 70
        var s = MeasurementSession(options: options)
        s.loadFinished(at: 0.1)
        s.record(HeightSample(t: 0.1, height: 1000, source: .load))
        s.record(HeightSample(t: 0.6, height: 1000, source: .poll, cause: "settle-check"))
        let report = ReportBuilder(url: "u", session: s, end: .settled, endedAt: 0.6).build()
        #expect(report.total == 1120)
        #expect(SummaryLine.format(report).hasPrefix("1000 px (total 1120 px with header 50 px and footer 70 px)"))
    }

    @Test func timeoutVerdicts() {
        let neverLoaded = session { $0.loadCommitted(at: 0.2) }
        let a = ReportBuilder(url: "u", session: neverLoaded, end: .timedOut(stalledSince: nil), endedAt: 15).build()
        #expect(a.status == .timeout)
        #expect(a.message == "the load did not finish within 15.00 s (last step: committed)")

        let moving = session {
            $0.loadFinished(at: 0.2)
            $0.record(HeightSample(t: 0.2, height: 100, source: .load))
            $0.record(HeightSample(t: 14.9, height: 900, source: .observer))
        }
        let b = ReportBuilder(url: "u", session: moving, end: .timedOut(stalledSince: nil), endedAt: 15).build()
        #expect(b.status == .unstable && b.height == 900)

        let stalled = session { $0.loadFinished(at: 0.2) }
        let c = ReportBuilder(url: "u", session: stalled, end: .timedOut(stalledSince: 0.3), endedAt: 15,
                              text: PlainText(html: "<p>text</p>")).build()
        #expect(c.status == .fallback)
        #expect(c.estimate?.reason.hasPrefix("JavaScript stalled") == true)
        #expect(c.height == c.estimate?.height)

        let stuck = session {
            $0.loadFinished(at: 0.2)
            $0.record(HeightSample(t: 0.2, height: 19, source: .load))
        }
        let d = ReportBuilder(url: "u", session: stuck, end: .timedOut(stalledSince: 0.3), endedAt: 15).build()
        #expect(d.status == .timeout && d.height == 19)
        #expect(d.message?.hasPrefix("JavaScript stalled at 0.30 s") == true)
    }

    @Test func zeroHeightAndDisabledJavaScriptFallBackToAnEstimate() {
        let zero = session {
            $0.loadFinished(at: 0.2)
            $0.record(HeightSample(t: 0.2, height: 0, source: .load))
            $0.record(HeightSample(t: 0.7, height: 0, source: .poll, cause: "settle-check"))
        }
        let a = ReportBuilder(url: "u", session: zero, end: .settled, endedAt: 0.7, text: PlainText(html: "")).build()
        #expect(a.status == .fallback && a.estimate?.reason == "the page's height is 0 px")

        let off = session { $0.loadFinished(at: 0.2) }
        let b = ReportBuilder(url: "u", session: off, end: .javascriptDisabled, endedAt: 0.2,
                              text: PlainText(html: "<p>hello</p>")).build()
        #expect(b.status == .fallback && b.estimate?.reason == "JavaScript is off")
        #expect(SummaryLine.format(b).hasPrefix("fallback: ~"))
    }

    @Test func metricsDisagreementIsFlagged() {
        let metrics = HeightMetrics(bodyScroll: 500, documentScroll: 3000, bodyOffset: 500, documentOffset: 500,
                                    bodyRect: 500, lowestElement: 3000, max: 3000)
        #expect(metrics.disagreement(threshold: 5)?.hasPrefix("metrics disagree: body-scroll 500 px but document-scroll 3000 px") == true)
        let same = HeightMetrics(bodyScroll: 500, documentScroll: 503, bodyOffset: 500, documentOffset: 500,
                                 bodyRect: 500, lowestElement: 500, max: 503)
        #expect(same.disagreement(threshold: 5) == nil)
    }

    /// The body's own margins are not a disagreement: the document's metrics take them in and
    /// the body's leave them out. Margins of its children that collapse through it are one
    /// (`Pages/margins.html`: body 550 px, document 620 px, body margins 8 and 8).
    @Test func theBodysOwnMarginsAreNotADisagreement() throws {
        let plain = HeightMetrics(bodyScroll: 1000, documentScroll: 1016, bodyOffset: 1000, documentOffset: 1016,
                                  bodyRect: 1000.4, lowestElement: 1016, max: 1016)
        #expect(plain.disagreement(threshold: 5, bodyMargins: (8, 8)) == nil)
        #expect(plain.disagreement(threshold: 5) != nil, "without the margins, 16 px apart")
        // A child's margin collapsing through the body on a long page: 8 px of 15935.
        let long = HeightMetrics(bodyScroll: 15911, documentScroll: 15935, bodyOffset: 15911, documentOffset: 15935,
                                 bodyRect: 15911, lowestElement: 15935, max: 15935)
        #expect(long.disagreement(threshold: 5, bodyMargins: (8, 8)) == nil)
        let collapsing = HeightMetrics(bodyScroll: 550, documentScroll: 620, bodyOffset: 550, documentOffset: 620,
                                       bodyRect: 550, lowestElement: 620, max: 620)
        let message = try #require(collapsing.disagreement(threshold: 5, bodyMargins: (8, 8)))
        #expect(message.hasPrefix("metrics disagree: body-scroll 550 px but document-scroll 620 px, 54 px more than "
            + "the body's own margins explain"), "\(message)")
    }

    @Test func jsonUsesTheDocumentedFieldNames() throws {
        let s = session {
            $0.loadFinished(at: 0.2)
            $0.record(HeightSample(t: 0.2, height: 700, source: .load))
            $0.record(HeightSample(t: 0.7001234, height: 700, source: .poll, cause: "settle-check"))
        }
        let report = ReportBuilder(url: "u", session: s, end: .settled, endedAt: 0.7001234).build()
        let json = ReportEncoding.jsonLine(report)
        #expect(!json.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        for key in ["url", "status", "height", "total", "strategies", "samples", "timings", "metric", "options"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        let samples = try #require(object["samples"] as? [[String: Any]])
        #expect(samples[1]["t"] as? Double == 0.7)
        #expect(samples[0]["source"] as? String == "load")
        let strategies = try #require(object["strategies"] as? [String: Any])
        #expect(Set(strategies.keys) == ["once", "schedule", "observe"])
        #expect(try JSONDecoder().decode(PageReport.self, from: Data(json.utf8)).height == 700)
    }
}

@Suite struct FailedResourceTests {
    @Test func theWarningCountsNamesAFewAndSaysWhatTheyWere() {
        let css = FailedResource(url: "file:///site/site.css", reason: "file not found")
        let image = FailedResource(url: "https://example.com/a.png", reason: "HTTP 404")
        #expect(FailedResource.warning([], total: 0) == nil)
        #expect(FailedResource.warning([css], total: 1) == "1 stylesheet failed to load: site.css (file not found)")
        #expect(FailedResource.warning([css, image], total: 2)
            == "2 resources failed to load: stylesheet site.css (file not found), image https://example.com/a.png (HTTP 404)")
        #expect(FailedResource.warning([css, css, css, css], total: 60, shown: 2)?.hasSuffix("(file not found), and 58 more") == true)
    }

    @Test func whatThePageSawFailAddsOnlyWhatTheEngineNeverRequested() {
        let css = FailedResource(url: "file:///site/site.css", reason: "file not found")
        let merged = FailedResource.merging(([css], 1), pageSaw: ["file:///site/site.css", "file:///other/a.png"])
        #expect(merged.total == 2 && merged.listed.count == 2)
        // In URL order, whichever failed first.
        #expect(merged.listed.map(\.url) == ["file:///other/a.png", "file:///site/site.css"])
        #expect(merged.listed[0].reason.hasPrefix("blocked before it was requested") && merged.listed[1].reason == "file not found")
    }

    /// Issue 45.10: a failure says which setting stopped it.
    @Test func aBlockedOrRefusedResourceSaysWhichSettingStoppedIt() {
        let refused = FailedResource(url: "http://example.com/a.png", reason: "Could not connect to proxy server 127.0.0.1 (WebKitNetworkError 1)")
        let saw = ["https://example.com/b.css", "file:///cms/c.png", "http://127.0.0.1:8/d.js"]
        let block = FailedResource.merging(([], 0), pageSaw: saw, offline: .block).listed
        #expect(block.map(\.reason) == ["blocked before it was requested: outside the page's subresource boundary (its own directory and below)",
                                         "blocked before it was requested: --offline", "blocked before it was requested: --offline"])
        #expect(block.map(\.stoppedByOffline) == [false, true, true])
        let online = FailedResource.merging(([], 0), pageSaw: saw).listed
        #expect(online.map(\.reason).allSatisfy { $0.contains("subresource boundary") } && !online.contains(where: \.stoppedByOffline))
        #expect(online[1].reason.contains("(no loopback or private addresses)"))
        let data = FailedResource.merging(([], 0), pageSaw: ["data:image/svg+xml,%3Csvg"], offline: .block).listed
        #expect(data.map(\.reason) == ["failed without a request (data: is not fetched from the network)"] && !data[0].stoppedByOffline)
        let refuse = FailedResource.merging(([refused], 1), pageSaw: [], offline: .refuse).listed
        #expect(refuse.map(\.reason) == ["refused by --offline (no network)"] && refuse[0].stoppedByOffline)
        #expect(FailedResource.merging(([refused], 1), pageSaw: []).listed[0].reason == refused.reason)
    }
}

/// What a baseline records of the software it was measured with, and how a change is named.
@Suite struct MeasuredWithTests {
    func fonts(_ packages: [(String, String)], mode: FontChoice.Mode = .pinned, files: Int = 40, digest: String = "aa") -> FontSet {
        FontSet(mode: mode, packages: packages.map { FontSet.Package(name: $0.0, version: $0.1) },
                directories: ["/home/me/site/fonts"], files: files, digest: digest)
    }

    @Test func theSameSoftwareHasNoDifference() {
        let a = MeasuredWith(webKitGTK: "2.50.6", fonts: fonts([("fonts-dejavu-core", "2.37-6")]))
        var b = MeasuredWith(webKitGTK: "2.50.6", fonts: fonts([("fonts-dejavu-core", "2.37-6")]))
        #expect(b.differences(from: a).isEmpty)
        // A --font-dir checked out elsewhere holds the same files: its path is not recorded.
        b.fonts = MeasuredWith.Fonts(FontSet(mode: .pinned, packages: [FontSet.Package(name: "fonts-dejavu-core", version: "2.37-6")],
                                             directories: ["/ci/clone/site/fonts"], files: 40, digest: "aa"))
        #expect(b == a)
    }

    @Test func eachDifferenceIsNamedOldValueFirst() {
        let old = MeasuredWith(pageheight: "0.1.0", webKitGTK: "2.48.1",
                               fonts: fonts([("fonts-dejavu-core", "2.37-6"), ("fonts-liberation2", "2.1.5-1")]))
        let new = MeasuredWith(pageheight: "0.2.0", webKitGTK: "2.50.6",
                               fonts: fonts([("fonts-dejavu-core", "2.37-8"), ("fonts-noto-core", "20201225-1")]))
        #expect(new.differences(from: old) == ["pageheight 0.1.0 → 0.2.0", "WebKitGTK 2.48.1 → 2.50.6",
                                               "fonts-dejavu-core 2.37-6 → 2.37-8", "fonts-liberation2 2.1.5-1 → (none)",
                                               "fonts-noto-core (none) → 20201225-1"])
        let system = MeasuredWith(pageheight: "0.1.0", webKitGTK: "2.48.1", fonts: fonts([], mode: .system))
        #expect(system.differences(from: old) == ["fonts pinned → system"])
        let otherFiles = MeasuredWith(pageheight: "0.1.0", webKitGTK: "2.48.1",
                                      fonts: fonts([("fonts-dejavu-core", "2.37-6"), ("fonts-liberation2", "2.1.5-1")], files: 41, digest: "bbbbbbbbbbbbbbbbbbbb"))
        #expect(otherFiles.differences(from: old) == ["font files 40 → 41 (digest aa → bbbbbbbbbbbb)"])
    }
}

/// `--request-header`, `--cookie` and cookies.txt files parsed, and never encoded with their values.
@Suite struct PageRequestsParsingTests {
    @Test func headersAndCookiesParseAsCurlAndBrowsersWriteThem() throws {
        #expect(try PageRequests.header("Authorization:  Bearer abc ") == .init(name: "Authorization", value: "Bearer abc"))
        #expect(throws: UsageError.self) { try PageRequests.header("no colon") }
        #expect(throws: UsageError.self) { try PageRequests.header("Bad Name: x") }
        #expect(throws: UsageError.self) { try PageRequests.header("Host: example.com") }
        #expect(throws: UsageError.self) { try PageRequests.header("X-A: a\u{0A}b") }
        #expect(try PageRequests.cookie("session=a=b") == .init(name: "session", value: "a=b"))
        #expect(throws: UsageError.self) { try PageRequests.cookie("novalue") }
        let jar = """
            # Netscape HTTP Cookie File
            .example.com\tTRUE\t/\tTRUE\t4102444800\tsid\tabc
            #HttpOnly_news.example\tFALSE\t/paywall\tFALSE\t0\ttoken\txyz\r
            old.example\tFALSE\t/\tFALSE\t1000\texpired\tgone

            """
        let cookies = try PageRequests.cookiesFile(jar, name: "jar.txt", now: 2_000_000_000)
        #expect(cookies.map(\.name) == ["sid", "token"])
        #expect(cookies[0].domain == ".example.com" && cookies[0].includeSubdomains && cookies[0].secure && cookies[0].expires == 4102444800)
        #expect(cookies[1].httpOnly && cookies[1].path == "/paywall" && cookies[1].expires == nil && cookies[1].value == "xyz")
        #expect(throws: UsageError.self) { try PageRequests.cookiesFile("a.example\tTRUE\t/\n", name: "bad.txt") }
        #expect(throws: UsageError.self) { try PageRequests.cookiesFile("a.example\tMAYBE\t/\tFALSE\t0\tn\tv\n", name: "bad.txt") }
    }

    /// COOKIE-3P (issue 62): a page gets the cookies a browser would send to its host, and no
    /// other: a cookie for another site never enters its view.
    @Test func aPageGetsOnlyTheCookiesOfItsHost() throws {
        let requests = PageRequests(cookies: [
            .init(name: "mine", value: "v"),
            .init(name: "site", value: "v", domain: ".example.com", includeSubdomains: true),
            .init(name: "flagged", value: "v", domain: "example.com", includeSubdomains: true),
            .init(name: "hostOnly", value: "v", domain: "example.com"),
            .init(name: "other", value: "v", domain: "other.example"),
            .init(name: "suffix", value: "v", domain: "ample.com", includeSubdomains: true),
            .init(name: "address", value: "v", domain: "0.0.1", includeSubdomains: true),
        ])
        func names(_ host: String?) -> [String] { requests.cookies(forHost: host).map(\.name) }
        #expect(names("example.com") == ["mine", "site", "flagged", "hostOnly"])
        #expect(names("WWW.Example.com") == ["mine", "site", "flagged"])
        #expect(names("other.example") == ["mine", "other"])
        #expect(names("evil.test") == ["mine"])
        #expect(names("127.0.0.1") == ["mine"])
        #expect(names(nil).isEmpty)
        let tooMany = (0...PageRequests.cookiesFileLimit).map { "a\($0).example\tFALSE\t/\tFALSE\t0\tn\tv" }.joined(separator: "\n")
        #expect(throws: UsageError.self) { try PageRequests.cookiesFile(tooMany, name: "many.txt") }
        #expect(try PageRequests.cookiesFile(String(tooMany.prefix { $0 != "\n" }), name: "one.txt").count == 1)
    }

    @Test func aReportNamesThemWithoutTheirValues() throws {
        var options = MeasureOptions()
        options.requests = PageRequests(headers: [.init(name: "X-Token", value: "s3cret")],
                                        cookies: [.init(name: "session", value: "s3cret", domain: "example.com")])
        let json = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(json.contains("X-Token") && json.contains("session") && !json.contains("s3cret"), "\(json)")
        let decoded = try JSONDecoder().decode(MeasureOptions.self, from: Data(json.utf8))
        #expect(decoded.requests?.headers.map(\.name) == ["X-Token"] && decoded.requests?.cookies.first?.value == "")
        let plain = try JSONEncoder().encode(MeasureOptions())
        #expect(!String(decoding: plain, as: UTF8.self).contains("requests"))
        #expect(try JSONDecoder().decode(MeasureOptions.self, from: plain).requests == nil)
    }
}
