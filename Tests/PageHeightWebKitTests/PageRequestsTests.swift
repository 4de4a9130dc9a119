import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

/// An article behind a login (issue 44, item 3): the page's own request carries the cookie and
/// the header it needs, on both clocks and in a batch; no value ever reaches the report or the
/// log, only the names. The loopback server's /needs-cookie and /needs-header answer 1200 and
/// 1300 px with them, a 300 px teaser without.
@Suite(.serialized)
struct PageRequestsTests {
    func heights(_ output: String) -> [Double] {
        output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["height"] as? Double
        }
    }

    @Test func anArticleBehindALoginGetsItsCookieAndItsHeader() throws {
        let server = try #require(HostilePageTests.server)
        let cookiePage = server.url(for: "needs-cookie").absoluteString
        let headerPage = server.url(for: "needs-header").absoluteString
        let plain = try PageHeightBinary.run(["--json", cookiePage, headerPage])
        #expect(heights(plain.stdout) == [300, 300], "\(plain.stderr.suffix(300))")
        for clock in ["virtual", "real"] {
            let run = try PageHeightBinary.run(["--json", "-v", "--clock", clock, "--cookie", "session=s3cret",
                                                "--request-header", "X-Reader-Token: s3cret", cookiePage, headerPage])
            #expect(heights(run.stdout) == [1200, 1300], "\(clock): \(run.stderr.suffix(400))")
            #expect(!run.stdout.contains("s3cret") && !run.stderr.contains("s3cret"), "\(clock): a value was written")
            #expect(run.stdout.contains("\"X-Reader-Token\"") && run.stdout.contains("\"session\""), "the names are recorded")
        }
        // A cookies.txt file (curl's format), and a batch: every page gets them.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-cookies")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let jar = directory.appendingPathComponent("cookies.txt").path
        try "# Netscape HTTP Cookie File\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts3cret\n"
            .write(toFile: jar, atomically: true, encoding: .utf8)
        let list = directory.appendingPathComponent("list.txt").path, out = directory.appendingPathComponent("out.jsonl").path
        try [cookiePage, headerPage, cookiePage].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try PageHeightBinary.run(["batch", "--no-progress", "--cookies", jar, "--out", out, list])
        let lines = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let byIndex = Dictionary(uniqueKeysWithValues: lines.split(separator: "\n").compactMap { line -> (Int, Double)? in
            guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let index = report["index"] as? Int, let height = report["height"] as? Double else { return nil }
            return (index, height)
        })
        #expect(byIndex == [0: 1200, 1: 300, 2: 1200], "\(batch.stderr.suffix(300))")
        #expect(!lines.contains("s3cret"))
    }

    /// In one process, a page measured without the cookie after one measured with it gets none:
    /// views forget what the last page had.
    @Test func noPageKeepsTheCookieForTheNext() async throws {
        let server = try #require(HostilePageTests.server)
        let page = PageSource.url(server.url(for: "needs-cookie").absoluteString)
        let engine = try PageHeightEngine.shared()
        let with = try CommandLineArguments.parse(["--cookie", "session=s3cret", "x"]).options
        let without = try CommandLineArguments.parse(["x"]).options
        for _ in 1...2 {
            #expect(await engine.measure(page, options: with).height == 1200)
            #expect(await engine.measure(page, options: without).height == 300)
        }
    }

    /// COOKIE-3P (issue 62): cookie-3p.html sends credentialed requests (image, style sheet,
    /// script, iframe, fetch and XHR with credentials, beacon) to localhost. With a cookies file
    /// holding the user's cookie for localhost, the page served from 127.0.0.1, another site,
    /// sends none of them with the cookie, and neither does it after a redirect from localhost
    /// to it; served from localhost, the same requests carry it (they are first-party).
    @Test func aCookieGoesOnlyWithItsOwnSitesRequests() throws {
        let server = try #require(HostilePageTests.server)
        let directory = try HostilePageTests.temporaryDirectory("cookie-3p")
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = directory.appendingPathComponent("cookies.txt").path
        try "localhost\tFALSE\t/\tFALSE\t0\tsession\ts3cret\n".write(toFile: jar, atomically: true, encoding: .utf8)
        let page = "hostile/cookie-3p.html"
        let elsewhere = "http://127.0.0.1:\(server.port)/\(page)"
        let pages = [("a page on another site", elsewhere),
                     ("a redirect to it", "http://localhost:\(server.port)/redirect?" + elsewhere),
                     ("a page on the cookie's site", "http://localhost:\(server.port)/\(page)")]
        for (name, url) in pages {
            server.resetCounts()
            let run = try PageHeightBinary.run(["--cookies", jar, "--allow-host", "localhost:\(server.port)", "--timeout", "5", url],
                                               within: 60)
            #expect(run.stdout.hasPrefix("400 px"), "\(name): \(run.stdout) \(run.stderr.suffix(300))")
            Thread.sleep(forTimeInterval: 0.5) // the beacon may come after the verdict
            let counts = server.counts
            let arrived = Set(counts.keys.compactMap { $0.split(separator: " ").first.map(String.init) })
            #expect(arrived.isSuperset(of: ["img", "css", "script", "iframe"]), "\(name): the requests reached the server: \(counts)")
            let withCookie = counts.keys.filter { $0.hasSuffix(" with cookie") }.sorted()
            if url.hasPrefix(elsewhere) || url.contains("redirect") {
                #expect(withCookie.isEmpty, "\(name): the cookie went with \(withCookie)")
            } else {
                #expect(withCookie.count == arrived.count, "\(name): every request carries its cookie: \(counts)")
            }
        }
    }

    /// COOKIE-MANY (issue 62): a cookies file of 16,000 lines made every page of a batch time
    /// out. A file holds at most 3000 cookies (and 16 MiB): more is a usage error at once. The
    /// most it may hold, all for the page's own host, goes in well within a 5 s timeout on the
    /// real clock, in each page of a batch; 2999 for other hosts stay out of the page's view.
    @Test func aCookiesFileIsCappedAndTheAllowedNumberGoesInFast() throws {
        let server = try #require(HostilePageTests.server)
        let directory = try HostilePageTests.temporaryDirectory("cookies-many")
        defer { try? FileManager.default.removeItem(at: directory) }
        func jar(_ name: String, _ lines: [String]) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let session = "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts3cret"
        let tooMany = try jar("many.txt", (0..<16_000).map { "site\($0).example.com\tFALSE\t/\tFALSE\t0\tc\($0)\tv" })
        let refused = try PageHeightBinary.run(["--cookies", tooMany, "Pages/static.html"], within: 30)
        #expect(refused.status == 64 && refused.stderr.hasPrefix("Error: '--cookies' \(tooMany) holds more than 3000 cookies (line 3001 is the next)"),
                "\(refused.stderr)")
        let page = server.url(for: "needs-cookie").absoluteString
        let list = directory.appendingPathComponent("list.txt").path
        try Array(repeating: page, count: 3).joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        for (name, lines) in [("own host", (0..<2999).map { "127.0.0.1\tFALSE\t/\tFALSE\t0\tc\($0)\tv" } + [session]),
                              ("other hosts", (0..<2999).map { "site\($0).example.com\tFALSE\t/\tFALSE\t0\tc\($0)\tv" } + [session])] {
            let path = try jar("\(name).txt", lines)
            let run = try PageHeightBinary.run(["batch", "--no-progress", "--clock", "real", "--timeout", "5", "--cookies", path, list],
                                               within: 120)
            #expect(run.status == 0 && heights(run.stdout) == [1200, 1200, 1200], "\(name): \(run.stdout.prefix(600)) \(run.stderr.suffix(300))")
        }
    }

    @Test func badRequestOptionsAreUsageErrors() throws {
        for (arguments, message) in [
            (["--request-header", "X-Token"], "'--request-header' takes 'Name: value'"),
            (["--request-header", "Cookie: a=b"], "use --cookie"),
            (["--cookie", "=s3cret"], "'--cookie' takes NAME=VALUE"),
            (["--cookies", "/nonexistent/cookies.txt"], "'--cookies': cannot read /nonexistent/cookies.txt"),
            (["--header", "Cookie: a=b"], "to send a request header, use --request-header"),
        ] {
            let run = try PageHeightBinary.run(arguments + ["Pages/static.html"])
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("s3cret"))
        }
    }
}
