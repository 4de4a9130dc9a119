import Foundation
import PageHeightTestSupport
import Testing

/// A crash of the engine's own process (a signal inside WebKit, on its GLib thread) costs only the
/// page it was measuring: the built binary, real pages. `PAGEHEIGHT_TEST_CRASH_URL` makes the
/// engine process fault (SIGSEGV) as it starts the page whose path contains it: the page that
/// crashed it for real, `Pages/hostile/view-transition.html`, no longer does (it is measured here).
@Suite(.serialized)
struct EngineCrashTests {
    let cli = CommandLineTests()
    var pages: URL { CommandLineTests.pages }
    static let died = "pageheight's engine process died (SIGSEGV) while measuring this page"

    /// A temporary directory of the test's own, removed by the caller.
    func directory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-crash-\(name)")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func reports(_ path: String) throws -> [Int: [String: Any]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let reports = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        return Dictionary(uniqueKeysWithValues: reports.map { ($0["index"] as! Int, $0) })
    }

    /// The view-transition page, a page that crashes the engine, and Pages/static.html in one
    /// batch at one job: ok 610, crashed, ok 1234; the crash names its signal, the batch's exit
    /// status is its summary's, and the dead process left nothing in TMPDIR.
    @Test func aBatchGoesOnWithThePagesAfterACrash() throws {
        let work = try directory("batch")
        defer { try? FileManager.default.removeItem(at: work) }
        let list = work.appendingPathComponent("list.txt").path, out = work.appendingPathComponent("out.jsonl").path
        let tmp = work.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        try ["hostile/view-transition.html", "absolute.html", "static.html"].map { "\(pages.path)/\($0)" }
            .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let run = try PageHeightBinary.run(["batch", "--jobs", "1", "--no-progress", "--out", out, list],
                                           environment: ["PAGEHEIGHT_TEST_CRASH_URL": "/absolute.html", "TMPDIR": tmp.path],
                                           within: 120)
        #expect(!run.timedOut && run.signal == nil && run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("3 of 3 pages: ok 2, crashed 1"), "\(run.stderr)")
        let byIndex = try reports(out)
        #expect(byIndex[0]?["status"] as? String == "ok" && byIndex[0]?["height"] as? Double == 610, "\(byIndex[0] ?? [:])")
        #expect(byIndex[1]?["status"] as? String == "crashed" && byIndex[1]?["message"] as? String == Self.died,
                "\(byIndex[1] ?? [:])")
        #expect((byIndex[1]?["url"] as? String)?.hasSuffix("/absolute.html") == true)
        #expect(byIndex[2]?["status"] as? String == "ok" && byIndex[2]?["height"] as? Double == 1234, "\(byIndex[2] ?? [:])")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty, "left in TMPDIR")
    }

    /// Four jobs: the crash takes the pages in flight with it; they are measured again one at a
    /// time, and only the page that crashes the engine again is `crashed` (with `--retries 1`,
    /// after a second death). Every other page keeps its height.
    @Test func aCrashAmongPagesInFlightCostsOnlyItsPage() throws {
        let work = try directory("jobs")
        defer { try? FileManager.default.removeItem(at: work) }
        let list = work.appendingPathComponent("list.txt").path, out = work.appendingPathComponent("out.jsonl").path
        let names = ["static.html", "margins.html", "absolute.html", "quirks.html", "long-article.html", "static.html"]
        try names.map { "\(pages.path)/\($0)" }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let alone = try PageHeightBinary.run(["batch", "--jobs", "1", "--no-progress", "--out", out, list], within: 120)
        #expect(alone.status == 0, "\(alone.stderr)")
        let heights = try reports(out).mapValues { $0["height"] as? Double }
        let run = try PageHeightBinary.run(["batch", "--jobs", "4", "--retries", "1", "--no-progress", "--out", out, list],
                                           environment: ["PAGEHEIGHT_TEST_CRASH_URL": "/absolute.html"], within: 120)
        #expect(!run.timedOut && run.status == 1, "exit \(run.status): \(run.stderr)")
        let byIndex = try reports(out)
        #expect(byIndex.count == names.count)
        for (index, name) in names.enumerated() {
            if name == "absolute.html" {
                #expect(byIndex[index]?["status"] as? String == "crashed"
                        && byIndex[index]?["message"] as? String == Self.died + "; attempt 2 of 2", "\(byIndex[index] ?? [:])")
            } else {
                #expect(byIndex[index]?["status"] as? String == "ok" && byIndex[index]?["height"] as? Double == heights[index] ?? nil,
                        "\(name): \(byIndex[index] ?? [:])")
            }
        }
    }

    /// A single run whose page crashes the engine prints a `crashed` report, as a line or as JSON,
    /// and exits 1 (a page that is not ok), not with the signal; with a page after it, that page
    /// is measured too.
    @Test func aSingleRunPrintsTheCrashedReport() throws {
        let environment = ["PAGEHEIGHT_TEST_CRASH_URL": "/absolute.html"]
        let crashing = pages.appendingPathComponent("absolute.html").path
        let line = try PageHeightBinary.run([crashing], environment: environment, within: 60)
        #expect(line.signal == nil && line.status == 1, "exit \(line.status): \(line.stderr)")
        #expect(line.stdout == "crashed: no height (\(Self.died))\n", "\(line.stdout)")
        let json = try PageHeightBinary.run(["--json", crashing], environment: environment, within: 60)
        #expect(json.signal == nil && json.status == 1, "exit \(json.status): \(json.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["status"] as? String == "crashed" && report["message"] as? String == Self.died, "\(json.stdout)")
        #expect((report["url"] as? String)?.hasSuffix("/absolute.html") == true)
        let two = try PageHeightBinary.run([crashing, pages.appendingPathComponent("static.html").path],
                                           environment: environment, within: 60)
        #expect(two.status == 1, "\(two.stderr)")
        let lines = two.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasSuffix("absolute.html: crashed: no height (\(Self.died))")
                && lines[1].contains("static.html: 1234 px (settled at "), "\(two.stdout)")
    }

    /// SIGTERM to a batch whose engine process is measuring: the run ends with 143, says what was
    /// written, and leaves no process behind (the engine's, its Xvfb, WebKit's).
    @Test func aSignalToTheRunEndsItsEngineProcessToo() throws {
        let work = try directory("signal")
        defer { try? FileManager.default.removeItem(at: work) }
        let list = work.appendingPathComponent("list.txt").path, out = work.appendingPathComponent("out.jsonl").path
        try ["grow-6.5.html", "static.html"].map { "\(pages.path)/\($0)" }.joined(separator: "\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
        let errors = work.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let handle = try FileHandle(forWritingTo: errors)
        defer { try? handle.close() }
        let batch = try PageHeightBinary.start(["batch", "--jobs", "1", "--clock", "real", "--timeout", "12", "--no-progress",
                                                "--out", out, list], standardError: handle)
        let deadline = Date().addingTimeInterval(30)
        var children: [Int32] = []
        while Date() < deadline {
            children = cli.descendants(of: batch.processIdentifier)
            if children.count >= 4 { break } // the engine process, Xvfb, the network and a web process
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(children.count >= 4, "\(children)")
        kill(batch.processIdentifier, SIGTERM)
        #expect(PageHeightBinary.waitForExit(batch) == 143)
        #expect(cli.waitUntilGone(children), "left behind: \(children.filter(cli.isAlive))")
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(stderr.contains("interrupted: ") && stderr.contains("0 results were written"), "\(stderr)")
    }

    /// An engine process whose own memory grows past its renewal mark (here 1 MB, so each one
    /// passes it at once) starts no more pages and ends once the pages it started are measured;
    /// the supervisor hands the rest to a new one. Every page of the batch is measured, once, as
    /// it is in one process; before, the supervisor stopped with "pages not measured".
    @Test func anEngineProcessPastItsMemoryMarkHandsTheRestToANewOne() throws {
        let work = try directory("renewal")
        defer { try? FileManager.default.removeItem(at: work) }
        let names = ["static.html", "absolute.html", "static.html", "grow-2.5.html", "static.html"]
        let list = work.appendingPathComponent("list.txt").path
        try names.map { pages.appendingPathComponent($0).path }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out.jsonl").path
        let run = try PageHeightBinary.run(["batch", "--jobs", "2", "--no-progress", "--out", out, list],
                                           environment: ["PAGEHEIGHT_ENGINE_RENEWAL_MB": "1"], within: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try reports(out)
        let expected = [1234.0, 500, 1234, 1300, 1234]
        #expect(found.count == names.count && (0..<names.count).allSatisfy { found[$0]?["height"] as? Double == expected[$0] },
                "\(found.mapValues { $0["height"] ?? "none" })")
    }
}
