import Foundation
import PageHeightTestSupport
import Testing

/// `pageheight replay` and `pageheight tune` as a user runs them: `batch` records fixture pages
/// with known timelines, then the two commands read its JSON Lines.
@Suite(.serialized)
struct TuneCommandTests {
    let cli = CommandLineTests()

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-tune-\(name)").path
    }

    /// The pages grow 0.7, 2.5 and 6.5 s after load; the default's last poll (5.3 s) misses the
    /// third. Searched among a few family members and one given schedule that polls once more
    /// at 8.3 s, the front holds that schedule (every page right), the default (one page wrong,
    /// fewer jumps, final height sooner) and polls up to 1 s (two pages wrong, fewer jumps still).
    @Test func tuneOnRecordedFixturesFindsTheScheduleThatCatchesTheLatePage() throws {
        let list = temporary("list.txt")
        let out = temporary("out.jsonl")
        let html = temporary("report.html")
        defer { [list, out, html].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let names = ["grow-0.7.html", "grow-2.5.html", "grow-6.5.html", "static.html", "late-image.html"]
        try names.map { cli.page($0) }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try PageHeightBinary.run(["batch", "--jobs", "2", "--offline", "--no-progress", "--out", out, list])
        #expect(batch.status == 0, "\(batch.stderr)")

        let replay = try PageHeightBinary.run(["replay", out])
        #expect(replay.status == 0 && replay.stderr.isEmpty, "\(replay.stderr)")
        let rows = replay.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("page ") == true && rows.count == 2 + names.count + 1, "\(replay.stdout)")
        #expect(rows.contains { $0.hasPrefix("grow-6.5.html") && $0.contains("clipped by 500 px") && $0.contains("800 px") }, "\(replay.stdout)")
        #expect(rows.last == "5 pages, each report's own schedule and threshold: 4 right, 1 clipped (by up to 500 px), "
            + "0 with blank space, 0 unknown")
        let later = try PageHeightBinary.run(["replay", "--schedule", "0.1,0.2,0.5,1,1.5,2,3", "--threshold", "5", out])
        #expect(later.stdout.split(separator: "\n").last?.hasSuffix(": 5 right, 0 clipped, 0 with blank space, 0 unknown") == true,
                "\(later.stdout)")

        let arguments = ["tune", "--polls", "1,3", "--first", "0.1", "--growth", "2", "--last", "1,8", "--thresholds", "5",
                         "--candidate", "0.1,0.2,0.5,1,1.5,2,3", out]
        let json = try PageHeightBinary.run(arguments + ["--json", "--report", html])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let candidates = try #require(document["candidates"] as? [[String: Any]])
        let front = try #require(document["front"] as? [Int]).map { candidates[$0] }
        func sleeps(_ candidate: [String: Any]) -> [Double] { candidate["sleeps"] as? [Double] ?? [] }
        // The third row is one of the family's schedules that poll for the last time at 1 s; which
        // of those that score alike shows depends on when each page's changes landed in this run.
        #expect(front.count == 3 && Array(front.map(sleeps).prefix(2)) == [[0.1, 0.2, 0.5, 1, 1.5, 2, 3], [0.1, 0.2, 0.5, 1, 1.5, 2]],
                "\(front.map(sleeps))")
        #expect(abs((front.last.map(sleeps) ?? []).reduce(0, +) - 1) < 0.001, "\(front.map(sleeps))")
        #expect(front.map { $0["wrong"] as? Int } == [0, 1, 2])
        #expect(document["recommended"] as? Int == (document["front"] as? [Int])?.first)
        let reader = try #require((document["readerApp"] as? Int).map { candidates[$0] })
        let wrongPages = try #require(reader["wrongPages"] as? [[String: Any]])
        #expect(wrongPages.map { $0["page"] as? String } == ["grow-6.5.html"] && wrongPages.first?["error"] as? Double == -500)

        let report = try String(contentsOfFile: html, encoding: .utf8)
        #expect(report.contains(#"<svg class="pareto""#) && report.contains(#"<section class="candidate" id="app">"#))
        #expect(report.contains("grow-6.5.html") && report.contains("clipped by 500 px"))

        // Issue 61.2: every candidate is scored on the wrong height a reader sees over time, and
        // --max-final leaves out those that show a final height later than asked.
        #expect(candidates.allSatisfy { $0["wrongHeightPixelSeconds"] != nil })
        let capped = try PageHeightBinary.run(arguments + ["--json", "--max-final", "1"])
        let cappedDocument = try #require(try JSONSerialization.jsonObject(with: Data(capped.stdout.utf8)) as? [String: Any])
        #expect(cappedDocument["maxFinal"] as? Double == 1 && (cappedDocument["pastMaxFinal"] as? Int ?? 0) > 0, "\(capped.stdout.prefix(400))")
        #expect((cappedDocument["front"] as? [Int])?.contains(cappedDocument["readerApp"] as? Int ?? -1) == false,
                "the default shows grow-2.5.html's final height 2.5 s after load")

        let table = try PageHeightBinary.run(arguments)
        #expect(table.stdout.contains("\nbest  0.1,0.2,0.5,1,1.5,2,3 ") && table.stdout.contains("\napp   0.1,0.2,0.5,1,1.5,2 "),
                "\(table.stdout)")
    }

    @Test(arguments: [
        (["replay"], "Error: missing reports", "USAGE: pageheight replay [options] <reports> ..."),
        (["tune", "--growth", "0.5", "a.jsonl"], "Error: '--growth' must be between", "USAGE: pageheight tune [options] <reports> ..."),
        (["tune", "--max-final", "soon", "a.jsonl"], "Error: '--max-final' takes seconds, not 'soon'", "USAGE: pageheight tune [options] <reports> ..."),
        (["tune", "no-such-file.jsonl"], "Error: the reports: no such file: no-such-file.jsonl", "USAGE: pageheight tune [options] <reports> ..."),
        (["replay", "Package.swift"], "Error: the reports: Package.swift: not a pageheight report (not JSON)", "USAGE: pageheight replay [options] <reports> ..."),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String, _ usage: String) throws {
        let result = try PageHeightBinary.run(arguments)
        #expect(result.status == 64 && result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0].hasPrefix(message) && lines[1] == usage && lines[2] == "See 'pageheight --help'.", "\(result.stderr)")
    }
}
