import Foundation
import PageHeightCore

/// `pageheight sweep`: the height of each page at every width × font size × zoom, as a
/// table (widths down, font sizes across; one block per page and zoom), CSV or JSON.
public struct SweepTable: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable { case table, csv, json }

    public struct Row: Sendable, Equatable {
        public var testCase: RegressionCase
        public var outcome: CaseOutcome
        public init(_ testCase: RegressionCase, _ outcome: CaseOutcome) {
            (self.testCase, self.outcome) = (testCase, outcome)
        }
    }

    public var rows: [Row]

    public init(_ rows: [Row]) {
        self.rows = rows.sorted { $0.testCase < $1.testCase }
    }

    public func render(_ format: Format) -> String {
        switch format {
        case .table: table
        case .csv: csv
        case .json: json
        }
    }

    /// Widths down, font sizes across; a cell is the height (`~` for an estimate, the status
    /// for a page that is not ok, `*` when `--repeat` runs disagreed).
    public var table: String {
        var blocks: [String] = []
        let pages = rows.map(\.testCase.page).uniqued()
        for page in pages {
            let pageRows = rows.filter { $0.testCase.page == page }
            for zoom in pageRows.map(\.testCase.zoom).uniqued() {
                let block = pageRows.filter { $0.testCase.zoom == zoom }
                let widths = block.map(\.testCase.width).uniqued()
                let fonts = block.map(\.testCase.fontSize).uniqued()
                var lines = ["\(page)" + (zoom == 1 && pageRows.allSatisfy { $0.testCase.zoom == 1 } ? "" : " (zoom \(RegressionCase.format(zoom)))")]
                var grid = [["width \\ font"] + fonts.map { "\($0) px" }]
                for width in widths {
                    grid.append(["\(width)"] + fonts.map { font in
                        guard let row = block.first(where: { $0.testCase.width == width && $0.testCase.fontSize == font }) else { return "" }
                        return Self.cell(row.outcome)
                    })
                }
                let columnWidths = (0..<grid[0].count).map { column in grid.map { $0[column].count }.max() ?? 0 }
                for line in grid {
                    lines.append(line.enumerated().map { column, text in
                        column == 0 ? text.padding(toLength: columnWidths[0], withPad: " ", startingAt: 0)
                            : String(repeating: " ", count: columnWidths[column] - text.count) + text
                    }.joined(separator: "  "))
                }
                blocks.append(lines.joined(separator: "\n"))
            }
        }
        var text = blocks.joined(separator: "\n\n")
        if rows.contains(where: { $0.outcome.spread?.nondeterministic == true }) {
            text += "\n* the --repeat runs disagreed (see --format json for the spread)"
        }
        return text
    }

    static func cell(_ outcome: CaseOutcome) -> String {
        var text: String
        switch (outcome.status, outcome.height) {
        case (.ok, let height?): text = Self.number(height)
        case (.fallback, let height?): text = "~" + Self.number(height)
        default: text = outcome.status.rawValue
        }
        if outcome.spread?.nondeterministic == true { text += "*" }
        return text
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 100).rounded() / 100)
    }

    /// `page,width,fontSize,zoom,status,height`, RFC 4180 quoting.
    public var csv: String {
        var lines = ["page,width,fontSize,zoom,status,height,nondeterministic"]
        for row in rows {
            let c = row.testCase
            let page = c.page.contains(where: { ",\"\n".contains($0) }) ? "\"" + c.page.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : c.page
            lines.append([page, "\(c.width)", "\(c.fontSize)", RegressionCase.format(c.zoom), row.outcome.status.rawValue,
                          row.outcome.height.map(Self.number) ?? "", row.outcome.spread?.nondeterministic == true ? "true" : "false"]
                .joined(separator: ","))
        }
        return lines.joined(separator: "\n")
    }

    /// A JSON array of `{page, width, fontSize, zoom, status, height, message?, spread?}`.
    public var json: String {
        struct Item: Encodable {
            var page: String
            var width: Int
            var fontSize: Int
            var zoom: Double
            var status: PageStatus
            var height: Double?
            var message: String?
            var spread: RepeatSpread?
            var nondeterministic: Bool?
        }
        let items = rows.map { row in
            Item(page: row.testCase.page, width: row.testCase.width, fontSize: row.testCase.fontSize, zoom: row.testCase.zoom,
                 status: row.outcome.status, height: row.outcome.height, message: row.outcome.message, spread: row.outcome.spread,
                 nondeterministic: row.outcome.spread.map(\.nondeterministic))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return PageText.printableJSON(String(decoding: (try? encoder.encode(items)) ?? Data("[]".utf8), as: UTF8.self))
    }
}
