import Foundation
import PageHeightTestSupport
import Testing

/// `pageheight batch` as a user runs it: the built binary, real pages, no display.
@Suite(.serialized)
struct BatchCommandTests {
    let cli = CommandLineTests()
    var pages: URL { CommandLineTests.pages }

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-\(name)").path
    }

    func reports(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aListGivesOneReportPerPageWithItsIndexAndABadEntryGetsAStatus() throws {
        let list = temporary("list.txt")
        let out = temporary("out.jsonl")
        defer { [list, out].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try """
        # fixtures
        \(pages.path)/static.html

        no-such-page.html
        \(pages.path)/absolute.html
        """.write(toFile: list, atomically: true, encoding: .utf8)
        let result = try PageHeightBinary.run(["batch", "--jobs", "2", "--offline", "-v", "--out", out, list])
        #expect(result.status == 1, "one entry is not a page")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("3 of 3 pages: ok 2, load-error 1"), "\(result.stderr)")
        // Wall time, not the page's: its pages settle after the 5.3 s schedule on the virtual clock
        // in much less real time (issue 61.5).
        let p50 = result.stderr.components(separatedBy: "seconds per page (wall clock): p50 ").dropFirst().first?.prefix { $0 != "," }
        #expect(p50.flatMap { Double($0) }.map { $0 < 5 } == true, "\(result.stderr)")
        // -v: every page's steps, with its index in the list (the bad entry has none).
        for index in [0, 2] {
            #expect(result.stderr.contains("[\(index)] ") && result.stderr.contains("ended: settled"), "\(result.stderr)")
        }
        #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("[0] ") && $0.contains("loading ") }.count == 1)
        let byIndex = Dictionary(uniqueKeysWithValues: try reports(out).map { ($0["index"] as! Int, $0) })
        #expect(byIndex[0]?["height"] as? Double == 1234)
        #expect(byIndex[1]?["status"] as? String == "load-error")
        #expect((byIndex[1]?["message"] as? String)?.hasPrefix("no such file: ") == true)
        #expect(byIndex[2]?["height"] as? Double == 500)
    }

    /// Issue 62 (STEP-HANG): a page that spins while its step is applied, in a batch with a
    /// page after it: the run ends, and both pages have their result (the step `timeout`).
    @Test func aStepThatSpinsCostsOnlyItsPageInABatch() throws {
        let list = temporary("spin-list.txt")
        let out = temporary("spin-out.jsonl")
        defer { [list, out].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try "\(pages.path)/hostile/step-spin.html\n\(pages.path)/static.html\n".write(toFile: list, atomically: true, encoding: .utf8)
        let started = Date()
        let result = try PageHeightBinary.run(["batch", "--jobs", "1", "--timeout", "3", "--then", "width=500", "--out", out, list],
                                              within: 40)
        #expect(Date().timeIntervalSince(started) < 20, "the batch ran \(Date().timeIntervalSince(started)) s")
        let byIndex = Dictionary(uniqueKeysWithValues: try reports(out).map { ($0["index"] as! Int, $0) })
        #expect(byIndex.count == 2, "\(result.stderr)")
        let steps = byIndex[0]?["steps"] as? [[String: Any]]
        #expect(steps?.first?["status"] as? String == "timeout", "\(String(describing: steps))")
        #expect(byIndex[1]?["height"] as? Double == 1234)
    }

    /// Four pages start at once in block mode, each asking for the content filter while the
    /// first compiles it (the compilation runs the main context): every page finishes.
    @Test func blockModePagesThatStartTogetherAllFinish() throws {
        let list = temporary("block.txt")
        let out = temporary("block.jsonl")
        defer { [list, out].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let names = ["static.html", "absolute.html", "margins.html", "offline-image.html"]
        try names.map { "\(pages.path)/\($0)" }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let run = try PageHeightBinary.start(["batch", "--offline=block", "--jobs", "4", "--no-progress", "--out", out, list])
        let finished = PageHeightBinary.exit(of: run, by: Date().addingTimeInterval(60)) != nil
        if !finished { run.terminate() }
        #expect(finished, "the batch hung")
        let statuses = try reports(out).map { $0["status"] as? String }
        #expect(statuses.count == 4 && statuses.allSatisfy { $0 == "ok" }, "\(statuses)")
    }

    /// The engine's files (its private directory) go with the run, and directories left by runs
    /// that were killed (today's name and the older `pageheight-webkit-<pid>`) are swept up by the
    /// next one.
    @Test func aRunLeavesNoFilesBehindAndSweepsUpAKilledRunsFiles() throws {
        let temporary = NSTemporaryDirectory()
        var gone: Int32 = 4_000_000 // a pid that no process has
        while kill(gone, 0) == 0 || errno != ESRCH { gone -= 1 }
        let left = [temporary + "pageheight-webkit-\(gone)", temporary + "pageheight-\(gone)-a1B2c3"]
        for directory in left {
            try FileManager.default.createDirectory(atPath: directory + "/storage", withIntermediateDirectories: true)
        }
        let run = try PageHeightBinary.start(["\(pages.path)/static.html"])
        #expect(PageHeightBinary.waitForExit(run) == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(!names.contains { $0.hasPrefix("pageheight-\(run.processIdentifier)-") }, "the run's directory is still there")
        for directory in left {
            #expect(!FileManager.default.fileExists(atPath: directory), "a killed run's directory is still there: \(directory)")
        }
    }

    /// Killed with SIGKILL in the middle, the same command with --resume measures every page
    /// exactly once in all.
    @Test func killNineThenResumeLosesNothingAndMeasuresNothingTwice() throws {
        let list = temporary("kill-list.txt")
        let out = temporary("kill-out.jsonl")
        defer { [list, out].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let names = ["static", "absolute", "margins", "throws", "quirks", "long-article", "empty", "no-javascript"]
        let entries = (0..<16).map { "\(pages.path)/\(names[$0 % names.count]).html" }
        try entries.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let arguments = ["batch", "--jobs", "2", "--offline", "--clock", "real", "--out", out, list] // real: the kill lands mid-batch

        let first = try PageHeightBinary.start(arguments)
        let deadline = Date().addingTimeInterval(60)
        var written = 0
        while written < 4 && Date() < deadline && first.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            written = (try? String(contentsOfFile: out, encoding: .utf8))?.filter { $0 == "\n" }.count ?? 0
        }
        let children = cli.descendants(of: first.processIdentifier)
        kill(first.processIdentifier, SIGKILL)
        _ = PageHeightBinary.waitForExit(first)
        #expect(written >= 4 && written < 16, "killed after \(written) pages")
        #expect(cli.waitUntilGone(children), "left behind: \(children.filter(cli.isAlive))")
        // What a kill in the middle of a write leaves: a cut-off last line.
        let handle = try #require(FileHandle(forWritingAtPath: out))
        handle.seekToEndOfFile()
        handle.write(Data("{\"index\":15,\"url\":\"cut".utf8))
        try handle.close()

        let second = try PageHeightBinary.run(arguments + ["--resume"])
        #expect(second.status == 1, "empty.html and no-javascript.html are not ok") // fallback
        #expect(second.stderr.contains("a cut-off last line was removed"), "\(second.stderr)")
        let indexes = try reports(out).map { $0["index"] as! Int }
        #expect(indexes.sorted() == Array(0..<16), "\(indexes.sorted())")
    }

    /// A web process that dies costs only its page; the others are measured in a new view.
    @Test func aCrashedWebProcessCostsOnlyItsPage() throws {
        let list = temporary("crash-list.txt")
        let out = temporary("crash-out.jsonl")
        defer { [list, out].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try ["grow-6.5", "static", "absolute"].map { "\(pages.path)/\($0).html" }.joined(separator: "\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try PageHeightBinary.start(["batch", "--jobs", "1", "--clock", "real", "--timeout", "12", "--out", out, list])
        Thread.sleep(forTimeInterval: 2.5)
        let webProcesses = cli.descendants(of: batch.processIdentifier).filter {
            ((try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)) ?? "").hasPrefix("WebKitWebProces")
        }
        #expect(!webProcesses.isEmpty)
        webProcesses.forEach { kill($0, SIGKILL) }
        #expect(PageHeightBinary.waitForExit(batch) == 1)
        let byIndex = Dictionary(uniqueKeysWithValues: try reports(out).map { ($0["index"] as! Int, $0) })
        #expect(byIndex[0]?["status"] as? String == "crashed")
        #expect((byIndex[0]?["message"] as? String)?.hasPrefix("the web process") == true)
        #expect(byIndex[1]?["status"] as? String == "ok" && byIndex[1]?["height"] as? Double == 1234)
        #expect(byIndex[2]?["status"] as? String == "ok" && byIndex[2]?["height"] as? Double == 500)
    }
}
