import Foundation
import PageHeightCore

extension RegressionSuite {
    /// The keys a suite file may have; any other key is an error (a typo would otherwise be
    /// silently ignored). The measuring options' keys come from `MeasuringOption.all`.
    static let keys = Set(["pages", "exclude", "widths", "fontSizes", "zooms", "template", "tolerancePx", "tolerancePercent",
                           "snapshots", "repeat"] + MeasuringOption.suiteKeys)

    /// Reads and resolves the suite file at `path` (globs are expanded against the file system).
    public static func load(_ path: String) throws(SuiteError) -> RegressionSuite {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: absolute) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory)
            throw SuiteError(absolute, !exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "cannot read the file")
        }
        return try parse(data, path: absolute)
    }

    /// Parses suite JSON for the suite file at `path` (absolute); expands its pages against the
    /// file system.
    public static func parse(_ data: Data, path: String) throws(SuiteError) -> RegressionSuite {
        func fail(_ detail: String) -> SuiteError { SuiteError(path, detail) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw fail("not valid JSON: \(jsonErrorDetail(error))")
        }
        guard let json = object as? [String: Any] else { throw fail("expected a JSON object, e.g. { \"pages\": [\"a.html\"] }") }
        if let unknown = json.keys.sorted().first(where: { !keys.contains($0) }) {
            throw fail("unknown key '\(unknown)' (known: \(keys.sorted().joined(separator: ", ")))")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path

        /// Reads one value; a problem with it is an error of this suite file.
        func read<T>(_ body: () throws(SuiteValueProblem) -> T) throws(SuiteError) -> T {
            do { return try body() } catch { throw fail(error.detail) }
        }
        func number(_ key: String, _ range: ClosedRange<Double>) throws(SuiteError) -> Double? {
            guard let value = json[key] else { return nil }
            return try read { () throws(SuiteValueProblem) in try SuiteValue.number(value, key, range) }
        }
        func whole(_ value: Any, _ key: String, _ range: ClosedRange<Int>) throws(SuiteError) -> Int {
            try read { () throws(SuiteValueProblem) in try SuiteValue.whole(value, key, range) }
        }
        func flag(_ key: String) throws(SuiteError) -> Bool? {
            guard let value = json[key] else { return nil }
            return try read { () throws(SuiteValueProblem) in try SuiteValue.flag(value, key) }
        }
        func list(_ key: String) throws(SuiteError) -> [Any]? {
            guard let value = json[key] else { return nil }
            return try read { () throws(SuiteValueProblem) in try SuiteValue.list(value, key) }
        }

        var options = MeasureOptions()
        for option in MeasuringOption.all {
            guard case .value(let key) = option.suiteKey, var value = json[key] else { continue }
            if option.suiteValueIsPath, let path = value as? String, !path.hasPrefix("/") {
                value = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).standardizedFileURL.path
            }
            try read { () throws(SuiteValueProblem) in try option.readSuite(value, key, &options) }
        }
        options.takeDeviceViewport(keepingWidth: json["widths"] != nil, keepingHeight: json["height"] != nil)

        let widths = try list("widths").map { values throws(SuiteError) in
            try values.map { v throws(SuiteError) in try whole(v, "widths", MeasuringOption.widthRange) }
        }
        let fontSizes = try list("fontSizes").map { values throws(SuiteError) in
            try values.map { v throws(SuiteError) in try whole(v, "fontSizes", MeasuringOption.fontSizeRange) }
        }
        let zooms = try list("zooms").map { values throws(SuiteError) -> [Double] in
            try values.map { v throws(SuiteError) -> Double in
                guard let n = v as? NSNumber, !SuiteValue.isBoolean(v), MeasuringOption.zoomRange.contains(n.doubleValue) else {
                    throw fail("'zooms' takes numbers between \(RegressionCase.format(MeasuringOption.zoomRange.lowerBound)) and "
                        + "\(RegressionCase.format(MeasuringOption.zoomRange.upperBound)), got \(v)")
                }
                return n.doubleValue
            }
        }
        let tolerance = Tolerance(pixels: try number("tolerancePx", 0...1_000_000),
                                  percent: try number("tolerancePercent", 0...100))
        let repeatCount = try json["repeat"].map { v throws(SuiteError) in try whole(v, "repeat", 1...100) } ?? 1
        let keepsSnapshots = try flag("snapshots") ?? true

        var suiteTemplate: TemplateChoice?
        if let value = json["template"] {
            guard let text = value as? String, !text.isEmpty else { throw fail("'template' must be a path or \"default\"") }
            suiteTemplate = TemplateChoice(text, relativeTo: directory)
        }
        guard let declared = try list("pages") else {
            throw fail("missing 'pages' (a list of paths relative to the suite file, globs, or URLs)")
        }
        var pages: [Page] = []
        for entry in declared {
            let pattern: String
            var template = suiteTemplate
            var steps: [PageStep]?
            if let text = entry as? String {
                pattern = text
            } else if let object = entry as? [String: Any], let text = object["path"] as? String {
                pattern = text
                if let unknown = object.keys.sorted().first(where: { !["path", "template", "steps"].contains($0) }) {
                    throw fail("unknown key '\(unknown)' in the page entry for '\(text)' (known: path, template, steps)")
                }
                if let value = object["steps"] {
                    var pageOptions = MeasureOptions()
                    try read { () throws(SuiteValueProblem) in try MeasuringOption.then.readSuite(value, "steps", &pageOptions) }
                    steps = pageOptions.steps ?? []
                }
                if object.keys.contains("template") {
                    if object["template"] is NSNull {
                        template = nil
                    } else if let name = object["template"] as? String, !name.isEmpty {
                        template = TemplateChoice(name, relativeTo: directory)
                    } else {
                        throw fail("'template' of the page entry for '\(text)' must be a path, \"default\" or null")
                    }
                }
            } else {
                throw fail("each entry of 'pages' must be a path, a glob, a URL, or { \"path\": …, \"template\": …, \"steps\": […] }")
            }
            let found: [(name: String, location: String)]
            do {
                found = try PageGlob.expand(pattern, relativeTo: directory)
            } catch {
                throw fail(error.description)
            }
            for page in found where !pages.contains(where: { $0.name == page.name }) {
                pages.append(Page(name: page.name, location: page.location, template: template, steps: steps))
            }
        }
        if let excluded = try list("exclude") {
            let patterns = try excluded.map { value throws(SuiteError) -> String in
                guard let text = value as? String else { throw fail("'exclude' must be a list of paths or globs") }
                return text
            }
            pages.removeAll { page in patterns.contains { fnmatch($0, page.name, 0) == 0 } }
            guard !pages.isEmpty else { throw fail("'exclude' leaves no page") }
        }
        let defaults = MeasureOptions()
        return RegressionSuite(path: path, pages: pages, widths: widths ?? [options.width],
                               fontSizes: fontSizes ?? [defaults.fontSize], zooms: zooms ?? [defaults.zoom],
                               options: options, tolerance: tolerance, keepsSnapshots: keepsSnapshots,
                               repeatCount: repeatCount)
    }

    private static func jsonErrorDetail(_ error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}

