import Foundation
@testable import PageHeightTuning
import Testing

/// docs/tune.md quotes `tune`'s output (issue 61.9): its table header and its legend must be
/// the ones `tune` prints today, so a change of the output fails here until the doc is re-taken.
@Suite struct TuneDocTests {
    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/tune.md")

    @Test func theWorkedExampleQuotesTheHeaderAndLegendTunePrints() throws {
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headerLine = try #require(lines.first { $0.hasPrefix("      sleeps (s)") })
        let cells = headerLine.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(cells == Array(TuneTable.header.dropFirst()), "\(cells)")
        #expect(lines.contains { $0.hasPrefix("Pareto front (no candidate has fewer pages wrong or unknown, less wrong height over time") })
        let result = TuneResult(reports: [], scores: [], tolerance: 5)
        for line in TuneTable.legend(result) {
            #expect(lines.contains(line), "docs/tune.md lacks the legend line: \(line)")
        }
    }
}
