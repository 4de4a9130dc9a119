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
