import Foundation
import Testing
@testable import PageHeightCore
@testable import PageHeightRegression
@testable import pageheight

/// `check` and `sweep` arguments: pure.
struct CheckArgumentsTests {
    /// The repository's Pages/ folder.
    static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Pages")
    @Test func checkArgumentsTakeTheSuiteAndPassMeasuringOptionsOn() throws {
        let parsed = try CheckArguments.parse(["--update", "--junit=j.xml", "--offline", "--timeout", "30", "--width", "390", "s.json"], command: .check)
        #expect(parsed.update && parsed.junit == "j.xml" && parsed.suite == "s.json")
        #expect(parsed.measuring.names == ["--offline", "--timeout", "--width"])
        var suite = try RegressionSuite.parse(Data(#"{ "pages": ["card.html"], "widths": [320, 1024], "timeout": 5, "quiet": 1 }"#.utf8),
                                              path: Self.pages.appendingPathComponent("regression/s.json").path)
        suite = parsed.applied(to: suite)
        #expect(suite.widths == [390], "--width replaces the suite's widths")
        #expect(suite.options.timeout == 30 && suite.options.offline && suite.options.quiet == 1, "only the options given override")
        #expect(try CheckArguments.parse([], command: .check).suite == "suite.json")
    }

    @Test(arguments: [
        (["--bogus"], CheckArguments.Command.check, "unknown option '--bogus'"),
        (["--widths", "320,x", "a.html"], .sweep, "'--widths' takes a comma-separated list of numbers, e.g. 320,390; got '320,x'"),
        (["--update", "a.html"], .sweep, "'--update' is an option of 'pageheight check'"),
        (["--widths", "320"], .check, "'--widths' is an option of 'pageheight sweep'"),
        (["--timeout", "0", "a.html"], .sweep, "'--timeout' must be between 0.1 and 86400.0, got 0.0"),
    ])
    func badArgumentsAreUsageErrors(_ arguments: [String], _ command: CheckArguments.Command, _ message: String) {
        do {
            let parsed = try CheckArguments.parse(arguments, command: command)
            try parsed.validate()
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func sweepValidation() throws {
        #expect(throws: UsageError("missing page (a file or a URL)")) { try CheckArguments.parse(["--widths", "320"], command: .sweep).validate() }
        #expect(throws: UsageError("'--all' needs '--report DIR' (it puts every case in the report)")) {
            try CheckArguments.parse(["--all"], command: .check).validate()
        }
        let sweep = try CheckArguments.parse(["--widths", "320,390,320", "--font-sizes", "14,16", "--format", "csv", "a.html"], command: .sweep)
        #expect(sweep.widths == [320, 390] && sweep.fontSizes == [14, 16] && sweep.format == .csv && sweep.inputs == ["a.html"])
    }
}
