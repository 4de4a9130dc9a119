import Foundation
@testable import PageHeightBatch
import PageHeightCore
import Testing

/// The batch's closing lines: wall-clock seconds per page (issue 61.5), and the pages that timed
/// out waiting for a network that never answered (issue 61.3).
struct BatchSummaryTextTests {
    @Test func theBatchSummaryCountsPagesThatWaitedForTheNetworkAndSaysWallSeconds() {
        var summary = BatchSummary(total: 3, counts: [.ok: 2, .timeout: 1], seconds: [0.2, 0.3, 15], wall: 15.5)
        summary.waitedForNetwork = 1
        #expect(summary.text.contains("seconds per page (wall clock): p50 0.30, p95 15.00; the whole run 15.5 s"), "\(summary.text)")
        #expect(summary.text.hasSuffix("\n1 page timed out waiting only for requests to the network, none of which answered: "
            + "without a network, measure with --offline"), "\(summary.text)")
    }
}

/// `batch --glob` (issue 61.8): of a directory, only the files whose path below it matches.
struct PageListGlobTests {
    @Test func aGlobChoosesTheSourcePagesOfADirectoryAndRefusesAList() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-glob")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["a", "b/c"] {
            let directory = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for name in ["source.html", "reader.html"] {
                try "<p>".write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
        }
        let all = try PageList.read(root.path)
        #expect(all.entries.count == 4)
        let sources = try PageList.read(root.path, glob: "*/source.html")
        #expect(sources.entries.map(\.page) == ["a/source.html", "b/c/source.html"].map { root.appendingPathComponent($0).path })
        #expect(sources.entries.map(\.index) == [0, 1])
        #expect(throws: UsageError.self) { try PageList.read(root.path, glob: "*/none.html") }
        let list = root.appendingPathComponent("list.txt")
        try "a/source.html\n".write(to: list, atomically: true, encoding: .utf8)
        #expect(throws: UsageError.self) { try PageList.read(list.path, glob: "*") }
    }
}
