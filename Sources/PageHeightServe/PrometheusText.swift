import Foundation

/// Prometheus' text exposition format (version 0.0.4): each metric's `# HELP` and `# TYPE`
/// lines, then its samples.
enum PrometheusText {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// One metric: its header lines and `samples` (whole lines, the name included).
    static func metric(_ name: String, _ type: String, _ help: String, _ samples: [String]) -> String {
        (["# HELP \(name) \(help)", "# TYPE \(name) \(type)"] + samples).joined(separator: "\n") + "\n"
    }

    /// A sample line: `name{label="value",…} value`, labels in the order given.
    static func sample(_ name: String, _ labels: [(String, String)], _ value: Double) -> String {
        let text = labels.isEmpty ? "" : "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
        return "\(name)\(text) \(number(value))"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
