import PageHeightTestSupport
import Foundation
import Testing

/// Long runs are not silent: progress on stderr with `--progress`, the pages not ok in the
/// summary, and on SIGINT the summary so far, the `--resume` hint, exit 130 and whole lines.
@Suite(.serialized)
struct ProgressCommandTests {
    var pages: URL { CommandLineTests.pages }

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-\(name)").path
    }

    /// Starts pageheight without DISPLAY; stderr goes to `stderrFile`.
    func start(_ arguments: [String], stderrFile: String, in directory: URL? = nil,
               executable: URL = PageHeightBinary.url) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func lines(_ path: String) -> [String] {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) ?? []
    }

    @Test func sigintPrintsTheSummarySoFarAndTheResumeHintAndKeepsWholeLines() throws {
        let list = temporary("sigint-list.txt"), out = temporary("sigint-out.jsonl"), err = temporary("sigint-err.txt")
        defer { [list, out, err].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try ([pages.path + "/static.html", pages.path + "/no-such-page.html"] + Array(repeating: pages.path + "/grow-6.5.html", count: 6))
            .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let process = try start(["batch", "--offline", "--clock", "real", "--jobs", "2", "--progress", "--out", out, list], stderrFile: err)
        // Wait until some results are in, and some pages are still running.
        let deadline = Date().addingTimeInterval(60)
        while lines(out).filter({ !$0.isEmpty }).count < 3, process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(process.isRunning, "the batch ended before the signal")
        process.interrupt()
        #expect(PageHeightBinary.waitForExit(process) == 130)
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(stderr.contains("\ninterrupted: "), "\(stderr)")
        #expect(!stderr.contains("WebKit"), "only pageheight's own lines after an interrupt: \(stderr)")
        #expect(stderr.contains(" pages (") && stderr.contains("slowest running: \(pages.path)/grow-6.5.html ("), "\(stderr)")
        #expect(stderr.contains("not ok: \(pages.path)/no-such-page.html (load-error)"), "\(stderr)")
        // The hint is the whole command, every option that changes results included, for the shell.
        let hint = "`\(PageHeightBinary.url.path) batch --resume --offline --clock real --jobs 2 --progress --out \(out) \(list)` measures the rest"
        #expect(stderr.contains(hint), "\(stderr)")
        let rows = lines(out)
        #expect(rows.last == "", "the file ends with a whole line")
        let reports = rows.dropLast()
        #expect(reports.count >= 3 && reports.count < 8)
        for row in reports {
            #expect((try? JSONSerialization.jsonObject(with: Data(row.utf8))) is [String: Any], "not a whole JSON line: \(row)")
        }
        #expect(stderr.contains("\(reports.count) results were written to \(out)"), "\(stderr)")
        // The rest is measured by the hint's command pasted into a shell; its exit status and
        // summary are the whole file's: the page not ok from before the signal still counts.
        let command = try #require(stderr.components(separatedBy: "; `").last?.components(separatedBy: "` measures").first)
        let resumedErr = temporary("sigint-resumed-err.txt")
        defer { try? FileManager.default.removeItem(atPath: resumedErr) }
        let shell = try start(["-c", command + " 2>" + resumedErr], stderrFile: err,
                              executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(PageHeightBinary.waitForExit(shell) == 1, "a page of the file is not ok")
        #expect(lines(out).dropLast().count == 8)
        let summary = (try? String(contentsOfFile: resumedErr, encoding: .utf8)) ?? ""
        #expect(summary.contains("8 of 8 pages (\(reports.count) from before this run, \(8 - reports.count) measured now): ok 7, load-error 1"), "\(summary)")
        #expect(summary.contains("not ok: \(pages.path)/no-such-page.html (load-error)"), "\(summary)")
        // Resumed again with nothing to go: the same status and summary.
        let again = try PageHeightBinary.run(["batch", "--offline", "--clock", "real", "--jobs", "2", "--resume", "--out", out, list])
        #expect(again.status == 1)
        #expect(again.stderr.contains("8 of 8 pages (8 from before this run, 0 measured now): ok 7, load-error 1"), "\(again.stderr)")
    }

    @Test func progressComesEveryTenSecondsAndTheSummaryNamesThePagesNotOK() throws {
        let list = temporary("progress-list.txt"), err = temporary("progress-err.txt")
        defer { [list, err].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try [pages.path + "/no-such-page.html", pages.path + "/grow-6.5.html", pages.path + "/grow-6.5.html",
             pages.path + "/grow-6.5.html"].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let process = try start(["batch", "--offline", "--clock", "real", "--jobs", "1", "--progress", list], stderrFile: err)
        let status = PageHeightBinary.waitForExit(process)
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(status == 1)
        let progress = stderr.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
        #expect(!progress.isEmpty && progress[0].contains("/4 pages (") && progress[0].contains("slowest running: "), "\(stderr)")
        #expect(stderr.contains("4 of 4 pages: ok 3, load-error 1"))
        #expect(stderr.contains("\nnot ok: \(pages.path)/no-such-page.html (load-error)\n"), "\(stderr)")
    }
}
