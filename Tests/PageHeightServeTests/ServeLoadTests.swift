import Foundation
import PageHeightTestSupport
import Synchronization
import Testing

/// The server under load and through its life, driven by Python's urllib and http.client:
/// many clients at once, a batch streamed and one cut off, a page that crashes its web process,
/// SIGTERM while busy, the metrics read by prometheus_client's parser.
@Suite(.serialized)
struct ServeLoadTests {
    static let pages = PageHeightBinary.root.appendingPathComponent("Pages")
    /// Fixture pages and their heights (their own cases).
    static let known: [String: Double] = ["static.html": 1234, "absolute.html": 500, "grow-0.7.html": 1300, "margins.html": 550]

    /// prometheus_client's parser reads the text; the sample `name` with `labels`, or nil.
    static func sample(_ metrics: [String: Any], _ family: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        let families = metrics["families"] as? [String: Any]
        let samples = (families?[family] as? [String: Any])?["samples"] as? [[String: Any]] ?? []
        return samples.first { $0["name"] as? String == name && ($0["labels"] as? [String: String] ?? [:]) == labels }?["value"] as? Double
    }

    /// 16 clients at once at `--jobs 2`, each sending four pages: every request answered 200 with
    /// the page's height; the metrics count them all and show the queue empty at the end.
    @Test func sixteenClientsAtTwoJobsAllGetTheirHeights() throws {
        let server = try ServeProcess(["--jobs", "2", "--queue", "64"])
        let files = Self.known.keys.sorted().map { Self.pages.appendingPathComponent($0).path }
        let result = try server.python("concurrent", ["16"] + files)
        let answers = try #require(result["results"] as? [[String: Any]])
        #expect(answers.count == 64)
        for answer in answers {
            let name = ((answer["page"] as? String ?? "") as NSString).lastPathComponent
            #expect(answer["status"] as? Int == 200 && answer["reportStatus"] as? String == "ok", "\(answer)")
            #expect(answer["height"] as? Double == Self.known[name], "\(name): \(answer)")
        }
        let metrics = try server.python("metrics", [])
        #expect(metrics["contentType"] as? String == "text/plain; version=0.0.4; charset=utf-8")
        #expect(Self.sample(metrics, "pageheight_http_requests", "pageheight_http_requests_total",
                            ["endpoint": "v1/measure", "status": "200"]) == 64)
        #expect(Self.sample(metrics, "pageheight_measurements", "pageheight_measurements_total", ["status": "ok"]) == 64, "the warm-up is not counted")
        #expect(Self.sample(metrics, "pageheight_measuring_seconds", "pageheight_measuring_seconds_count") == 64)
        #expect(Self.sample(metrics, "pageheight_queue_depth", "pageheight_queue_depth") == 0)
        #expect(Self.sample(metrics, "pageheight_busy_views", "pageheight_busy_views") == 0)
        #expect(Self.sample(metrics, "pageheight_jobs", "pageheight_jobs") == 2)
        #expect((Self.sample(metrics, "pageheight_process_tree_private_bytes", "pageheight_process_tree_private_bytes") ?? 0) > 10_000_000)
        #expect(Self.sample(metrics, "pageheight_web_process_renewals", "pageheight_web_process_renewals_total") != nil)
        #expect(server.requestLines.filter { $0["endpoint"] as? String == "v1/measure" }.count == 64)
        #expect(server.stop()?.status == 0)
    }

    /// A batch streams one line a page with its index, a bad line answered in place; a client that
    /// closes its connection after the first line cancels the rest (far fewer pages measured than
    /// sent), as one that leaves a single request does its page; the server goes on serving.
    @Test func aBatchStreamsItsLinesAndAClientThatLeavesCancelsTheRest() throws {
        let server = try ServeProcess(["--jobs", "2"])
        let lines = [try ServeProcess.htmlBody("static.html"), #"{"url": "ftp://example.com/"}"#,
                     try ServeProcess.htmlBody("absolute.html", options: #"{"fontSizes": [16, 20]}"#)]
        let body = try server.file("batch.jsonl", lines.joined(separator: "\n") + "\n")
        let answer = try server.curl(["/v1/batch", "-H", "Content-Type: application/x-ndjson", "--data-binary", "@" + body])
        #expect(answer.status == 200 && answer.headers["transfer-encoding"] == "chunked"
                && answer.headers["content-type"] == "application/x-ndjson")
        let out = answer.body.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(out.count == 4, "\(answer.body.prefix(400))")
        #expect(out.compactMap { $0["index"] as? Int }.sorted() == [0, 1, 2, 2])
        let bad = try #require(out.first { $0["index"] as? Int == 1 })
        #expect(bad["field"] as? String == "url" && bad["status"] as? Int == 400)
        #expect(out.filter { $0["index"] as? Int == 2 }.allSatisfy { $0["height"] as? Double == 500 })

        let slow = Self.pages.appendingPathComponent("grow-0.7.html").path
        let cut = try server.python("batch-disconnect", [slow, "40"])
        #expect(cut["status"] as? Int == 200 && (cut["first"] as? [String: Any])?["height"] as? Double == 1300)
        Thread.sleep(forTimeInterval: 3)
        let metrics = try server.python("metrics", [])
        let measured = Self.sample(metrics, "pageheight_measuring_seconds", "pageheight_measuring_seconds_count") ?? 0
        #expect(measured < 3 + 20, "the 40 lines were not all measured: \(measured)")
        #expect(Self.sample(metrics, "pageheight_busy_views", "pageheight_busy_views") == 0)
        // A single request whose client leaves before its answer: its page is stopped (its view
        // freed long before the page's 10 s timer), the request counted as 499.
        let started = Date()
        _ = try server.python("measure-disconnect", [Self.pages.appendingPathComponent("timer-10s.html").path])
        var gone: [String: Any]?
        while gone == nil, Date().timeIntervalSince(started) < 8 {
            gone = server.requestLines.last { $0["endpoint"] as? String == "v1/measure" && $0["status"] as? Int == 499 }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(gone != nil && Date().timeIntervalSince(started) < 8, "\(server.logText.suffix(400))")
        let line = try #require(server.requestLines.last { $0["endpoint"] as? String == "v1/batch" })
        #expect((line["error"] as? String)?.contains("the client went away") == true, "\(line)")
        let after = try server.curl(["/v1/measure", "-d", try ServeProcess.htmlBody("static.html")])
        #expect(after.status == 200 && after.json?["height"] as? Double == 1234)
        #expect(server.stop()?.status == 0)
    }

    /// A page whose web process is killed (it allocates without end, past the tree's budget) gets
    /// its own `crashed` report; the pages measured beside it keep their heights.
    @Test func aCrashingPageFailsOnlyItsOwnRequest() throws {
        let server = try ServeProcess(["--jobs", "3", "--timeout", "20"], environment: ["PAGEHEIGHT_MEMORY_BUDGET_MB": "900"])
        let hog = try ServeProcess.htmlBody("hostile/memory-hog-sync.html")
        let results = Mutex<[(String, ServeProcess.Answer)]>([])
        let threads = [("hog", hog), ("static.html", try ServeProcess.htmlBody("static.html")),
                       ("grow-0.7.html", try ServeProcess.htmlBody("grow-0.7.html", options: #"{"clock": "real"}"#))].map { name, body in
            Thread {
                if let answer = try? server.curl(["/v1/measure", "-d", body]) { results.withLock { $0.append((name, answer)) } }
            }
        }
        threads.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(60)
        while results.withLock({ $0.count }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let answers = Dictionary(results.withLock { $0 }, uniquingKeysWith: { first, _ in first })
        #expect(answers.count == 3)
        #expect(answers["hog"]?.status == 200 && answers["hog"]?.json?["status"] as? String == "crashed", "\(answers["hog"]?.body.prefix(300) ?? "")")
        #expect(answers["static.html"]?.json?["height"] as? Double == 1234)
        #expect(answers["grow-0.7.html"]?.json?["height"] as? Double == 1300)
        let again = try server.curl(["/v1/measure", "-d", try ServeProcess.htmlBody("static.html")])
        #expect(again.status == 200 && again.json?["height"] as? Double == 1234)
        #expect(server.stop()?.status == 0)
    }

    /// SIGTERM while pages are measured and others wait: the listening socket closes at once,
    /// every request in flight is answered with its report, and the server exits 0.
    @Test func sigtermWhileBusyAnswersEveryRequestInFlightAndExitsZero() throws {
        let server = try ServeProcess(["--jobs", "2", "--drain", "30"])
        let body = try ServeProcess.htmlBody("grow-2.5.html", options: #"{"clock": "real", "until": "quiet"}"#)
        let results = Mutex<[ServeProcess.Answer]>([])
        let threads = (0..<5).map { _ in
            Thread { if let answer = try? server.curl(["/v1/measure", "-d", body]) { results.withLock { $0.append(answer) } } }
        }
        threads.forEach { $0.start() }
        Thread.sleep(forTimeInterval: 1)
        kill(server.process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        let refused = try server.curl(["/healthz"], within: 5)
        #expect(refused.status == 0, "a new connection is refused once draining: \(refused)")
        let exit = PageHeightBinary.exit(of: server.process, by: Date().addingTimeInterval(60))
        #expect(exit?.status == 0 && exit?.signal == nil)
        let answers = results.withLock { $0 }
        #expect(answers.count == 5)
        #expect(answers.allSatisfy { $0.status == 200 && $0.json?["height"] as? Double == 1300 }, "\(answers.map { "\($0.status) \($0.body.prefix(120))" })")
        let events = server.events.compactMap { $0["event"] as? String }
        #expect(events.suffix(2) == ["draining", "stopped"], "\(events)")
        #expect(server.events.last?["unanswered"] as? Int == 0)
    }

    /// Past `--drain`, what is still measuring is stopped and answered: a request with 503, a
    /// batch with an error line for each page left; the server exits 0 all the same.
    @Test func pastTheDrainDeadlineWhatIsLeftIsAnsweredWithAnError() throws {
        let server = try ServeProcess(["--jobs", "2", "--drain", "1"])
        let slow = try ServeProcess.htmlBody("timer-10s.html", options: #"{"clock": "real"}"#)
        let batch = try server.file("batch.jsonl", [slow, slow, slow].joined(separator: "\n") + "\n")
        let single = Mutex<ServeProcess.Answer?>(nil), streamed = Mutex<ServeProcess.Answer?>(nil)
        let threads = [Thread { single.withLock { $0 = try? server.curl(["/v1/measure", "-d", slow]) } },
                       Thread { streamed.withLock { $0 = try? server.curl(["/v1/batch", "--data-binary", "@" + batch]) } }]
        threads.forEach { $0.start() }
        Thread.sleep(forTimeInterval: 1.5)
        let exit = server.stop(SIGTERM, within: 30)
        #expect(exit?.status == 0 && exit?.signal == nil)
        let deadline = Date().addingTimeInterval(10)
        while (single.withLock { $0 } == nil || streamed.withLock { $0 } == nil), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let answer = try #require(single.withLock { $0 })
        #expect(answer.status == 503 && (answer.json?["error"] as? String)?.contains("drain deadline") == true, "\(answer.body)")
        let lines = try #require(streamed.withLock { $0 }).body.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.compactMap { $0["index"] as? Int }.sorted() == [0, 1, 2], "every line answered: \(lines)")
        #expect(lines.allSatisfy { $0["status"] as? Int == 503 }, "\(lines)")
        #expect(server.events.last?["answeredLate"] as? Int == 2 && server.events.last?["unanswered"] as? Int == 0, "\(server.logText.suffix(500))")
    }
}
