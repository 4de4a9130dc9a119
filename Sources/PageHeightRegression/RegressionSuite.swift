import Foundation
import PageHeightCore

/// A regression suite: which pages to measure, at which widths, font sizes and zooms, with
/// which options, and how far a height may move before the check fails.
///
/// Read from a JSON file (see README, "Regression checks"); page paths, globs and the template
/// are relative to the suite file. The baseline lives beside it: `<name>.baseline.json`, and its
/// snapshots in `<name>.snapshots/`.
public struct RegressionSuite: Sendable, Equatable {
    /// A page of the suite after globs are expanded.
    public struct Page: Sendable, Equatable {
        /// As cases name it: the path relative to the suite file, or the URL.
        public var name: String
        /// An absolute file path or a URL.
        public var location: String
        /// The reader template the page is inserted into, if any.
        public var template: TemplateChoice?
        /// The page's own steps (`"steps"` in its entry), in place of the suite's.
        public var steps: [PageStep]? = nil
    }

    /// A reader template: the built-in one or a file.
    public enum TemplateChoice: Sendable, Equatable {
        case standard
        case file(String)

        /// `default` is the built-in template; anything else is a path relative to `directory`.
        public init(_ text: String, relativeTo directory: String) {
            if text == "default" {
                self = .standard
            } else {
                self = .file(text.hasPrefix("/") ? text : URL(fileURLWithPath: directory).appendingPathComponent(text).standardizedFileURL.path)
            }
        }

        public func load() throws -> ReaderTemplate {
            switch self {
            case .standard: return .standard
            case .file(let path): return try ReaderTemplate.load(path)
            }
        }
    }

    /// The suite file, absolute.
    public var path: String
    public var pages: [Page]
    public var widths: [Int]
    public var fontSizes: [Int]
    public var zooms: [Double]
    public var options: MeasureOptions
    public var tolerance: Tolerance
    /// Whether `--update` keeps full-document snapshots beside the baseline (default true).
    public var keepsSnapshots: Bool
    /// How many times each case is measured, each time in a fresh view (default 1).
    public var repeatCount: Int

    public var directory: String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    /// `suite.json` → `suite.baseline.json`, beside it.
    public var baselinePath: String { Self.sibling(of: path, suffix: ".baseline.json") }

    /// `suite.json` → `suite.snapshots/`, beside it: the baseline's snapshots, one PNG a case,
    /// and the timeline each was recorded with.
    public var snapshotDirectory: String { Self.sibling(of: path, suffix: ".snapshots") }

    /// The baseline's snapshot of `testCase`.
    public func snapshotPath(_ testCase: RegressionCase) -> String { snapshotDirectory + "/" + testCase.fileStem + ".png" }

    /// The timeline recorded with the baseline of `testCase`: its samples, as JSON.
    public func timelinePath(_ testCase: RegressionCase) -> String { snapshotDirectory + "/" + testCase.fileStem + ".timeline.json" }

    /// The samples at `timelinePath(testCase)`; nil when none were recorded or the file is not one.
    public func baselineTimeline(_ testCase: RegressionCase) -> [HeightSample]? {
        (try? BoundedInput.read(path: timelinePath(testCase), limit: 16 << 20)).flatMap { try? JSONDecoder().decode([HeightSample].self, from: $0) }
    }

    /// Keeps `samples` as the baseline's timeline of `testCase` (compact JSON: it is data, not
    /// something to diff).
    public func recordTimeline(_ samples: [HeightSample], for testCase: RegressionCase) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try? encoder.encode(samples).write(to: URL(fileURLWithPath: timelinePath(testCase)), options: .atomic)
    }

    /// Every page at every width, font size and zoom, sorted.
    public var cases: [RegressionCase] {
        pages.flatMap { page in
            widths.flatMap { width in
                fontSizes.flatMap { fontSize in
                    zooms.map { RegressionCase(page: page.name, width: width, fontSize: fontSize, zoom: $0) }
                }
            }
        }.sorted()
    }

    public func page(named name: String) -> Page? { pages.first { $0.name == name } }

    /// Throws when a case's view, or one its steps set, is larger at the suite's device scale than
    /// the engine renders (`MeasureOptions.checkViewSize`).
    public func checkViewSize() throws(UsageError) {
        try options.checkViewSize(widths: widths, widthName: "width")
        for page in pages where page.steps != nil {
            var own = options
            own.steps = page.steps
            try own.checkViewSize(widths: widths, widthName: "width")
        }
    }

    /// The most cases a suite (or a sweep) expands to: a day's measuring on one machine. Its
    /// lists multiply (pages × widths × font sizes × zooms), so a short file can ask for more
    /// cases than memory holds; it is refused before any is made.
    public static let caseLimit = 10_000

    /// Why `counts` (each list's plural name and length, e.g. `("widths", 3000)`) multiply to more
    /// than `caseLimit` cases, naming the product; nil when they do not.
    public static func tooManyCases(_ counts: [(name: String, count: Int)]) -> String? {
        var product = 1
        for (_, count) in counts {
            let (next, overflow) = product.multipliedReportingOverflow(by: max(count, 0))
            product = overflow ? Int.max : next
        }
        guard product > caseLimit else { return nil }
        let factors = counts.map { "\($0.count) \($0.count == 1 ? String($0.name.dropLast()) : $0.name)" }.joined(separator: " × ")
        return "\(factors) = \(product == Int.max ? "more than \(Int.max)" : String(product)) cases; a suite or sweep expands "
            + "to at most \(caseLimit) (measure fewer combinations, or split it)"
    }

    /// The options a case is measured with: the suite's, at the case's width, font size, zoom.
    public func options(for testCase: RegressionCase) -> MeasureOptions {
        var options = self.options
        options.width = testCase.width
        options.fontSize = testCase.fontSize
        options.zoom = testCase.zoom
        if let steps = page(named: testCase.page)?.steps { options.steps = steps.isEmpty ? nil : steps }
        return options
    }

    static func sibling(of path: String, suffix: String) -> String {
        let url = URL(fileURLWithPath: path)
        let stem = url.pathExtension == "json" ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(stem + suffix).path
    }
}
