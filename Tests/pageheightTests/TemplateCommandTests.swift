import PageHeightTestSupport
import Foundation
import Testing

/// `--template` as a site uses it: the template beside its stylesheet in `site/`, the article
/// fragments with their images in `articles/` (`Pages/templates/`). With the stylesheet the
/// story measures 400 + 100 + 600 = 1100 px (its image is 600 px tall and sits beside it).
@Suite(.serialized)
struct TemplateCommandTests {
    let cli = CommandLineTests()
    static let templates = CommandLineTests.pages.appendingPathComponent("templates")
    var template: String { Self.templates.appendingPathComponent("site/template.html").path }
    var story: String { Self.templates.appendingPathComponent("articles/story.html").path }

    @Test func aSinglePageGetsTheTemplatesStylesheetAndItsOwnImage() throws {
        let styled = try PageHeightBinary.run(["--offline", "--template", template, story])
        #expect(styled.status == 0, "\(styled.stderr)")
        #expect(styled.stdout.hasPrefix("1100 px ("), "\(styled.stdout)")
        let json = try PageHeightBinary.run(["--offline", "--json", "--template", "default", story])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["url"] as? String == URL(fileURLWithPath: story).absoluteString && report["template"] as? String == "default", "\(json.stdout.prefix(300))")
        let plain = try PageHeightBinary.run(["--offline", "--template", "default", story])
        #expect(plain.status == 0 && !plain.stdout.hasPrefix("1100 px"), "\(plain.stdout)")
        #expect(!plain.stderr.contains("warning"), "\(plain.stderr)")
        // A whole document is not a fragment: said, not silently nested (issue 45.10).
        let whole = try PageHeightBinary.run(["--offline", "--template", "default", cli.page("static.html")])
        #expect(whole.stderr.contains("warning: \(cli.page("static.html")) is a whole document, not an article fragment"), "\(whole.stderr)")
        let url = try PageHeightBinary.run(["--template", template, "https://example.com/a.html"])
        #expect(url.status == 64 && url.stderr.hasPrefix("Error: '--template' takes pages that are files"), "\(url.stderr)")
        let missing = try PageHeightBinary.run(["--template", "nosuch-template.html", story])
        #expect(missing.status == 64 && missing.stderr.hasPrefix("Error: template ") && missing.stderr.contains("nosuch-template.html: no such file"), "\(missing.stderr)")
    }

    @Test func batchPutsEveryEntryIntoTheTemplate() throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-template-list.txt").path
        defer { try? FileManager.default.removeItem(atPath: list) }
        try "\(story)\nhttps://example.com/a.html\n".write(toFile: list, atomically: true, encoding: .utf8)
        let result = try PageHeightBinary.run(["batch", "--offline", "--template", template, list])
        #expect(result.status == 1, "the URL entry cannot take a template")
        let reports = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let byIndex = Dictionary(uniqueKeysWithValues: reports.map { ($0["index"] as! Int, $0) })
        #expect(byIndex[0]?["height"] as? Double == 1100, "\(result.stdout)")
        // Each report names its article and the template it was put into, not the template's folder.
        #expect(byIndex[0]?["url"] as? String == URL(fileURLWithPath: story).absoluteString, "\(result.stdout)")
        #expect(byIndex[0]?["template"] as? String == template, "\(result.stdout)")
        #expect(byIndex[1]?["template"] as? String == template, "\(result.stdout)")
        #expect(byIndex[1]?["status"] as? String == "load-error")
        #expect((byIndex[1]?["message"] as? String)?.contains("a template takes a file") == true)
        // replay names the article in its page column, not the template's folder.
        let replay = try PageHeightBinary.run(["replay", "-"], stdin: result.stdout)
        #expect(replay.status == 0 && replay.stdout.split(separator: "\n").contains { $0.contains("templates/articles/story.html ") },
                "\(replay.stdout)")
    }

    @Test func checkResolvesTheTemplatesLinksBesideTheTemplate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-check-\(getpid())-template")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for folder in ["site", "articles"] {
            try FileManager.default.copyItem(at: Self.templates.appendingPathComponent(folder), to: directory.appendingPathComponent(folder))
        }
        try #"{ "pages": [{ "path": "articles/story.html", "template": "site/template.html" }], "offline": true }"#
            .write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let update = try PageHeightBinary.run(["check", "--update"], in: directory)
        #expect(update.status == 0, "\(update.stdout)\(update.stderr)")
        #expect(update.stdout.hasPrefix("+ articles/story.html (width 390, font 16, zoom 1): 1100 px (new)"), "\(update.stdout)")
        let check = try PageHeightBinary.run(["check", "--template", "default"], in: directory)
        #expect(check.status == 1 && check.stdout.hasPrefix("FAIL articles/story.html"), "without the stylesheet the height moves: \(check.stdout)")
    }
}

/// A stylesheet or an image that does not load is listed in the report and warned about: a
/// missing file, and a file outside the page's folder (stopped before any request is made).
@Suite(.serialized)
struct FailedResourceCommandTests {
    let cli = CommandLineTests()

