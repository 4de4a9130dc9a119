import Foundation
import PageHeightTestSupport
import Testing

/// The server's endpoints and every status it answers, driven by curl on loopback.
@Suite(.serialized)
struct ServeEndpointTests {
    static let pages = PageHeightBinary.root.appendingPathComponent("Pages")

    /// `POST /v1/measure` answers what `pageheight --json` prints for the same page: a file
    /// under `--pages-dir` by path and by file: URL, and the same HTML sent inline; a list of
    /// widths answers a list; the probes and the metrics answer; the log has a line a request
    /// and never a header's value.
    @Test func measureAnswersTheCLIsReportAndTheProbesAnswer() throws {
        let server = try ServeProcess(["--jobs", "2", "--pages-dir", Self.pages.path])
        let cli = try PageHeightBinary.run(["--json", Self.pages.appendingPathComponent("grow-2.5.html").path])
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
        #expect(expected["height"] as? Double == 1300)
        for body in [#"{"url": "grow-2.5.html"}"#, #"{"url": "file://\#(Self.pages.path)/grow-2.5.html"}"#] {
            let answer = try server.curl(["/v1/measure", "-H", "Cookie: secret-cookie-value", "-d", body])
            #expect(answer.status == 200 && answer.headers["content-type"] == "application/json", "\(answer.body.prefix(300))")
            let report = try #require(answer.json)
            for key in ["status", "height", "url", "metric"] {
                #expect("\(report[key] ?? "nil")" == "\(expected[key] ?? "nil")", "\(key)")
            }
            #expect(answer.headers["x-request-id"]?.hasPrefix("r") == true)
        }
        let inline = try server.curl(["/v1/measure", "-d", try ServeProcess.htmlBody("grow-2.5.html")])
        #expect(inline.json?["height"] as? Double == 1300 && inline.json?["status"] as? String == "ok")
        #expect(inline.json?["url"] as? String == "about:blank")

        let list = try server.curl(["/v1/measure", "-d", try ServeProcess.htmlBody("static.html", options: #"{"widths": [320, 1024]}"#)])
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(list.body.utf8)) as? [[String: Any]])
        #expect(reports.map { ($0["options"] as? [String: Any])?["width"] as? Int } == [320, 1024])
        #expect(reports.allSatisfy { $0["height"] as? Double == 1234 })

        let health = try server.curl(["/healthz"])
        #expect(health.status == 200 && health.json?["status"] as? String == "ok")
        let ready = try server.curl(["/readyz"])
        #expect(ready.status == 200 && ready.json?["status"] as? String == "ready")
        let metrics = try server.curl(["/metrics"])
        #expect(metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.body.contains(#"pageheight_http_requests_total{endpoint="v1/measure",status="200"} 4"#), "\(metrics.body)")

        let lines = server.requestLines
        #expect(lines.count == 7, "\(server.logText)")
        #expect(!server.logText.contains("secret-cookie-value") && !server.logText.contains("grow-2.5"))
        let first = try #require(lines.first)
        #expect(first["endpoint"] as? String == "v1/measure" && first["status"] as? Int == 200 && first["height"] as? Double == 1300)
        #expect(first["ms"] is Double && first["id"] as? String == "r1")
        #expect(server.stop()?.status == 0)
    }

    /// Each refusal: its status, a JSON `{"error", "field"}` that names the key, and the header
    /// fields it comes with (Retry-After, Allow, WWW-Authenticate).
    @Test func everyRefusalHasItsStatusAndNamesTheKey() throws {
        let token = String(repeating: "t0k3n", count: 5)
        let server = try ServeProcess(["--jobs", "1", "--queue", "0", "--max-body", "2048"])
        _ = server
        let tokenFile = try server.file("token", token + "\n")
        let guarded = try ServeProcess(["--jobs", "1", "--token-file", tokenFile])

        func expectRefusal(_ answer: ServeProcess.Answer, _ status: Int, field: String? = nil, containing text: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(answer.status == status, "\(answer.status) \(answer.body)", sourceLocation: sourceLocation)
            #expect(answer.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
            #expect((answer.json?["error"] as? String)?.contains(text) == true, "\(answer.body)", sourceLocation: sourceLocation)
            #expect(answer.json?["field"] as? String == field, "\(answer.body)", sourceLocation: sourceLocation)
        }
        expectRefusal(try server.curl(["/v1/measure", "-d", "{not json"]), 400, containing: "not JSON")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "colour": 1}"#]), 400, field: "colour",
                      containing: "unknown key 'colour'")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "options": {"widht": 390}}"#]), 400,
                      field: "options.widht", containing: "unknown key 'widht' in options")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "options": {"timeout": "fast"}}"#]), 400,
                      field: "options.timeout", containing: "'timeout' must be a number")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "options": {"widths": [0]}}"#]), 400,
                      field: "options.widths", containing: "'widths' takes")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "steps": ["jump"]}"#]), 400, field: "steps",
                      containing: "jump")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "options": {"cookiesFile": "/etc/passwd"}}"#]), 400,
                      field: "options.cookiesFile", containing: "not taken by the server")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"url": "/etc/passwd"}"#]), 400, field: "url",
                      containing: "measures no local files")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"url": "file:///etc/passwd"}"#]), 400, field: "url",
                      containing: "measures no local files")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "baseURL": "file:///etc/"}"#]), 400, field: "baseURL",
                      containing: "reads no local file")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x", "options": {"device": "iphone"}}"#]), 400,
                      field: "options.device", containing: "renders at scale")
        expectRefusal(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x"}"#, "-X", "PUT"]), 405, containing: "takes POST")
        expectRefusal(try server.curl(["/v2/measure", "-d", "{}"]), 404, containing: "no such endpoint")
        let big = try server.file("big.json", #"{"html": ""# + String(repeating: "x", count: 4096) + #""}"#)
        expectRefusal(try server.curl(["/v1/measure", "--data-binary", "@" + big]), 413, containing: "at most 2048")
        expectRefusal(try server.curl(["/v1/measure", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + big]), 413,
                      containing: "at most 2048")
        expectRefusal(try server.curl(["/v1/measure?" + String(repeating: "q", count: 5000), "-d", "{}"]), 414, containing: "at most 4096")
        expectRefusal(try server.curl(["/healthz", "-H", "X-Padding: " + String(repeating: "p", count: 17_000)]), 431,
                      containing: "at most 16384")
        let allow = try server.curl(["/metrics", "-X", "POST"])
        #expect(allow.status == 405 && allow.headers["allow"] == "GET, HEAD")

        // The queue: one job, none waiting. A page that takes a second holds the job.
        let slow = try ServeProcess.htmlBody("grow-0.7.html", options: #"{"clock": "real", "until": "quiet"}"#)
        let holder = Thread { _ = try? server.curl(["/v1/measure", "-d", slow]) }
        holder.start()
        Thread.sleep(forTimeInterval: 0.3)
        let full = try server.curl(["/v1/measure", "-d", #"{"html": "<p>x"}"#])
        expectRefusal(full, 429, containing: "the queue is full")
        #expect(Int(full.headers["retry-after"] ?? "") ?? 0 >= 1)
        let notReady = try server.curl(["/readyz"])
        #expect(notReady.status == 503 && notReady.headers["retry-after"] != nil)

        // The token: every endpoint but the probes.
        expectRefusal(try guarded.curl(["/v1/measure", "-d", #"{"html": "<p>x"}"#]), 401, containing: "bearer token")
        let wrong = try guarded.curl(["/metrics", "-H", "Authorization: Bearer " + token.dropLast() + "X"])
        #expect(wrong.status == 401 && wrong.headers["www-authenticate"] == "Bearer")
        #expect(try guarded.curl(["/healthz"]).status == 200 && guarded.curl(["/readyz"]).status == 200)
        let right = try guarded.curl(["/v1/measure", "-H", "Authorization: Bearer " + token, "-d", #"{"html": "<p>x"}"#])
        #expect(right.status == 200 && right.json?["status"] as? String == "ok")
        #expect(!guarded.logText.contains(token))
        #expect(guarded.stop()?.status == 0)
        #expect(server.stop()?.status == 0)
    }

    /// The command line refuses what is unsafe before anything starts: beyond loopback without a
    /// token, a token too short, a pages folder that is not one.
    @Test func unsafeCommandLinesAreUsageErrors() throws {
        let open = try PageHeightBinary.run(["serve", "--listen", "0.0.0.0:8080"])
        #expect(open.status == 64 && open.stderr.hasPrefix("Error: '--listen 0.0.0.0:8080' lets other machines connect: give '--token-file FILE'"),
                "\(open.stderr)")
        #expect(open.stderr.contains("USAGE: pageheight serve"))
        let short = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-short-token-\(getpid())")
        try "abc".write(to: short, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: short) }
        let weak = try PageHeightBinary.run(["serve", "--token-file", short.path])
        #expect(weak.status == 64 && weak.stderr.contains("at least 16 are needed"), "\(weak.stderr)")
        let folder = try PageHeightBinary.run(["serve", "--pages-dir", "/no/such/folder"])
        #expect(folder.status == 64 && folder.stderr.contains("'--pages-dir': no such directory"))
        let help = try PageHeightBinary.run(["serve", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: pageheight serve") && help.stdout.contains("--token-file"))
    }

    /// The file jail holds WebKit's processes only. A server measures in its own process, and
    /// none of its threads but the jail's two (the one that mounts the pages' folders, and the
    /// one that starts WebKit's processes) sees the jail, however many requests it answers
    /// (before, the engine's thread lived in it, and so did the concurrency runtime's threads it
    /// started, which then ran the server's own code); WebKit's processes start in the jail, with
    /// the sandbox's capabilities only.
    @Test(.enabled(if: geteuid() == 0, "a mount namespace needs CAP_SYS_ADMIN"))
    func onlyWebKitsProcessesAreInTheJail() throws {
        let server = try ServeProcess(["--jobs", "2"])
        for _ in 0..<8 {
            let answer = try server.curl(["-X", "POST", "/v1/measure", "-d", #"{"html": "<p>one line</p>"}"#])
            #expect(answer.status == 200, "\(answer.body.prefix(300))")
        }
        let pid = server.process.processIdentifier
        let namespace = { (path: String) in (try? FileManager.default.destinationOfSymbolicLink(atPath: path + "/ns/mnt")) ?? "" }
        let host = namespace("/proc/\(pid)")
        let threads = (try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")).map { namespace("/proc/\(pid)/task/\($0)") }
        #expect(threads.filter { $0 != host }.count == 2, "\(threads.count) threads: \(Dictionary(grouping: threads, by: { $0 }).mapValues(\.count))")
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        let children = tasks.map { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/children", encoding: .utf8)) ?? "" }.joined(separator: " ")
        let network = try #require(children.split(separator: " ").map(String.init).first {
            (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("WebKitNetworkPr") == true
        }, "no network process among \(children)")
        let status = try String(contentsOfFile: "/proc/\(network)/status", encoding: .utf8)
        #expect(namespace("/proc/\(network)") != host && threads.contains(namespace("/proc/\(network)")))
        #expect(status.contains("CapBnd:\t0000000000a01002"), "\(status.split(separator: "\n").filter { $0.hasPrefix("Cap") })")
        #expect(server.stop() != nil)
    }
}
