import Foundation
import PageHeightCore

/// A file of recorded reports: JSON Lines (`batch`, several pages) or one pretty-printed
/// report (`--json`).
public enum ReportFile {
    /// The most a file of reports may hold: a batch of thousands of pages, as a list may hold.
    public static let byteLimit = 256 << 20

    /// Reads the reports in `path` (`-` reads standard input), in file order: at most
    /// `byteLimit` bytes (`replay - < /dev/zero` ends in an error, not in all of memory).
    public static func read(_ path: String) throws(ReportFileError) -> [RecordedReport] {
        let data: Data
        do {
            if path == "-" {
                data = try BoundedInput.read(descriptor: STDIN_FILENO, limit: byteLimit)
            } else {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw ReportFileError.unreadable(path, "no such file") }
                guard !isDirectory.boolValue else { throw ReportFileError.unreadable(path, "is a directory") }
                data = try BoundedInput.read(path: path, limit: byteLimit)
            }
        } catch let error as ReportFileError {
            throw error
        } catch BoundedInput.Failure.tooLarge(let limit) {
            throw .unreadable(path == "-" ? "standard input" : path, "larger than \(BoundedInput.size(limit)) (the most a file of reports may hold)")
        } catch {
            throw .unreadable(path == "-" ? "standard input" : path, "cannot be read")
        }
        return try parse(data, name: path == "-" ? "standard input" : path)
    }

    /// Parses reports: one per non-blank line, or the whole text as one report when its first
    /// line is not a whole JSON value (pretty-printed JSON).
    public static func parse(_ data: Data, name: String) throws(ReportFileError) -> [RecordedReport] {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let firstLine = lines.firstIndex { !isBlank($0) }
        guard let firstLine else { throw .empty(name) }
        if (try? JSONSerialization.jsonObject(with: Data(lines[firstLine]))) == nil {
            do {
                return [try decoder.decode(RecordedReport.self, from: data)]
            } catch {
                throw .malformed(name, line: nil, detail: describe(error))
            }
        }
        var reports: [RecordedReport] = []
        for (number, line) in lines.enumerated() where !isBlank(line) {
            do {
                reports.append(try decoder.decode(RecordedReport.self, from: Data(line)))
            } catch {
                throw .malformed(name, line: number + 1, detail: describe(error))
            }
        }
        return reports
    }

    private static func isBlank(_ line: Data.SubSequence) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "no '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not JSON" : "'\(path)': \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

/// A report file that cannot be used.
public enum ReportFileError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, String)
    case empty(String)
    /// `line` is 1-based; nil for a file that is one report.
    case malformed(String, line: Int?, detail: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "the reports: \(why): \(path)"
        case .empty(let name): "the reports: \(name) holds no report"
        case .malformed(let name, let line, let detail):
            "the reports: \(name)\(line.map { " line \($0)" } ?? ""): not a pageheight report (\(detail))"
        }
    }
}
