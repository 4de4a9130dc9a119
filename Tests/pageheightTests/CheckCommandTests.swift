import Foundation
import PageHeightTestSupport
import Testing

/// `pageheight check` and `pageheight sweep` as CI runs them: the built binary (or
/// `PAGEHEIGHT_BINARY`), fixture pages copied to a temporary directory, the HTML report opened
/// in headless Chromium.
@Suite(.serialized)
struct CheckCommandTests {
    static let fixtures = CommandLineTests.pages.appendingPathComponent("regression")
    /// Kept after the test for a person to look at.
    static let screenshot = "/tmp/pageheight-check-report.png"

    /// A fresh directory with the regression fixtures and `suite.json` holding `suite`.
    func workspace(_ name: String, suite: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-check-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for file in ["card.html", "fragment.html", "block-390x600.png"] {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        try suite.write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        return directory
    }

    /// Runs headless Chromium on `arguments` + the page; returns its stdout.
    func chromium(_ arguments: [String], page: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--virtual-time-budget=10000"] + arguments + [page.absoluteString]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let status = PageHeightBinary.waitForExit(process)
        #expect(status == 0, "chromium \(arguments) exited \(status)")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func aChangedPageFailsWithBothHeightsJUnitAndAReportThenUpdateMakesItPass() throws {
        let directory = try workspace("changed", suite: #"{ "pages": ["card.html"], "widths": [390], "offline": true, "tolerancePx": 2 }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        let update = try PageHeightBinary.run(["check", "--update"], in: directory)
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.hasPrefix("+ card.html (width 390, font 16, zoom 1): 600 px (new)\nbaseline "), "\(update.stdout)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("suite.snapshots/card_html-w390-f16-z1.png").path))
        let timeline = try String(contentsOf: directory.appendingPathComponent("suite.snapshots/card_html-w390-f16-z1.timeline.json"), encoding: .utf8)
        #expect(timeline.hasPrefix(#"[{"height":600,"#), "the timeline is kept with the snapshot: \(timeline)")
        let same = try PageHeightBinary.run(["check"], in: directory)
        #expect(same.status == 0 && same.stdout.hasPrefix("1 case: 1 passed ("), "\(same.stdout)")

        let card = directory.appendingPathComponent("card.html")
        try String(contentsOf: card, encoding: .utf8).replacingOccurrences(of: "height:200px", with: "height:260px")
            .write(to: card, atomically: true, encoding: .utf8)
        let failed = try PageHeightBinary.run(["check", "--junit", "junit.xml", "--report", "report", "suite.json"], in: directory)
        #expect(failed.status == 1)
        let lines = failed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "FAIL card.html (width 390, font 16, zoom 1): baseline 600 px, now 660 px (+60 px, +10.0%; tolerance 2 px)", "\(failed.stdout)")
        #expect(lines.dropFirst().first?.hasPrefix("1 case: 0 passed, 1 failed (1 moved) (") == true)
        let junit = try String(contentsOf: directory.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains(#"<failure type="moved" message="card.html (width 390, font 16, zoom 1): baseline 600 px, now 660 px"#), "\(junit)")
        // Times are the wall clock's: the page settles after its 5.3 s schedule on the virtual
        // clock, in far less real time (issue 61.5).
        let times = junit.components(separatedBy: #"time=""#).dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        #expect(times.count == 3 && times.allSatisfy { $0 < 5 }, "\(junit)")

        // The report, opened from disk in a real browser: both snapshots, both heights, the
        // changed region found by comparing the pixels.
        let report = directory.appendingPathComponent("report/index.html")
        let dom = try chromium(["--dump-dom"], page: report)
        #expect(dom.contains(#"data-compared="yes""#), "the report's script ran")
        #expect(dom.contains(#"<td class="baseline-height">600 px</td><td class="current-height">660 px</td>"#))
        // Thumbnails at one scale (one failure: 360 px wide at most); links to the full-size PNGs:
        // the baseline's where it is, the current one kept beside the report.
        #expect(dom.contains(#"<img alt="baseline snapshot" data-role="baseline" width="360" height="554" src="data:image/jpeg;base64,"#), "\(dom.prefix(3000))")
        #expect(dom.contains(#"<img alt="current snapshot" data-role="current" width="360" height="609" src="data:image/jpeg;base64,"#))
        #expect(dom.contains(#"<a class="full-size" href="../suite.snapshots/card_html-w390-f16-z1.png">full size</a>"#))
        #expect(dom.contains(#"<a class="full-size" href="fullSize/card_html-w390-f16-z1.current.png">full size</a>"#))
        let full = try Data(contentsOf: directory.appendingPathComponent("report/fullSize/card_html-w390-f16-z1.current.png"))
        #expect(full.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]) && full[20..<24].reduce(0) { $0 << 8 | Int($1) } == 660, "the current PNG, 660 px tall")
        #expect(dom.contains(#"data-diff="0,600,390,660""#), "the changed region is the new 60 px at the bottom")
        #expect(dom.contains(#"<path class="baseline-timeline""#), "the baseline's timeline beside the current one")
        #expect(dom.contains("changed region: x 0–390, y 600–660 px (marked in red)"))
        #expect(dom.contains(#"class="mark diff""#))
        try? FileManager.default.removeItem(atPath: Self.screenshot)
        _ = try chromium(["--window-size=1200,1100", "--screenshot=\(Self.screenshot)"], page: report)
        let png = try Data(contentsOf: URL(fileURLWithPath: Self.screenshot))
        #expect(png.count > 10_000, "the screenshot shows something")

        let refresh = try PageHeightBinary.run(["check", "--update"], in: directory)
        #expect(refresh.status == 0)
        #expect(refresh.stdout.hasPrefix("~ card.html (width 390, font 16, zoom 1): 600 px → 660 px\n"), "\(refresh.stdout)")
        let passed = try PageHeightBinary.run(["check", "--junit", "junit.xml"], in: directory)
        #expect(passed.status == 0, "\(passed.stdout)")
        #expect(try !String(contentsOf: directory.appendingPathComponent("junit.xml"), encoding: .utf8).contains("<failure"))
    }

    /// The baseline records the engine, the fonts and pageheight's version; a check with other
    /// software says so above its failures.
    @Test func aCheckAfterAnEngineUpgradeSaysSoAboveItsFailures() throws {
        let directory = try workspace("upgrade", suite: #"{ "pages": ["card.html"], "offline": true, "snapshots": false }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try PageHeightBinary.run(["check", "--update"], in: directory).status == 0)
        let baselineFile = directory.appendingPathComponent("suite.baseline.json")
        let recorded = try String(contentsOf: baselineFile, encoding: .utf8)
        let version = try PageHeightBinary.run(["--version"]).stdout  // pageheight 0.1.0 (WebKitGTK 2.50.6)
        let engine = try #require(version.split(separator: " ").last?.dropLast(2))
        #expect(recorded.contains(#""webKitGTK" : "\#(engine)""#) && recorded.contains(#""pageheight" : "0.1.0""#)
                && recorded.contains(#""digest" : ""#) && recorded.contains(#""name" : "fonts-dejavu-core""#), "\(recorded)")
        let same = try PageHeightBinary.run(["check"], in: directory)
        #expect(same.status == 0 && same.stdout.hasPrefix("1 case: 1 passed"), "no note when nothing differs: \(same.stdout)")

        try recorded.replacingOccurrences(of: #""webKitGTK" : "\#(engine)""#, with: #""webKitGTK" : "2.40.0""#)
            .write(to: baselineFile, atomically: true, encoding: .utf8)
        let card = directory.appendingPathComponent("card.html")
        try String(contentsOf: card, encoding: .utf8).replacingOccurrences(of: "height:200px", with: "height:260px")
            .write(to: card, atomically: true, encoding: .utf8)
        let failed = try PageHeightBinary.run(["check"], in: directory)
        #expect(failed.status == 1)
        let lines = failed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "note: measured with other software than the baseline: WebKitGTK 2.40.0 → \(engine) (a height may have moved for that reason)",
                "\(failed.stdout)")
        #expect(lines.dropFirst().first?.hasPrefix("FAIL card.html") == true, "\(failed.stdout)")
    }

    @Test func aSuiteWithoutABaselineFailsAndSaysSo() throws {
        let directory = try workspace("missing", suite: #"{ "pages": ["card.html"] }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try PageHeightBinary.run(["check", "--offline"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL card.html (width 390, font 16, zoom 1): no baseline (now 600 px; 'pageheight check --update' records it)"), "\(result.stdout)")
        #expect(result.stdout.contains("1 case: 0 passed, 1 failed (1 without baseline)"))
        #expect(result.stdout.contains("no baseline at \(directory.path)/suite.baseline.json"))
    }

    /// A page that cannot be measured, or a runaway, is never recorded as a baseline by `--update`
    /// (exit 1, and the next check still fails), unless `--accept-status` says so; a template that does not
    /// exist is a usage error before anything is measured.
    @Test func updateNeverRecordsABrokenPageAndAMissingTemplateIsAUsageError() throws {
        let directory = try workspace("broken", suite: #"{ "pages": ["card.html", "stalls.html"] }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A page whose load never finishes: `timeout`.
        try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("hostile/busy-before-load.html"),
                                         to: directory.appendingPathComponent("stalls.html"))
        let update = try PageHeightBinary.run(["check", "--offline", "--timeout", "2", "--update"], in: directory)
        #expect(update.status == 1, "\(update.stdout)\(update.stderr)")
        #expect(update.stdout.contains("! stalls.html (width 390, font 16, zoom 1): timeout") && update.stdout.contains("not recorded"),
                "\(update.stdout)")
        let check = try PageHeightBinary.run(["check", "--offline", "--timeout", "2"], in: directory)
        #expect(check.status == 1 && check.stdout.contains("1 without baseline"), "\(check.stdout)")
        let accepted = try PageHeightBinary.run(["check", "--offline", "--timeout", "2", "--update", "--accept-status", "timeout"], in: directory)
        #expect(accepted.status == 0, "\(accepted.stdout)")

        // A runaway has no height of its own: not recorded unless accepted.
        try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("vh-footer.html"),
                                         to: directory.appendingPathComponent("runaway.html"))
        try #"{ "pages": ["runaway.html"] }"#.write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let runaway = try PageHeightBinary.run(["check", "--offline", "--update"], in: directory)
        #expect(runaway.status == 1 && runaway.stdout.contains("! runaway.html (width 390, font 16, zoom 1): runaway ")
                && runaway.stdout.contains("a runaway has no height of its own to regress against"), "\(runaway.stdout)")
        #expect(try PageHeightBinary.run(["check", "--offline"], in: directory).status == 1)
        #expect(try PageHeightBinary.run(["check", "--offline", "--update", "--accept-status", "runaway"], in: directory).status == 0)
        #expect(try PageHeightBinary.run(["check", "--offline"], in: directory).status == 0)

        try #"{ "pages": [{ "path": "fragment.html", "template": "nosuch-template.html" }] }"#
            .write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let template = try PageHeightBinary.run(["check", "--offline", "--update"], in: directory)
        #expect(template.status == 64 && template.stderr.contains("nosuch-template.html does not exist"), "\(template.stderr)")
    }

    /// With --offline the same suite gives the same heights run after run, in fresh views too:
    /// a template fragment with an image and a plain page, at two widths and two font sizes.
    @Test func anOfflineSuiteRepeatsItsHeights() throws {
        let directory = try workspace("repeat", suite: """
        { "pages": ["card.html", { "path": "fragment.html", "template": "default" }],
          "widths": [320, 1024], "fontSizes": [16, 20], "offline": true }
        """)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try PageHeightBinary.run(["check", "--update"], in: directory).status == 0)
        let first = try String(contentsOf: directory.appendingPathComponent("suite.baseline.json"), encoding: .utf8)
        for arguments in [["check"], ["check", "--repeat", "3"]] {
            let again = try PageHeightBinary.run(arguments, in: directory)
            #expect(again.status == 0, "\(arguments): \(again.stdout)")
            #expect(again.stdout.contains("8 cases: 8 passed"))
            #expect(!again.stdout.contains("nondeterministic"))
        }
        #expect(try PageHeightBinary.run(["check", "--update"], in: directory).stdout.contains("0 new, 0 changed, 8 unchanged"))
        #expect(try String(contentsOf: directory.appendingPathComponent("suite.baseline.json"), encoding: .utf8) == first)
    }

    @Test func sweepPrintsEveryCombination() throws {
        let card = Self.fixtures.appendingPathComponent("card.html").path
        let table = try PageHeightBinary.run(["sweep", "--offline", "--widths", "320,390", "--font-sizes", "14,20", card], in: Self.fixtures)
        #expect(table.status == 0)
        #expect(table.stdout == """
        \(card)
        width \\ font  14 px  20 px
        320             600    600
        390             600    600

        """, "\(table.stdout)")
        let csv = try PageHeightBinary.run(["sweep", "--offline", "--format", "csv", "--template", "default", "--widths", "390", "fragment.html"], in: Self.fixtures)
        #expect(csv.status == 0)
        let rows = csv.stdout.split(separator: "\n")
        #expect(rows.count == 2 && rows[1].hasPrefix("fragment.html,390,16,1,ok,"), "\(csv.stdout)")
    }

    @Test(arguments: [
        (["check", "--bogus"], "Error: unknown option '--bogus'", "USAGE: pageheight check [options] [<suite.json>]"),
        (["check", "no-such-suite.json"], "Error: suite ", "USAGE: pageheight check [options] [<suite.json>]"),
        (["sweep", "--widths", "320"], "Error: missing page (a file or a URL)", "USAGE: pageheight sweep [options] <page> ..."),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String, _ usage: String) throws {
        let result = try PageHeightBinary.run(arguments, in: Self.fixtures)
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0].hasPrefix(message) && lines[1] == usage && lines[2] == "See 'pageheight --help'.", "\(result.stderr)")
    }
}
