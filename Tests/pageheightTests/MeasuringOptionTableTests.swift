import Foundation
@testable import PageHeightCore
@testable import PageHeightRegression
@testable import pageheight
import Testing

/// The table of measuring options against what it drives: the README, the suite file, help and
/// check/sweep overrides.
@Suite struct MeasuringOptionTableTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The lines of the README's section that starts with `heading`, up to the next section.
    func section(_ heading: String) throws -> [Substring] {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let start = try #require(text.range(of: "\n" + heading)).upperBound
        let end = text.range(of: "\n## ", range: start..<text.endIndex)?.lowerBound ?? text.endIndex
        return text[start..<end].split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test func theReadmesOptionsTableOpensWithTheTablesRows() throws {
        let rows = try section("## One page").filter { $0.hasPrefix("| `") }.map(String.init)
        let expected = MeasuringOption.readmeRows
        #expect(Array(rows.prefix(expected.count)) == expected,
                "README.md's options table should open with these rows:\n\(expected.joined(separator: "\n"))")
        for row in rows.dropFirst(expected.count) {
            for option in MeasuringOption.all {
                #expect(!option.switches.contains { row.contains("`\($0)") }, "\(option.name) is listed twice: \(row)")
            }
        }
    }

    @Test func theReadmesSuiteTableNamesEveryMeasuringKey() throws {
        let keys = MeasuringOption.suiteKeys.map { "`\($0)`" }.joined(separator: ", ")
        #expect(try section("## Regression checks").contains { $0.hasPrefix("| \(keys) | as `pageheight` |") },
                "README.md's suite table should have the row '| \(keys) | as `pageheight` | …'")
    }

    @Test func eachSwitchAndSuiteKeyBelongsToOneOption() {
        let switches = MeasuringOption.all.flatMap(\.switches)
        #expect(Set(switches).count == switches.count)
        #expect(Set(MeasuringOption.suiteKeys).count == MeasuringOption.suiteKeys.count)
        #expect(MeasuringOption.suiteKeys.allSatisfy(RegressionSuite.keys.contains))
    }

    @Test func helpListsEveryOptionWithItsDefault() {
        for option in MeasuringOption.all {
            #expect(HelpText.help.contains("  \(option.name)"), "\(option.name)")
            if let text = option.defaultText { #expect(HelpText.help.contains("default: \(text))"), "\(option.name)") }
        }
        #expect(HelpText.help.contains("  --width <px>            Viewport width in CSS px. (1-100000) (default: 390)\n"))
    }

    /// Every option a suite has is an override of check and sweep, and takes the value the suite
    /// would, over only the options given.
    @Test func everySuiteOptionOverridesTheSuiteInCheck() throws {
        let arguments = ["--height", "600", "--metric", "max", "--until", "quick", "--quiet", "1", "--timeout", "9",
                         "--threshold", "2", "--schedule", "0.3", "--no-fit", "--no-javascript", "--offline=block",
                         "--header", "10", "--footer", "20"]
        let parsed = try CheckArguments.parse(arguments + ["s.json"], command: .check)
        let overridden = parsed.measuring.applied(to: MeasureOptions())
        let direct = try CommandLineArguments.parse(arguments + ["a.html"]).options
        #expect(overridden == direct)
        #expect(parsed.measuring.applied(to: direct) == direct)
        var base = MeasureOptions()
        base.width = 768
        #expect(try CheckArguments.parse(["--quiet", "1"], command: .check).measuring.applied(to: base).width == 768)
        #expect(throws: UsageError("unknown option '--allow-host'")) {
            try CheckArguments.parse(["--allow-host", "127.0.0.1"], command: .check)
        }
    }
}
