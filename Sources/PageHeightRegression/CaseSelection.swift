import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which cases `check --grep PATTERN` runs: a pattern with `*`, `?` or `[…]` is a glob that
/// must match the whole page name or the whole case name (`a.html (width 390, font 16, zoom
/// 1)`); any other pattern matches where the case name contains it. Pure.
public struct CaseSelection: Sendable, Equatable {
    public var pattern: String

    public init(_ pattern: String) { self.pattern = pattern }

    public func matches(_ testCase: RegressionCase) -> Bool {
        if PageGlob.isGlob(pattern) {
            return fnmatch(pattern, testCase.page, 0) == 0 || fnmatch(pattern, testCase.name, 0) == 0
        }
        return testCase.name.contains(pattern)
    }
}

extension Baseline {
    /// Entries whose page is not a page of the suite any more (deleted, renamed, excluded).
    public func staleEntries(for suite: RegressionSuite) -> [Entry] {
        let pages = Set(suite.pages.map(\.name))
        return cases.filter { !pages.contains($0.page) }
    }

    /// This baseline without `entries`.
    public func removing(_ entries: [Entry]) -> Baseline {
        let gone = Set(entries.map(\.testCase))
        return Baseline(cases: cases.filter { !gone.contains($0.testCase) }, measuredWith: measuredWith)
    }

    /// `stale baseline entries (their page is no longer in the suite): a.html (2 cases), b.html`.
    public static func staleText(_ entries: [Entry]) -> String {
        var counts: [String: Int] = [:]
        for entry in entries { counts[entry.page, default: 0] += 1 }
        return counts.keys.sorted().map { counts[$0]! == 1 ? $0 : "\($0) (\(counts[$0]!) cases)" }.joined(separator: ", ")
    }
}
