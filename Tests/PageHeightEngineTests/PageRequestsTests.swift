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
