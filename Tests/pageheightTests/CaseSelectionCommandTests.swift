import PageHeightTestSupport
import Foundation
import Testing

/// `check --grep` runs and approves one case; stale baseline entries are listed and pruned.
@Suite(.serialized)
struct CaseSelectionCommandTests {
    let check = CheckCommandTests()

    @Test func grepRunsAndUpdatesOnlyTheMatchingCasesAndPruneDropsStaleEntries() throws {
        let directory = try check.workspace("grep", suite: #"{ "pages": ["card.html", { "path": "fragment.html", "template": "default" }], "offline": true }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try PageHeightBinary.run(["check", "--update"], in: directory).status == 0)

        let card = directory.appendingPathComponent("card.html")
        try String(contentsOf: card, encoding: .utf8).replacingOccurrences(of: "height:200px", with: "height:260px")
            .write(to: card, atomically: true, encoding: .utf8)
        let fragmentOnly = try PageHeightBinary.run(["check", "--grep", "frag*"], in: directory)
        #expect(fragmentOnly.status == 0 && fragmentOnly.stdout.hasPrefix("1 case: 1 passed ("), "\(fragmentOnly.stdout)")
        let failing = try PageHeightBinary.run(["check", "--grep", "card"], in: directory)
        #expect(failing.status == 1 && failing.stdout.hasPrefix("FAIL card.html (width 390, font 16, zoom 1): baseline 600 px, now 660 px"),
                "\(failing.stdout)")
        let approve = try PageHeightBinary.run(["check", "--update", "--grep", "card.html"], in: directory)
        #expect(approve.status == 0)
        #expect(approve.stdout.hasPrefix("~ card.html (width 390, font 16, zoom 1): 600 px → 660 px\nbaseline ")
            && approve.stdout.contains(": 0 new, 1 changed, 0 unchanged"), "\(approve.stdout)")
        #expect(try PageHeightBinary.run(["check"], in: directory).status == 0)
        let none = try PageHeightBinary.run(["check", "--grep", "nosuch"], in: directory)
        #expect(none.status == 64 && none.stderr.hasPrefix("Error: '--grep nosuch' matches no case of suite.json"), "\(none.stderr)")

        try #"{ "pages": ["card.html"], "offline": true }"#.write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let stale = try PageHeightBinary.run(["check"], in: directory)
        #expect(stale.status == 0)
        #expect(stale.stdout.contains("\nstale baseline entries (their page is no longer in the suite; 'pageheight check --prune' removes them): fragment.html\n"),
                "\(stale.stdout)")
        let prune = try PageHeightBinary.run(["check", "--prune"], in: directory)
        #expect(prune.status == 0 && prune.stdout.hasPrefix("pruned 1 stale baseline entry: fragment.html\n1 case: 1 passed"), "\(prune.stdout)")
        let baseline = try String(contentsOf: directory.appendingPathComponent("suite.baseline.json"), encoding: .utf8)
        #expect(!baseline.contains("fragment.html") && baseline.contains("card.html"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("suite.snapshots/fragment_html-w390-f16-z1.png").path))
        #expect(!(try PageHeightBinary.run(["check"], in: directory)).stdout.contains("stale"))
    }
}
