import Foundation
@testable import PageHeightServe
import PageHeightWebKit
import PageHeightCore
import Testing

/// The server's decisions without a server: how a body is read, which request goes on to its
/// body, the token's comparison, the metrics' text. No display, no engine.
struct ServeRequestTests {
    let settings = ServeSettings(jobs: 2, defaults: MeasureOptions())

    func refusal(_ json: String, settings: ServeSettings? = nil) -> APIError? {
        do throws(APIError) {
            _ = try MeasureRequest.parse(Data(json.utf8), settings: settings ?? self.settings)
            return nil
        } catch {
            return error
        }
    }

    @Test func aBodyIsReadWithTheSuiteFilesKeysOverTheServersDefaults() throws {
        var defaults = MeasureOptions()
        defaults.timeout = 10
        defaults.width = 768
        let settings = ServeSettings(jobs: 1, defaults: defaults)
        let request = try MeasureRequest.parse(Data(#"""
            {"html": "<p>x</p>", "baseURL": "https://example.com/a/", "options": {"fontSizes": [16, 20], "zooms": [1, 1.5],
             "timeout": 60, "offline": "refuse", "until": "quiet", "requestHeaders": ["X-Key: secret"]}, "steps": ["width=844"]}
            """#.utf8), settings: settings)
        #expect(request.page == .html("<p>x</p>", baseURL: "https://example.com/a/"))
        #expect(request.isList && request.combinations.count == 4)
        #expect(request.combinations.map(\.fontSize) == [16, 16, 20, 20] && request.combinations.map(\.zoom) == [1, 1.5, 1, 1.5])
        for options in request.combinations {
            #expect(options.width == 768, "the server's default")
            #expect(options.timeout == 10, "capped by the server's")
            #expect(options.offline && options.offlineMode == .refuse && options.until == .quiet)
            #expect(options.steps?.count == 1 && options.requests?.headers.count == 1)
        }
        let single = try MeasureRequest.parse(Data(#"{"url": "https://example.com/post?id=1"}"#.utf8), settings: settings)
        #expect(!single.isList && single.combinations.count == 1 && single.host == "example.com")
        let template = try MeasureRequest.parse(Data(#"{"html": "<div>article</div>", "template": "default"}"#.utf8), settings: settings)
        guard case .html(let html, let base, _, _) = template.page else { Issue.record("not HTML"); return }
        #expect(html.contains("<div>article</div>") && html.contains("<!") && base == "about:blank")
    }

    @Test func aBadBodyIsRefusedNamingItsKey() {
        let cases: [(String, String?, String)] = [
            ("[1]", nil, "expected a JSON object"),
            ("{", nil, "not JSON"),
            (#"{}"#, "url", "missing 'url' or 'html'"),
            (#"{"url": "https://a.example", "html": "x"}"#, "html", "not both"),
            (#"{"url": "https://a.example", "baseURL": "https://b.example"}"#, "baseURL", "goes with 'html'"),
            (#"{"url": "javascript:alert(1)"}"#, "url", "unsupported URL scheme 'javascript:'"),
            (#"{"url": "http://"}"#, "url", "malformed URL"),
            (#"{"url": "page.html"}"#, "url", "measures no local files"),
            (#"{"html": 3}"#, "html", "'html' must be a string"),
            (#"{"html": "x", "baseURL": "file:///etc/"}"#, "baseURL", "reads no local file"),
            (#"{"html": "x", "template": "/etc/passwd"}"#, "template", "takes \"default\""),
            (#"{"html": "x", "options": []}"#, "options", "must be a JSON object"),
            (#"{"html": "x", "options": {"width": 390}}"#, "options.width", "unknown key 'width' in options"),
            (#"{"html": "x", "options": {"allowHosts": ["10.0.0.1"]}}"#, "options.allowHosts", "unknown key"),
            (#"{"html": "x", "options": {"quiet": 601}}"#, "options.quiet", "'quiet' must be a number between 0 and 600"),
            (#"{"html": "x", "options": {"widths": [390.5]}}"#, "options.widths", "whole numbers"),
            (#"{"html": "x", "options": {"zooms": []}}"#, "options.zooms", "non-empty list"),
            (#"{"html": "x", "options": {"widths": [1,2,3,4,5,6,7,8,9], "fontSizes": [1,2,3,4,5,6,7,8]}}"#, "options.widths", "72 combinations"),
            (#"{"html": "x", "options": {"cookiesFile": "c.txt"}}"#, "options.cookiesFile", "not taken by the server"),
            (#"{"html": "x", "steps": ["width=844"], "options": {"steps": ["width=390"]}}"#, "steps", "given twice"),
            (#"{"html": "x", "nonsense": true}"#, "nonsense", "unknown key 'nonsense'"),
        ]
        for (body, field, text) in cases {
            let error = refusal(body)
            #expect(error?.status == 400 && error?.field == field, "\(body): \(String(describing: error))")
            #expect(error?.message.contains(text) == true, "\(body): \(error?.message ?? "accepted")")
        }
    }

    @Test func filesComeOnlyFromThePagesFolderAsTheFileSystemResolvesThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-pages-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "<p>in</p>".write(to: folder.appendingPathComponent("sub/a.html"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("out.html"), withDestinationURL: URL(fileURLWithPath: "/etc/hostname"))
        var settings = self.settings
        settings.pagesDirectory = folder.resolvingSymlinksInPath().path
        let inside = try MeasureRequest.parse(Data(#"{"url": "sub/a.html"}"#.utf8), settings: settings)
        #expect(inside.page == .file(folder.resolvingSymlinksInPath().appendingPathComponent("sub/a.html").path))
        for escape in ["out.html", "../\(folder.lastPathComponent)-other/a.html", "sub/../../x.html", "/etc/hostname", "file:///etc/hostname"] {
            #expect(refusal(#"{"url": "\#(escape)"}"#, settings: settings)?.message.contains("not under the pages folder") == true, "\(escape)")
        }
        #expect(refusal(#"{"url": "sub/missing.html"}"#, settings: settings)?.message.contains("no such file") == true)
    }

    @Test func requestsAreRefusedBeforeTheirBodyInTheServersOrder() {
        var settings = self.settings
        settings.token = BearerToken("0123456789abcdef")
        let facts = RequestAdmission.Facts(method: "POST", path: "/v1/measure", targetBytes: 11, headerBytes: 100, declaredBodyBytes: 100,
                                           authorization: "Bearer 0123456789abcdef")
        let open = RequestAdmission(settings: settings, draining: false, queueHasRoom: true, retryAfter: 3)
        func status(_ admission: RequestAdmission, _ change: (inout RequestAdmission.Facts) -> Void) -> Int {
            var changed = facts
            change(&changed)
            switch admission.check(changed) {
            case .success: return 200
            case .failure(let error): return error.status
            }
        }
        #expect(status(open) { _ in } == 200)
        #expect(status(RequestAdmission(settings: settings, draining: true, queueHasRoom: true, retryAfter: 3)) { _ in } == 503)
        #expect(status(open) { $0.targetBytes = 5000 } == 414)
        #expect(status(open) { $0.headerBytes = 20_000 } == 431)
        #expect(status(open) { $0.path = "/v1/measures" } == 404)
        #expect(status(open) { $0.path = "/v1/measure/" } == 200)
        #expect(status(open) { $0.method = "GET" } == 405)
        #expect(status(open) { $0.authorization = nil } == 401)
        #expect(status(open) { $0.authorization = "bearer 0123456789abcdef" } == 200, "the scheme in any case")
        #expect(status(open) { ($0.path, $0.method, $0.authorization) = ("/healthz", "GET", nil) } == 200, "probes need no token")
        #expect(status(open) { ($0.path, $0.method, $0.authorization) = ("/metrics", "HEAD", nil) } == 401)
        #expect(status(open) { $0.declaredBodyBytes = 9 << 20 } == 413)
        let full = RequestAdmission(settings: settings, draining: false, queueHasRoom: false, retryAfter: 3)
        #expect(status(full) { _ in } == 429)
        #expect(status(full) { ($0.path, $0.method) = ("/readyz", "GET") } == 200, "the probes answer a full queue")
        if case .failure(let error) = full.check(facts) { #expect(error.headers.contains { $0 == ("Retry-After", "3") }) }
    }

    @Test func theTokenIsComparedWholeInAnyLength() {
        let token = BearerToken("correct-horse-battery")
        #expect(token.accepts("Bearer correct-horse-battery"))
        #expect(token.accepts("BEARER correct-horse-battery"))
        for wrong in [nil, "", "Bearer", "Bearer ", "Bearer correct-horse-batter", "Bearer correct-horse-battery!",
                      "Basic correct-horse-battery", "Bearer  correct-horse-battery", "correct-horse-battery"] {
            #expect(!token.accepts(wrong), "\(wrong ?? "nil")")
        }
    }

    @Test func theMetricsTextHasEveryFamilyWithItsType() {
        let metrics = ServeMetrics()
        metrics.answered("v1/measure", status: 200)
        metrics.answered("v1/measure", status: 429)
        metrics.measured(.ok, seconds: 0.04)
        metrics.measured(.timeout, seconds: 15)
        let text = metrics.text(ServeMetrics.Gauges(jobs: 2, busy: 1, waiting: 3, waitingLimit: 16, inFlight: 4, ready: true,
                                                    engine: .init(webProcessRenewals: 5, processTreeBytes: 123, webProcesses: 2)))
        for line in ["# TYPE pageheight_http_requests_total counter", #"pageheight_http_requests_total{endpoint="v1/measure",status="429"} 1"#,
                     #"pageheight_measurements_total{status="timeout"} 1"#, "# TYPE pageheight_measuring_seconds histogram",
                     #"pageheight_measuring_seconds_bucket{le="0.05"} 1"#, #"pageheight_measuring_seconds_bucket{le="10"} 1"#,
                     #"pageheight_measuring_seconds_bucket{le="15"} 2"#, #"pageheight_measuring_seconds_bucket{le="+Inf"} 2"#,
                     "pageheight_measuring_seconds_count 2", "pageheight_queue_depth 3", "pageheight_busy_views 1",
                     "pageheight_web_process_renewals_total 5", "pageheight_process_tree_private_bytes 123"] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "\(line)")
        }
        #expect(metrics.meanSeconds == 7.52)
    }

    @Test func aPageOnTheServersOwnNetworkIsRefusedUnlessItsHostIsAllowed() {
        for url in ["http://127.0.0.1:8080/", "http://localhost/", "http://10.1.2.3/a", "http://169.254.169.254/latest/meta-data/",
                    "http://[::1]:9000/", "https://192.168.0.1/", "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/"] {
            var refusal: APIError?
            do throws(APIError) { try PageDestination.check(url, allowedHosts: []) } catch { refusal = error }
            #expect(refusal?.status == 400 && refusal?.field == "url" && refusal?.message.contains("public network only") == true, "\(url)")
        }
        #expect(throws: Never.self) { try PageDestination.check("http://127.0.0.1:8080/", allowedHosts: ["127.0.0.1:8080"]) }
        #expect(throws: Never.self) { try PageDestination.check("http://10.1.2.3/a", allowedHosts: ["10.1.2.3"]) }
        #expect(throws: Never.self) { try PageDestination.check("https://93.184.215.14/", allowedHosts: []) }
        #expect(throws: Never.self) { try PageDestination.check("data:text/html,<p>x", allowedHosts: []) }
    }
}
