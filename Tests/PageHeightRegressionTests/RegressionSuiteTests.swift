import Foundation
import Testing
@testable import PageHeightCore
@testable import PageHeightRegression

/// Suite files, baselines, comparison and update: pure, on temporary files.
struct RegressionSuiteTests {
    static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Pages")

    func suite(_ json: String, in directory: String = pages.appendingPathComponent("regression").path) throws -> RegressionSuite {
        try RegressionSuite.parse(Data(json.utf8), path: directory + "/suite.json")
    }

    @Test func theSmallestSuiteHasOneCaseWithTheDefaults() throws {
        let suite = try suite(#"{ "pages": ["card.html"] }"#)
        #expect(suite.cases == [RegressionCase(page: "card.html", width: 390, fontSize: 16, zoom: 1)])
        #expect(suite.options == MeasureOptions())
        #expect(suite.tolerance == Tolerance())
        #expect(suite.baselinePath.hasSuffix("Pages/regression/suite.baseline.json"))
        #expect(suite.snapshotDirectory.hasSuffix("Pages/regression/suite.snapshots"))
        #expect(suite.pages[0].location == Self.pages.appendingPathComponent("regression/card.html").path)
    }

    @Test func aSuiteNamesTheOfflineMode() throws {
        let block = try suite(#"{ "pages": ["card.html"], "offline": "block" }"#)
        #expect(block.options.offline && block.options.offlineMode == .block)
        let plain = try suite(#"{ "pages": ["card.html"], "offline": true }"#)
        #expect(plain.options.offline && plain.options.offlineMode == .block)
        let refuse = try suite(#"{ "pages": ["card.html"], "offline": "refuse" }"#)
        #expect(refuse.options.offline && refuse.options.offlineMode == .refuse)
        #expect(throws: SuiteError.self) { try suite(#"{ "pages": ["card.html"], "offline": "nowhere" }"#) }
    }

    /// Issue 44: a suite's cookies and request headers, read as the command line reads them.
    @Test func aSuiteSendsCookiesAndRequestHeaders() throws {
        let login = try suite(#"{ "pages": ["card.html"], "cookies": ["session=s3cret"], "requestHeaders": ["X-Token: abc"] }"#)
        #expect(login.options.requests == PageRequests(headers: [.init(name: "X-Token", value: "abc")],
                                                       cookies: [.init(name: "session", value: "s3cret")]))
        #expect(throws: SuiteError.self) { try suite(#"{ "pages": ["card.html"], "cookies": ["novalue"] }"#) }
        #expect(throws: SuiteError.self) { try suite(#"{ "pages": ["card.html"], "requestHeaders": [3] }"#) }
    }

    /// `cookiesFile`: a cookies.txt beside the suite (a path from the suite's folder), added to
    /// the `cookies` the suite names; a file that is not there is the suite's error.
    @Test func aSuiteTakesACookiesFileFromItsFolder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-jar")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("login"), withIntermediateDirectories: true)
        try "<!DOCTYPE html>".write(to: directory.appendingPathComponent("card.html"), atomically: true, encoding: .utf8)
        try "example.com\tFALSE\t/\tFALSE\t0\tsession\ts3cret\n"
            .write(to: directory.appendingPathComponent("login/cookies.txt"), atomically: true, encoding: .utf8)
        let login = try suite(#"{ "pages": ["card.html"], "cookies": ["a=b"], "cookiesFile": "login/cookies.txt" }"#,
                              in: directory.path)
        #expect(login.options.requests?.cookies.map(\.name) == ["a", "session"])
        #expect(throws: SuiteError.self) { try suite(#"{ "pages": ["card.html"], "cookiesFile": "none.txt" }"#, in: directory.path) }
    }

    @Test func everyPageAtEveryWidthFontSizeAndZoomWithOptionsAndTemplates() throws {
        let suite = try suite("""
        { "pages": ["*.html", {"path": "fragment.html", "template": null}, "https://example.com/a"],
          "widths": [390, 320], "fontSizes": [16, 20], "zooms": [1, 1.5], "template": "default",
          "offline": true, "timeout": 20, "metric": "max", "tolerancePx": 2, "tolerancePercent": 1, "repeat": 3 }
        """)
        #expect(suite.pages.map(\.name) == ["card.html", "fragment.html", "https://example.com/a"])
        #expect(suite.pages.map(\.template) == [.standard, .standard, .standard], "the glob came first, so it wins")
        #expect(suite.cases.count == 3 * 2 * 2 * 2)
        #expect(suite.cases.first == RegressionCase(page: "card.html", width: 320, fontSize: 16, zoom: 1))
        #expect(suite.options.offline && suite.options.timeout == 20 && suite.options.metric == .max)
        #expect(suite.repeatCount == 3)
        let options = suite.options(for: RegressionCase(page: "card.html", width: 320, fontSize: 20, zoom: 1.5))
        #expect(options.width == 320 && options.fontSize == 20 && options.zoom == 1.5 && options.offline)
    }

    @Test(arguments: [
        (#"{ "widths": [390] }"#, "missing 'pages'"),
        (#"{ "pages": [] }"#, "'pages' must be a non-empty list"),
        (#"{ "pages": ["card.html"], "width": 390 }"#, "unknown key 'width' (did you mean 'widths'?)"),
        (#"{ "pages": ["card.html"], "widht": [390] }"#, "unknown key 'widht' (did you mean 'widths'?)"),
        (#"{ "pages": [{ "path": "card.html", "tempalte": "default" }] }"#, "unknown key 'tempalte' in the page entry for 'card.html' (did you mean 'template'?)"),
        (#"{ "pages": ["card.html"], "widths": [0] }"#, "'widths' takes whole numbers between 1 and 100000, got 0"),
        (#"{ "pages": ["nope.html"] }"#, "no such file: nope.html"),
        (#"{ "pages": ["*.nope"] }"#, "no page matches '*.nope'"),
        (#"{ "pages": ["card.html"], "tolerancePercent": 200 }"#, "'tolerancePercent' must be a number between 0 and 100"),
        (#"{ "pages": ["card.html"], "offline": 1 }"#, "'offline' must be true or false"),
        (#"{ "pages": ["card.html"], "widths": [true] }"#, "'widths' takes whole numbers"),
        (#"{ "pages": ["card.html"], "metric": "tallest" }"#, "'metric' must be one of"),
        ("[1]", "expected a JSON object"),
        ("{", "not valid JSON"),
    ])
    func badSuitesSayWhatIsWrong(_ json: String, _ message: String) throws {
        #expect(throws: SuiteError.self) { try suite(json) }
        do {
            _ = try suite(json)
        } catch let error as SuiteError {
            #expect(error.description.hasPrefix("suite "), "\(error)")
            #expect(error.detail.contains(message), "\(error.detail)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func toleranceAllowsTheLargerOfPixelsAndPercent() {
        #expect(Tolerance().allows(from: 600, to: 600))
        #expect(!Tolerance().allows(from: 600, to: 601))
        #expect(Tolerance(pixels: 2).allows(from: 600, to: 598))
        #expect(!Tolerance(pixels: 2).allows(from: 600, to: 603))
        #expect(Tolerance(pixels: 2, percent: 1).allows(from: 1000, to: 1010))
        #expect(!Tolerance(pixels: 2, percent: 1).allows(from: 1000, to: 1011))
        #expect(Tolerance(pixels: 2, percent: 1).description == "2 px or 1%")
    }

    let card = RegressionCase(page: "card.html", width: 390, fontSize: 16, zoom: 1)

    @Test func comparisonNamesTheCaseAndBothHeights() {
        let baseline = Baseline.Entry(card, status: .ok, height: 600)
        let moved = CaseComparison(card, baseline: baseline, current: CaseOutcome(status: .ok, height: 660), tolerance: Tolerance(pixels: 2))
        #expect(moved.verdict == .moved)
        #expect(moved.message == "card.html (width 390, font 16, zoom 1): baseline 600 px, now 660 px (+60 px, +10.0%; tolerance 2 px)")
        let within = CaseComparison(card, baseline: baseline, current: CaseOutcome(status: .ok, height: 601), tolerance: Tolerance(pixels: 2))
        #expect(within.passed)
        let fallback = CaseComparison(card, baseline: baseline, current: CaseOutcome(status: .fallback, height: 620, message: "JavaScript is off"),
                                      tolerance: Tolerance(percent: 50))
        #expect(fallback.verdict == .statusChanged)
        #expect(fallback.message == "card.html (width 390, font 16, zoom 1): status ok → fallback (baseline 600 px, now ~620 px): JavaScript is off")
        let missing = CaseComparison(card, baseline: nil, current: CaseOutcome(status: .ok, height: 600), tolerance: Tolerance())
        #expect(missing.verdict == .noBaseline)
        #expect(missing.message.contains("no baseline (now 600 px"))
        #expect(CheckSummary([moved, within, fallback, missing]).text == "4 cases: 1 passed, 3 failed (1 moved, 1 status changed, 1 without baseline)")
    }

    @Test func repeatSpreadChoosesTheMostFrequentAndFlagsDisagreement() {
        let spread = RepeatSpread([(.ok, 2583), (.ok, 2560), (.ok, 2583), (.ok, 2934), (.ok, 2583)])
        #expect(spread.chosen.height == 2583 && spread.chosen.count == 3)
        #expect(spread.nondeterministic && spread.spread == 374)
        #expect(spread.description == "5 runs: 2583 px ×3, 2560 px ×1, 2934 px ×1 (spread 374 px)")
        let steady = RepeatSpread([(.ok, 600), (.ok, 600)])
        #expect(!steady.nondeterministic && steady.description == "2 runs: 600 px every time")
        let comparison = CaseComparison(card, baseline: Baseline.Entry(card, status: .ok, height: 2583),
                                        current: CaseOutcome(status: .ok, height: 2583, spread: spread), tolerance: Tolerance(pixels: 5))
        #expect(comparison.verdict == .nondeterministic)
        #expect(comparison.message.contains("nondeterministic: baseline 2583 px, now 5 runs:"))
    }

    @Test func baselineJSONIsSortedStableAndUpdatesOnlyTheCasesMeasured() throws {
        let other = RegressionCase(page: "a.html", width: 1024, fontSize: 16, zoom: 1)
        let old = Baseline(cases: [Baseline.Entry(card, status: .ok, height: 600), Baseline.Entry(other, status: .ok, height: 100)])
        #expect(old.cases.map(\.page) == ["a.html", "card.html"])
        let update = BaselineUpdate(old: old, measured: [Baseline.Entry(card, status: .ok, height: 660),
                                                         Baseline.Entry(RegressionCase(page: "b.html", width: 390, fontSize: 16, zoom: 1), status: .runaway, height: 844)])
        #expect(update.lines == ["+ b.html (width 390, font 16, zoom 1): runaway 844 px (new)",
                                 "~ card.html (width 390, font 16, zoom 1): 600 px → 660 px"])
        #expect(update.baseline.entry(for: other)?.height == 100, "a case not measured keeps its entry")
        #expect(update.summary(path: "s.baseline.json") == "baseline s.baseline.json: 1 new, 1 changed, 0 unchanged")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("regression-\(getpid()).baseline.json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try update.baseline.write(to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"cases\" : [\n    {\n      \"fontSize\" : 16,\n      \"height\" : 100,\n      \"page\" : \"a.html\","))
        #expect(try Baseline.load(path) == update.baseline)
        #expect(try Baseline.load(path)?.json == text, "reading and writing again changes nothing")
        #expect(try Baseline.load(path + ".none") == nil)
    }

    /// `--update` records the software it measured with; an update of some cases only, with
    /// other software than the old entries', says the baseline is now mixed.
    @Test func theBaselineRecordsWhatItWasMeasuredWithAndAPartialUpdateWarnsWhenItIsMixed() throws {
        let fonts = FontSet(mode: .pinned, packages: [FontSet.Package(name: "fonts-dejavu-core", version: "2.37-6")],
                            directories: [], files: 40, digest: "aa")
        let then = MeasuredWith(webKitGTK: "2.48.1", fonts: fonts)
        let now = MeasuredWith(webKitGTK: "2.50.6", fonts: fonts)
        let other = RegressionCase(page: "a.html", width: 1024, fontSize: 16, zoom: 1)
        let old = Baseline(cases: [Baseline.Entry(card, status: .ok, height: 600), Baseline.Entry(other, status: .ok, height: 100)],
                           measuredWith: then)
        let partial = BaselineUpdate(old: old, measured: [Baseline.Entry(card, status: .ok, height: 600)], measuredWith: now)
        #expect(partial.baseline.measuredWith == now)
        #expect(partial.mixedSoftwareWarning == "warning: 1 baseline entry was not re-measured and was measured with other software "
            + "(WebKitGTK 2.48.1 → 2.50.6); 'pageheight check --update' without --grep re-measures every case")
        let full = BaselineUpdate(old: old, measured: old.cases, measuredWith: now)
        #expect(full.mixedSoftwareWarning == nil && full.unchanged == 2)
        #expect(BaselineUpdate(old: old, measured: [], measuredWith: then).mixedSoftwareWarning == nil)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("measured-with-\(getpid()).baseline.json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try partial.baseline.write(to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(#""webKitGTK" : "2.50.6""#))
        #expect(try Baseline.load(path) == partial.baseline)
        #expect(try Baseline.load(path)?.removing([old.cases[0]]).measuredWith == now, "pruning keeps it")
    }

    @Test func caseFileStemsAreSafeAndDistinct() {
        #expect(card.fileStem == "card_html-w390-f16-z1")
        let deep = RegressionCase(page: "../../../shared/corpus/articles/readability/001/reader.html", width: 390, fontSize: 16, zoom: 1.5)
        #expect(deep.fileStem == "_________shared_corpus_articles_readability_001_reader_html-w390-f16-z1.5")
        #expect(deep.fileStem.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) })
    }
}
