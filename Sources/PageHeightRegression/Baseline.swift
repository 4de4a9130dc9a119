import Foundation
import PageHeightCore

/// The committed heights a suite is checked against: one entry per case, sorted, in stable
/// pretty JSON (sorted keys, one field a line) so that a change shows as a small diff.
public struct Baseline: Sendable, Equatable, Codable {
    public struct Entry: Sendable, Equatable, Codable {
        public var page: String
        public var width: Int
        public var fontSize: Int
        public var zoom: Double
        public var status: PageStatus
        /// CSS px; nil when the page gave none (a load error, a crash).
        public var height: Double?
        /// Each step's result (`steps` of the suite or the page), in order; absent without steps.
        public var steps: [StepEntry]?

        public init(_ testCase: RegressionCase, status: PageStatus, height: Double?, steps: [StepEntry]? = nil) {
            page = testCase.page
            width = testCase.width
            fontSize = testCase.fontSize
            zoom = testCase.zoom
            self.status = status
            self.height = height.map { ($0 * 100).rounded() / 100 }
            self.steps = steps
        }

        public var testCase: RegressionCase { RegressionCase(page: page, width: width, fontSize: fontSize, zoom: zoom) }

        /// What makes the entry one no measurement gives (a hand-edited or hostile file), or nil:
        /// its numbers are printed and compared, and a height of 1e308 cannot be shown as whole px.
        var problem: String? {
            if !MeasuringOption.widthRange.contains(width) { return "width \(width) is not in \(MeasuringOption.widthRange)" }
            if !MeasuringOption.fontSizeRange.contains(fontSize) { return "font size \(fontSize) is not in \(MeasuringOption.fontSizeRange)" }
            if !MeasuringOption.zoomRange.contains(zoom) { return "zoom \(zoom) is not in \(MeasuringOption.zoomRange)" }
            for (what, value) in [("height", height)] + (steps ?? []).map({ ("the height after \($0.step.prefix(200))", $0.height) }) {
                if let value, !Baseline.heightRange.contains(value) {
                    return "\(what) \(value) is not a page height (0 to \(Int(Baseline.heightRange.upperBound)) px)"
                }
            }
            return nil
        }
    }

    /// The heights a baseline may hold, CSS px: above the tallest page the engine lays out
    /// (33,554,431 px, WebKit's largest layout unit), and exactly representable as whole px.
    public static let heightRange = 0.0...100_000_000

    /// One step's result: the step as given, its status, its height.
    public struct StepEntry: Sendable, Equatable, Codable {
        public var step: String
        public var status: StepStatus
        public var height: Double?

        public init(step: String, status: StepStatus, height: Double?) {
            (self.step, self.status, self.height) = (step, status, height.map { ($0 * 100).rounded() / 100 })
        }

        /// The steps of a report, as a baseline records them.
        public static func of(_ report: PageReport?) -> [StepEntry]? {
            report?.steps.map { $0.map { StepEntry(step: $0.step, status: $0.status, height: $0.height) } }
        }

        /// `after width=844: 980 px`, `after click=#more: failed`.
        public var formatted: String {
            "after \(step): " + (status == .ok ? height.map { Pixels.format($0) } ?? "no height" : status.rawValue + (height.map { " " + Pixels.format($0) } ?? ""))
        }
    }

    /// Bumped when the format changes incompatibly.
    public var version = 1
    public var cases: [Entry]
    /// What the last `--update` measured with (absent in baselines recorded before it was kept).
    public var measuredWith: MeasuredWith?

    public init(cases: [Entry] = [], measuredWith: MeasuredWith? = nil) {
        self.cases = cases.sorted { $0.testCase < $1.testCase }
        self.measuredWith = measuredWith
    }

    public func entry(for testCase: RegressionCase) -> Entry? {
        cases.first { $0.testCase == testCase }
    }

    /// This baseline with `entries` added or replacing the entries of the same cases; entries
    /// of cases not measured this time are kept.
    public func merging(_ entries: [Entry]) -> Baseline {
        var byCase = Dictionary(cases.map { ($0.testCase, $0) }, uniquingKeysWith: { _, last in last })
        for entry in entries { byCase[entry.testCase] = entry }
        return Baseline(cases: Array(byCase.values), measuredWith: measuredWith)
    }

    /// The file's text: pretty JSON with sorted keys and a final newline.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Baseline(cases: cases, measuredWith: measuredWith))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The largest baseline read: hundreds of thousands of entries, far more than a suite's 10,000 cases.
    public static let byteLimit = 64 << 20

    /// Reads the baseline at `path`; nil when there is none.
    public static func load(_ path: String) throws(BaselineError) -> Baseline? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try BoundedInput.read(path: path, limit: byteLimit)
        } catch {
            if case .tooLarge(let limit) = error { throw BaselineError(path, "larger than \(BoundedInput.size(limit)), the most a baseline may be") }
            throw BaselineError(path, "cannot read the file")
        }
        do {
            let baseline = try JSONDecoder().decode(Baseline.self, from: data)
            guard baseline.version == 1 else { throw BaselineError(path, "unknown version \(baseline.version) (this pageheight writes 1)") }
            for (index, entry) in baseline.cases.enumerated() {
                if let problem = entry.problem { throw BaselineError(path, "case \(index + 1) (page \(entry.page.prefix(200))): \(problem)") }
            }
            return Baseline(cases: baseline.cases, measuredWith: baseline.measuredWith)
        } catch let error as BaselineError {
            throw error
        } catch {
            throw BaselineError(path, "not a baseline file: \(error)")
        }
    }

    public func write(to path: String) throws(BaselineError) {
        do {
            try json.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw BaselineError(path, "cannot write the file: \(error.localizedDescription)")
        }
    }
}
