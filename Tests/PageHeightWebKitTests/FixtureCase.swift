// FixtureCase.swift - reads the expected outcomes that each fixture page in
// Pages/ declares about itself.
//
// A page declares one or more cases as meta tags in its <head>:
//
//     <meta name="pageheight-case" content="ARGS => key=value key=value ...">
//
// ARGS are extra command-line options for that run (may be empty). Keys:
// status (required), height, once, schedule, observe (integers, CSS px),
// tolerance (px, default 0), missed (true/false), within (seconds: the verdict is settled
// no later than this after the load started), gaveup (true: the report says what the rules
// stopped waiting for), culprit (a substring of one of the report's view culprits),
// law (the fitted view law's slope k, as in content = k x view + c, within 0.05), realwithin
// (seconds: on the virtual clock, the whole measurement takes no more wall time), steps (each
// `--then` step's height, comma-separated), stepstatus (each step's status; all ok when not
// given). A page-level
//
//     <meta name="pageheight-serve" content="http">
//
// means the page must be loaded through FixtureServer instead of as a file.
//
// Pure parsing: Foundation only, no engine, no I/O beyond reading the pages.

import Foundation

struct FixtureCase: Sendable, Hashable, CustomStringConvertible {
    /// The page file (file URL inside Pages/).
    var page: URL
    /// Extra command-line options for this run, e.g. ["--timeout", "12"].
    var arguments: [String]
    /// Expected status: ok, unstable, runaway, fallback, load-error, timeout, crashed.
    var status: String
    /// Expected stabilized height (CSS px).
    var height: Int?
    /// Expected final height of the `once` strategy.
    var once: Int?
    /// Expected final height of the `schedule` strategy.
    var schedule: Int?
    /// Expected final height of the `observe` strategy.
    var observe: Int?
    /// Allowed difference in px for every expected height (default 0).
    var tolerance: Int
    /// Expected value of the "schedule missed a change" flag, when given.
    var missed: Bool?
    /// The page must be served over the loopback FixtureServer.
    var servedOverHTTP: Bool
    /// The verdict comes settled within this many seconds of the load's start.
    var within: Double? = nil
    /// Whether the report must say what was given up on.
    var gaveUp: Bool? = nil
    /// A substring of one of the report's view culprits.
    var culprit: String? = nil
    /// The fitted view law's slope.
    var law: Double? = nil
    /// On the virtual clock, the measurement takes at most this many seconds of wall time.
    var realWithin: Double? = nil
    /// Each step's height (`--then`), in order.
    var steps: [Int]? = nil
    /// Each step's status, in order (all `ok` when not given).
    var stepStatus: [String]? = nil

    /// The page's file name, e.g. "grow-2.5.html".
    var pageName: String { page.lastPathComponent }

    /// A test name such as "grow-6.5.html [--timeout 12]" (no brackets when
    /// there are no arguments).
    var name: String {
        arguments.isEmpty ? pageName : "\(pageName) [\(arguments.joined(separator: " "))]"
    }

    var description: String { name }

    /// Whether `actual` is within `tolerance` of `expected`.
    func matches(_ actual: Int, _ expected: Int) -> Bool {
        abs(actual - expected) <= tolerance
    }
}

enum FixtureCaseError: Error, CustomStringConvertible {
    case noCases(page: String)
    case malformed(page: String, content: String, reason: String)

    var description: String {
        switch self {
        case .noCases(let page):
            return "\(page): no <meta name=\"pageheight-case\" content=\"...\"> tag"
        case .malformed(let page, let content, let reason):
            return "\(page): bad pageheight-case \"\(content)\": \(reason)"
        }
    }
}

