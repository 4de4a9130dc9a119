import Foundation

extension RegressionSuite {
    /// The keys a suite file may have; any other key is an error (a typo would otherwise be
    /// silently ignored).
    static let keys: Set<String> = [
        "pages", "exclude", "widths", "fontSizes", "zooms", "template", "tolerancePx", "tolerancePercent", "snapshots", "repeat",
        "height", "metric", "until", "quiet", "timeout", "threshold", "schedule", "fit", "javascript", "offline",
        "header", "footer",
    ]

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

        var options = MeasureOptions()
        func number(_ key: String, _ range: ClosedRange<Double>) throws(SuiteError) -> Double? {
            guard let value = json[key] else { return nil }
            guard let number = value as? NSNumber, !isBoolean(value), range.contains(number.doubleValue) else {
                throw fail("'\(key)' must be a number between \(RegressionCase.format(range.lowerBound)) and \(RegressionCase.format(range.upperBound))")
            }
            return number.doubleValue
        }
        func whole(_ value: Any, _ key: String, _ range: ClosedRange<Int>) throws(SuiteError) -> Int {
            guard let number = value as? NSNumber, !isBoolean(value), number.doubleValue == number.doubleValue.rounded(),
                  range.contains(number.intValue) else {
                throw fail("'\(key)' takes whole numbers between \(range.lowerBound) and \(range.upperBound), got \(value)")
            }
            return number.intValue
        }
        func flag(_ key: String) throws(SuiteError) -> Bool? {
            guard let value = json[key] else { return nil }
            guard isBoolean(value), let bool = value as? Bool else { throw fail("'\(key)' must be true or false") }
            return bool
        }
        func list(_ key: String) throws(SuiteError) -> [Any]? {
            guard let value = json[key] else { return nil }
            guard let array = value as? [Any], !array.isEmpty else { throw fail("'\(key)' must be a non-empty list") }
            return array
        }

        if let value = json["height"] { options.height = try whole(value, "height", 1...100_000) }
        if let value = try number("quiet", 0...600) { options.quiet = value }
        if let value = try number("timeout", 0.1...86_400) { options.timeout = value }
        if let value = try number("threshold", 0...100_000) { options.threshold = value }
        if let value = try number("header", 0...1_000_000) { options.header = value }
        if let value = try number("footer", 0...1_000_000) { options.footer = value }
        if let value = try flag("fit") { options.fit = value }
        if let value = try flag("javascript") { options.javascript = value }
        if let text = json["offline"] as? String {
            guard let mode = OfflineMode(rawValue: text) else {
                throw fail("'offline' must be true, false, \"refuse\" or \"block\"")
            }
            options.offline = true
            options.offlineMode = mode
        } else if let value = try flag("offline") {
            options.offline = value
        }
        if let value = json["metric"] {
            guard let text = value as? String, let metric = HeightMetric(rawValue: text) else {
                throw fail("'metric' must be one of: " + HeightMetric.allCases.map(\.rawValue).joined(separator: ", "))
            }
            options.metric = metric
        }
        if let value = json["until"] {
            guard let text = value as? String, let rule = StopRule(rawValue: text) else {
                throw fail("'until' must be one of: settled, schedule, quick")
            }
            options.until = rule
        }
        if let value = try list("schedule") {
            let text = value.map { "\($0)" }.joined(separator: ",")
            guard value.allSatisfy({ $0 is NSNumber && !isBoolean($0) }), let schedule = GrowingDelaySchedule(parsing: text) else {
                throw fail("'schedule' must be a list of positive sleeps in seconds, e.g. [0.1, 0.2, 0.5]")
            }
            options.schedule = schedule
        }

        let widths = try list("widths").map { values throws(SuiteError) in try values.map { v throws(SuiteError) in try whole(v, "widths", 1...100_000) } }
        let fontSizes = try list("fontSizes").map { values throws(SuiteError) in try values.map { v throws(SuiteError) in try whole(v, "fontSizes", 1...500) } }
        let zooms = try list("zooms").map { values throws(SuiteError) -> [Double] in
            try values.map { v throws(SuiteError) -> Double in
                guard let n = v as? NSNumber, !isBoolean(v), (0.1...10).contains(n.doubleValue) else {
                    throw fail("'zooms' takes numbers between 0.1 and 10, got \(v)")
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
            if let text = entry as? String {
                pattern = text
            } else if let object = entry as? [String: Any], let text = object["path"] as? String {
                pattern = text
                if let unknown = object.keys.sorted().first(where: { !["path", "template"].contains($0) }) {
                    throw fail("unknown key '\(unknown)' in the page entry for '\(text)' (known: path, template)")
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
                throw fail("each entry of 'pages' must be a path, a glob, a URL, or { \"path\": …, \"template\": … }")
            }
            let found: [(name: String, location: String)]
            do {
                found = try PageGlob.expand(pattern, relativeTo: directory)
            } catch {
                throw fail(error.description)
            }
            for page in found where !pages.contains(where: { $0.name == page.name }) {
                pages.append(Page(name: page.name, location: page.location, template: template))
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
        return RegressionSuite(path: path, pages: pages, widths: widths ?? [defaults.width],
                               fontSizes: fontSizes ?? [defaults.fontSize], zooms: zooms ?? [defaults.zoom],
                               options: options, tolerance: tolerance, keepsSnapshots: keepsSnapshots,
                               repeatCount: repeatCount)
    }

    /// JSON `true`/`false`: on Linux every NSNumber casts to Bool, so ask for its type.
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(describing: type(of: number)).contains("Boolean") || String(cString: number.objCType) == "B"
    }

    private static func jsonErrorDetail(_ error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}