    @Test func missingFilesAreListedAndWarnedAbout() throws {
        let line = try PageHeightBinary.run([cli.page("missing-resources.html")])
        #expect(line.status == 0, "\(line.stderr)")
        #expect(line.stdout.hasPrefix("400 px (") && line.stdout.contains(
            "; warning: 2 resources failed to load: image nosuch.png (file not found), stylesheet nosuch.css (file not found)"), "\(line.stdout)")
        let json = try PageHeightBinary.run(["--json", cli.page("missing-resources.html")])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let failed = try #require(report["failedResources"] as? [[String: String]])
        #expect(Set(failed.compactMap { $0["url"] }) == [
            CommandLineTests.pages.appendingPathComponent("nosuch.css").absoluteString,
            CommandLineTests.pages.appendingPathComponent("img/nosuch.png").absoluteString,
        ], "\(failed)")
        #expect(failed.allSatisfy { $0["reason"] == "file not found" })
        let clean = try PageHeightBinary.run([cli.page("static.html")])
        #expect(!clean.stdout.contains("warning"), "\(clean.stdout)")
    }

    @Test func aFileOutsideThePagesFolderIsListedAsBlocked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-outside")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("inner"), withIntermediateDirectories: true)
        try "body { margin: 0 }".write(to: directory.appendingPathComponent("outside.css"), atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("inner/page.html")
        try #"<!DOCTYPE html><link rel="stylesheet" href="../outside.css"><div style="height:50px"></div>"#
            .write(to: page, atomically: true, encoding: .utf8)
        let result = try PageHeightBinary.run([page.path])
        #expect(result.stdout.contains("warning: 1 stylesheet failed to load: outside.css (blocked before it was requested"), "\(result.stdout)")
    }

    @Test func checkWarnsAboutTheCaseWhoseStylesheetIsMissing() throws {
        let directory = try CheckCommandTests().workspace("missing-resources", suite: #"{ "pages": ["missing.html"], "offline": true }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("missing-resources.html"),
                                         to: directory.appendingPathComponent("missing.html"))
        let update = try PageHeightBinary.run(["check", "--update"], in: directory)
        #expect(update.status == 0, "\(update.stdout)\(update.stderr)")
        #expect(update.stdout.contains("\nwarning: missing.html (width 390, font 16, zoom 1): 2 resources failed to load: "), "\(update.stdout)")
        let check = try PageHeightBinary.run(["check"], in: directory)
        #expect(check.status == 0)
        #expect(check.stdout.hasPrefix("warning: missing.html (width 390, font 16, zoom 1): 2 resources failed to load: image nosuch.png"), "\(check.stdout)")
    }

    /// What the suite's own offline setting stopped is expected: no warning line on stdout, a
    /// count in the summary, the list with --verbose (on stderr); in both offline modes.
    @Test func checkCountsWhatItsOfflineSettingStopped() throws {
        for offline in [#""offline": true"#, #""offline": "refuse""#] {
            let directory = try CheckCommandTests().workspace("offline-stopped", suite: #"{ "pages": ["network.html"], \#(offline) }"#)
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("hostile/offline-network.html"),
                                             to: directory.appendingPathComponent("network.html"))
            let update = try PageHeightBinary.run(["check", "--update"], in: directory)
            #expect(update.status == 0, "\(update.stdout)\(update.stderr)")
            let check = try PageHeightBinary.run(["check"], in: directory)
            #expect(check.status == 0 && !check.stdout.contains("warning"), "\(offline): \(check.stdout)")
            #expect(check.stdout.contains("; 1 case had requests the offline setting stopped (--verbose lists them)"), "\(check.stdout)")
            let verbose = try PageHeightBinary.run(["check", "--verbose"], in: directory)
            #expect(verbose.stderr.contains("note: network.html (width 390, font 16, zoom 1): "), "\(verbose.stderr.suffix(600))")
            #expect(verbose.stderr.contains(offline.contains("refuse") ? "(refused by --offline (no network))"
                                            : "(blocked before it was requested: --offline)"), "\(verbose.stderr.suffix(600))")
        }
    }
}

/// A snapshot taller than cairo can draw (32767 px) is refused loudly: the one-line output says
/// so and why, the exit status is 1, and no file is left.
@Suite(.serialized)
struct TallSnapshotCommandTests {
    @Test func aPageTallerThan32767PxIsRefusedInTheLineWithExitOne() throws {
        let png = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-tall.png").path
        defer { try? FileManager.default.removeItem(atPath: png) }
        let cli = CommandLineTests()
        let result = try PageHeightBinary.run(["--no-fit", "--snapshot", png, cli.page("tall-snapshot.html")])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("40000 px (") && result.stdout.contains(
            "; error: the snapshot was not written: ") && result.stdout.contains("(the page is taller than 32767 px"), "\(result.stdout)")
        #expect(result.stderr.contains("Error: the snapshot \(png) was not written"))
        #expect(!FileManager.default.fileExists(atPath: png))
    }
}