extension FixtureCase {
    /// Pages/ at the package root, found by walking up from this source file
    /// to the first directory that holds Package.swift (falling back to the
    /// first one that holds a Pages folder).
    static var pagesDirectory: URL {
        let fileManager = FileManager.default
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        var firstWithPages: URL?
        while directory.path != "/" && !directory.path.isEmpty {
            let pages = directory.appendingPathComponent("Pages", isDirectory: true)
            var isDirectory: ObjCBool = false
            let hasPages = fileManager.fileExists(atPath: pages.path, isDirectory: &isDirectory)
                && isDirectory.boolValue
            if hasPages && fileManager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return pages
            }
            if hasPages && firstWithPages == nil {
                firstWithPages = pages
            }
            directory.deleteLastPathComponent()
        }
        return firstWithPages
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Pages", isDirectory: true)
    }

    /// Every case of every *.html directly in `directory` (subfolders are not
    /// read), ordered by page name, then in the order the page declares them.
    /// Throws when a page declares no case or a malformed one.
    static func cases(in directory: URL) throws -> [FixtureCase] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.lowercased().hasSuffix(".html") }
            .sorted()
        var result: [FixtureCase] = []
        for name in names {
            let page = directory.appendingPathComponent(name, isDirectory: false)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: page.path, isDirectory: &isDirectory),
                  !isDirectory.boolValue else { continue }
            let text = try String(contentsOf: page, encoding: .utf8)
            result += try cases(page: page, html: text)
        }
        return result
    }

    /// The cases that one page's text declares.
    static func cases(page: URL, html: String) throws -> [FixtureCase] {
        let pageName = page.lastPathComponent
        var servedOverHTTP = false
        var contents: [String] = []
        for attributes in metaTags(in: html) {
            guard let name = attributes["name"]?.lowercased() else { continue }
            switch name {
            case "pageheight-case":
                contents.append(attributes["content"] ?? "")
            case "pageheight-serve":
                servedOverHTTP = (attributes["content"] ?? "").trimmingCharacters(in: .whitespaces)
                    .lowercased() == "http"
            default:
                continue
            }
        }
        guard !contents.isEmpty else { throw FixtureCaseError.noCases(page: pageName) }
        return try contents.map {
            try parseCase(content: $0, page: page, servedOverHTTP: servedOverHTTP)
        }
    }

    /// Parses "ARGS => key=value key=value".
    static func parseCase(content: String, page: URL, servedOverHTTP: Bool) throws -> FixtureCase {
        let pageName = page.lastPathComponent
        func fail(_ reason: String) -> FixtureCaseError {
            .malformed(page: pageName, content: content, reason: reason)
        }
        guard let arrow = content.range(of: "=>") else { throw fail("no \"=>\"") }
        let arguments = words(content[..<arrow.lowerBound])
        var values: [String: String] = [:]
        for pair in words(content[arrow.upperBound...]) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw fail("\"\(pair)\" is not key=value")
            }
            let key = pair[..<equals].lowercased()
            let value = String(pair[pair.index(after: equals)...])
            guard values[key] == nil else { throw fail("\(key) given twice") }
            values[key] = value
        }
        let known: Set<String> = ["status", "height", "once", "schedule", "observe", "tolerance", "missed",
                                  "within", "gaveup", "culprit", "law", "realwithin", "steps", "stepstatus"]
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw fail("unknown key \"\(unknown)\"")
        }
        guard let status = values["status"], !status.isEmpty else { throw fail("no status") }
        func integer(_ key: String) throws -> Int? {
            guard let text = values[key] else { return nil }
            guard let value = Int(text) else { throw fail("\(key)=\(text) is not an integer") }
            return value
        }
        func boolean(_ key: String) throws -> Bool? {
            guard let text = values[key] else { return nil }
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw fail("\(key)=\(text) is not true or false")
            }
        }
        func decimal(_ key: String) throws -> Double? {
            guard let text = values[key] else { return nil }
            guard let value = Double(text) else { throw fail("\(key)=\(text) is not a number") }
            return value
        }
        let missed = try boolean("missed")
        let tolerance = try integer("tolerance") ?? 0
        guard tolerance >= 0 else { throw fail("negative tolerance") }
        return FixtureCase(
            page: page,
            arguments: arguments,
            status: status,
            height: try integer("height"),
            once: try integer("once"),
            schedule: try integer("schedule"),
            observe: try integer("observe"),
            tolerance: tolerance,
            missed: missed,
            servedOverHTTP: servedOverHTTP,
            within: try decimal("within"),
            gaveUp: try boolean("gaveup"),
            culprit: values["culprit"].map { $0.replacingOccurrences(of: "_", with: " ") },
            law: try decimal("law"),
            realWithin: try decimal("realwithin"),
            steps: try values["steps"].map { text in
                try text.split(separator: ",").map { guard let value = Int($0) else { throw fail("steps=\(text) is not a list of integers") }; return value }
            },
            stepStatus: values["stepstatus"].map { $0.split(separator: ",").map(String.init) }
        )
    }

    private static func words(_ text: Substring) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// The attributes (lower-cased names, entity-decoded values) of every
    /// <meta ...> tag in `html`. Comments are skipped, so a commented-out case
    /// does not count.
    static func metaTags(in html: String) -> [[String: String]] {
        let withoutComments = html.replacingOccurrences(
            of: "<!--[\\s\\S]*?-->", with: "", options: .regularExpression)
        guard let tag = try? NSRegularExpression(
                // Quoted values may contain ">" (every case has "=>").
                pattern: "<meta\\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", options: [.caseInsensitive]),
              let attribute = try? NSRegularExpression(
                pattern: "([A-Za-z_:][-A-Za-z0-9_:.]*)\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s\"'>/]+))")
        else { return [] }
        let source = withoutComments as NSString
        var result: [[String: String]] = []
        for match in tag.matches(in: withoutComments, range: NSRange(location: 0, length: source.length)) {
            let inner = source.substring(with: match.range(at: 1))
            let innerSource = inner as NSString
            var attributes: [String: String] = [:]
            for pair in attribute.matches(in: inner, range: NSRange(location: 0, length: innerSource.length)) {
                let name = innerSource.substring(with: pair.range(at: 1)).lowercased()
                var value = ""
                for group in 2...4 where pair.range(at: group).location != NSNotFound {
                    value = innerSource.substring(with: pair.range(at: group))
                    break
                }
                if attributes[name] == nil { attributes[name] = decodeEntities(value) }
            }
            result.append(attributes)
        }
        return result
    }

    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

#if canImport(Testing)
import Testing

extension FixtureCase: CustomTestStringConvertible {
    var testDescription: String { name }
}
#endif
