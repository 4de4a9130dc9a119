import Foundation

/// `check --junit FILE`: JUnit XML with one testcase per case, named by the case, failing with
/// the check's message. CI systems (GitLab, Jenkins, GitHub actions) show it per case.
public enum JUnitReport {
    /// - Parameters:
    ///   - suiteName: the suite file's name.
    ///   - seconds: per case, its wall-clock measuring time (the longest of its runs; not the page's
    ///     time, which the virtual clock moves on faster).
    ///   - wall: the check's own wall-clock time (cases run at once): the suite's time; without
    ///     it, the sum of the cases'.
    public static func xml(suiteName: String, comparisons: [CaseComparison], seconds: [RegressionCase: Double] = [:],
                           wall: Double? = nil) -> String {
        let failures = comparisons.filter { !$0.passed }.count
        let total = wall ?? comparisons.reduce(0) { $0 + (seconds[$1.testCase] ?? 0) }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="pageheight check" tests="\#(comparisons.count)" failures="\#(failures)" time="\#(time(total))">"#,
            #"  <testsuite name="\#(escape(suiteName))" tests="\#(comparisons.count)" failures="\#(failures)" errors="0" skipped="0" time="\#(time(total))">"#,
        ]
        for comparison in comparisons.sorted(by: { $0.testCase < $1.testCase }) {
            let testCase = comparison.testCase
            let head = #"    <testcase classname="\#(escape(testCase.page))" name="\#(escape(testCase.name))" time="\#(time(seconds[testCase] ?? 0))""#
            if comparison.passed {
                lines.append(head + "/>")
            } else {
                lines.append(head + ">")
                lines.append(#"      <failure type="\#(comparison.verdict.rawValue)" message="\#(escape(comparison.message))">\#(escape(comparison.message))</failure>"#)
                lines.append("    </testcase>")
            }
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    /// XML text and attribute escaping; characters XML 1.0 cannot hold become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                out.unicodeScalars.append(scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }
}
