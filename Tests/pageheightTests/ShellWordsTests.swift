import Foundation
@testable import pageheight
@testable import PageHeightBatch
@testable import PageHeightCore
import Testing

/// The commands printed for pasting into a shell, and a resumed batch's summary of its whole file.
@Suite struct ShellWordsTests {
    @Test func wordsAreQuotedOnlyWhenTheShellWouldReadThem() {
        #expect(ShellWords.quote("--jobs") == "--jobs")
        #expect(ShellWords.quote("/data/lists/list30.txt") == "/data/lists/list30.txt")
        #expect(ShellWords.quote("my list.txt") == "'my list.txt'")
        #expect(ShellWords.quote("it's") == #"'it'\''s'"#)
        #expect(ShellWords.quote("$HOME;rm") == "'$HOME;rm'")
        #expect(ShellWords.quote("") == "''")
        #expect(ShellWords.quote("été.txt") == "'été.txt'")
    }

    @Test func theResumeCommandIsTheWholeCommandWithResume() {
        let run = ["/opt/ph/pageheight", "batch", "--offline", "--clock", "real", "--jobs", "2", "--out", "r 30.jsonl", "lists/list30.txt"]
        #expect(ShellWords.resumeCommand(run)
                == "/opt/ph/pageheight batch --resume --offline --clock real --jobs 2 --out 'r 30.jsonl' lists/list30.txt")
        let resumed = ["pageheight", "batch", "--resume", "--out", "r.jsonl", "l.txt"]
        #expect(ShellWords.resumeCommand(resumed) == "pageheight batch --resume --out r.jsonl l.txt")
    }

    @Test func aResumedSummaryCountsTheWholeFile() {
        let now = BatchSummary(total: 2, counts: [.ok: 2], seconds: [0.2, 0.3], wall: 1)
        let earlier = [ResumeCheck.Recorded(index: 0, url: "file:///a.html", options: "{}", status: .runaway, seconds: 1.5),
                       ResumeCheck.Recorded(index: 1, url: "file:///b.html", options: "{}", status: .ok, seconds: 0.1)]
        let whole = now.including(earlier, names: [0: "a.html", 1: "b.html", 2: "c.html", 3: "d.html"], total: 4)
        #expect(whole.done == 4 && whole.notOK == 1 && whole.earlier == 2)
        #expect(whole.notOKNames == ["a.html (runaway)"])
        #expect(whole.seconds == [0.1, 0.2, 0.3, 1.5])
        #expect(whole.text.hasPrefix("4 of 4 pages (2 from before this run, 2 measured now): ok 3, runaway 1\n"), "\(whole.text)")
        #expect(whole.text.contains("2.00 pages/s"), "\(whole.text)")
        let nothingLeft = BatchSummary(total: 0, counts: [:], seconds: [], wall: 0.1).including(earlier, names: [:], total: 2)
        #expect(nothingLeft.notOK == 1 && nothingLeft.notOKNames == ["file:///a.html (runaway)"])
    }
}
