import Foundation
import PageHeightCore

extension RegressionSuite {
    /// The keys a suite file may have; any other key is an error (a typo would otherwise be
    /// silently ignored). The measuring options' keys come from `MeasuringOption.all`.
    static let keys = Set(["pages", "exclude", "widths", "fontSizes", "zooms", "template", "tolerancePx", "tolerancePercent",
                           "snapshots", "repeat"] + MeasuringOption.suiteKeys)

    /// The largest suite file read: thousands of page entries.
    public static let fileByteLimit = 4 << 20

    /// Reads and resolves the suite file at `path` (globs are expanded against the file system).
    /// Its pages, templates and cookies file are files of its own folder (or below), links
    /// followed, unless `allowingOutside` (`check --allow-outside`): a suite may come from
    /// someone else, and `--update` renders its pages into snapshots.
    public static func load(_ path: String, allowingOutside: Bool = false) throws(SuiteError) -> RegressionSuite {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let data: Data
        do {
            data = try BoundedInput.read(path: absolute, limit: fileByteLimit)
        } catch {
            if case .tooLarge(let limit) = error { throw SuiteError(absolute, "larger than \(BoundedInput.size(limit)), the most a suite file may be") }
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory)
            throw SuiteError(absolute, !exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "cannot read the file")
        }
        return try parse(data, path: absolute, allowingOutside: allowingOutside)
    }

    /// Parses suite JSON for the suite file at `path` (absolute); expands its pages against the
    /// file system.
    public static func parse(_ data: Data, path: String, allowingOutside: Bool = false) throws(SuiteError) -> RegressionSuite {
        func fail(_ detail: String) -> SuiteError { SuiteError(path, detail) }
        let document: SuiteDocument
        do {
            document = try JSONDecoder().decode(SuiteDocument.self, from: data)
        } catch let problem as SuiteValueProblem {
            throw fail(problem.detail)
        } catch DecodingError.dataCorrupted(let context) {
            throw fail("not valid JSON: \(context.underlyingError.map(jsonErrorDetail) ?? context.debugDescription)")
        } catch {
            throw fail("expected a JSON object, e.g. { \"pages\": [\"a.html\"] }")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let variants = [("widths", document.widths?.count ?? 1), ("font sizes", document.fontSizes?.count ?? 1),
                        ("zooms", document.zooms?.count ?? 1)]
        // Before the pages are looked for, and again with them.
        if let problem = RegressionSuite.tooManyCases(variants) { throw fail(problem) }
        do throws(SuiteValueProblem) {
            let options = try document.measureOptions(relativeTo: directory, allowingOutside: allowingOutside)
            let pages = try document.resolvedPages(relativeTo: directory, allowingOutside: allowingOutside)
            if let problem = RegressionSuite.tooManyCases([("pages", pages.count)] + variants) { throw SuiteValueProblem(problem) }
            let defaults = MeasureOptions()
            return RegressionSuite(path: path, pages: pages, widths: document.widths ?? [options.width],
                                   fontSizes: document.fontSizes ?? [defaults.fontSize], zooms: document.zooms ?? [defaults.zoom],
                                   options: options, tolerance: document.tolerance, keepsSnapshots: document.snapshots ?? true,
                                   repeatCount: document.repeatCount ?? 1)
        } catch {
            throw fail(error.detail)
        }
    }

    private static func jsonErrorDetail(_ error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}


/// A suite file as written, decoded with `Codable`: one check for unknown keys, then each key's
/// value read by the code that knows what it means (`SuiteValue`, the option table), which words
/// any problem (`SuiteValueProblem`, thrown through the decoder).
struct SuiteDocument: Decodable {
    var pages: [PageEntry]
    var exclude: [String]?
    var widths: [Int]?
    var fontSizes: [Int]?
    var zooms: [Double]?
    var template: String?
    var tolerance: Tolerance
    var snapshots: Bool?
    var repeatCount: Int?
    /// The measuring options' keys as written, read by `MeasuringOption.readSuite`.
    var measuring: [String: JSONValue]

    /// One entry of `pages`: a path, glob or URL, or `{ "path", "template", "steps" }`.
    struct PageEntry: Decodable {
        var path: String
        /// nil: the suite's template; `.some(nil)`: none (`null`).
        var template: String??
        var steps: JSONValue?

        init(from decoder: Decoder) throws {
            try self.init(JSONValue(from: decoder))
        }

        init(_ value: JSONValue) throws(SuiteValueProblem) {
            if let text = value.string {
                path = text
                return
            }
            guard let object = value.object, let text = object["path"]?.string else {
                throw SuiteValueProblem("each entry of 'pages' must be a path, a glob, a URL, or { \"path\": …, \"template\": …, \"steps\": […] }")
            }
            path = text
            if let unknown = object.keys.sorted().first(where: { !["path", "template", "steps"].contains($0) }) {
                throw SuiteValueProblem("unknown key '\(unknown)' in the page entry for '\(text)'"
                    + NearestName.hint(for: unknown, among: ["path", "template", "steps"]) + " (known: path, template, steps)")
            }
            steps = object["steps"]
            switch object["template"] {
            case nil: template = nil
            case .null?: template = .some(nil)
            case let value?:
                guard let name = SuiteValue.text(value) else {
                    throw SuiteValueProblem("'template' of the page entry for '\(text)' must be a path, \"default\" or null")
                }
                template = name
            }
        }
    }

    init(from decoder: Decoder) throws {
        guard let json = try JSONValue(from: decoder).object else {
            throw SuiteValueProblem("expected a JSON object, e.g. { \"pages\": [\"a.html\"] }")
        }
        if let unknown = json.keys.sorted().first(where: { !RegressionSuite.keys.contains($0) }) {
            throw SuiteValueProblem("unknown key '\(unknown)'" + NearestName.hint(for: unknown, among: Array(RegressionSuite.keys))
                + " (known: \(RegressionSuite.keys.sorted().joined(separator: ", ")))")
        }
        guard let declared = json["pages"] else {
            throw SuiteValueProblem("missing 'pages' (a list of paths relative to the suite file, globs, or URLs)")
        }
        pages = try SuiteValue.list(declared, "pages").map { entry throws(SuiteValueProblem) in try PageEntry(entry) }
        exclude = try json["exclude"].map { value throws(SuiteValueProblem) in
            try SuiteValue.list(value, "exclude").map { item throws(SuiteValueProblem) in
                guard let text = item.string else { throw SuiteValueProblem("'exclude' must be a list of paths or globs") }
                return text
            }
        }
        widths = try Self.wholes(json["widths"], "widths", MeasuringOption.widthRange)
        fontSizes = try Self.wholes(json["fontSizes"], "fontSizes", MeasuringOption.fontSizeRange)
        zooms = try json["zooms"].map { value throws(SuiteValueProblem) in
            try SuiteValue.list(value, "zooms").map { item throws(SuiteValueProblem) in
                guard let zoom = item.number, MeasuringOption.zoomRange.contains(zoom) else {
                    throw SuiteValueProblem("'zooms' takes numbers between \(RegressionCase.format(MeasuringOption.zoomRange.lowerBound)) and "
                        + "\(RegressionCase.format(MeasuringOption.zoomRange.upperBound)), got \(item)")
                }
                return zoom
            }
        }
        if let value = json["template"] {
            guard let text = SuiteValue.text(value) else { throw SuiteValueProblem("'template' must be a path or \"default\"") }
            template = text
        }
        tolerance = Tolerance(pixels: try json["tolerancePx"].map { v throws(SuiteValueProblem) in try SuiteValue.number(v, "tolerancePx", 0...1_000_000) },
                              percent: try json["tolerancePercent"].map { v throws(SuiteValueProblem) in try SuiteValue.number(v, "tolerancePercent", 0...100) })
        snapshots = try json["snapshots"].map { v throws(SuiteValueProblem) in try SuiteValue.flag(v, "snapshots") }
        repeatCount = try json["repeat"].map { v throws(SuiteValueProblem) in try SuiteValue.whole(v, "repeat", 1...100) }
        measuring = json.filter { key, _ in MeasuringOption.suiteKeys.contains(key) }
    }

    private static func wholes(_ value: JSONValue?, _ key: String, _ range: ClosedRange<Int>) throws(SuiteValueProblem) -> [Int]? {
        try value.map { value throws(SuiteValueProblem) in
            try SuiteValue.list(value, key).map { item throws(SuiteValueProblem) in try SuiteValue.whole(item, key, range) }
        }
    }

    /// The measuring options the suite sets, over the defaults; a path is taken relative to the
    /// suite file's folder.
    func measureOptions(relativeTo directory: String, allowingOutside: Bool = true) throws(SuiteValueProblem) -> MeasureOptions {
        var options = MeasureOptions()
        for option in MeasuringOption.all {
            guard case .value(let key) = option.suiteKey, var value = measuring[key] else { continue }
            if option.suiteValueIsPath, let path = value.string {
                let absolute = path.hasPrefix("/") ? path
                    : URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).standardizedFileURL.path
                if !allowingOutside { try Self.checkInside(absolute, as: "'\(key)' \(path)", folder: directory) }
                value = .string(absolute)
            }
            try option.readSuite(value, key, &options)
        }
        options.takeDeviceViewport(keepingWidth: widths != nil, keepingHeight: measuring["height"] != nil)
        return options
    }

    /// The pages, globs expanded against the file system, each once, without the excluded ones.
    func resolvedPages(relativeTo directory: String, allowingOutside: Bool = true) throws(SuiteValueProblem) -> [RegressionSuite.Page] {
        let suiteTemplate = template.map { RegressionSuite.TemplateChoice($0, relativeTo: directory) }
        if !allowingOutside, case .file(let path)? = suiteTemplate { try Self.checkInside(path, as: "the template \(template!)", folder: directory) }
        var resolved: [RegressionSuite.Page] = []
        for entry in pages {
            var template = suiteTemplate
            if let own = entry.template { template = own.map { RegressionSuite.TemplateChoice($0, relativeTo: directory) } }
            if !allowingOutside, let own = entry.template, case .file(let path)? = own.map({ RegressionSuite.TemplateChoice($0, relativeTo: directory) }) {
                try Self.checkInside(path, as: "the template of '\(entry.path)'", folder: directory)
            }
            var steps: [PageStep]?
            if let value = entry.steps {
                var pageOptions = MeasureOptions()
                try MeasuringOption.then.readSuite(value, "steps", &pageOptions)
                steps = pageOptions.steps ?? []
            }
            let found: [(name: String, location: String)]
            do {
                found = try PageGlob.expand(entry.path, relativeTo: directory)
            } catch {
                throw SuiteValueProblem(error.description)
            }
            if !allowingOutside {
                for page in found {
                    guard let path = Self.filePath(page.location) else { continue } // http(s), data:, about:
                    try Self.checkInside(path, as: "the page '\(page.name)'", folder: directory)
                }
            }
            for page in found where !resolved.contains(where: { $0.name == page.name }) {
                resolved.append(RegressionSuite.Page(name: page.name, location: page.location, template: template, steps: steps))
            }
        }
        if let exclude {
            resolved.removeAll { page in exclude.contains { fnmatch($0, page.name, 0) == 0 } }
            guard !resolved.isEmpty else { throw SuiteValueProblem("'exclude' leaves no page") }
        }
        return resolved
    }

    /// The file a page's location names: its path, or a `file:` URL's; nil for other URLs.
    static func filePath(_ location: String) -> String? {
        if location.hasPrefix("/") { return location }
        guard location.lowercased().hasPrefix("file:") else { return nil }
        return URL(string: location).map(\.path) ?? String(location.dropFirst("file:".count))
    }

    /// Throws unless `path` is in `folder` or below it, both with their links followed (a link
    /// in the folder to a file elsewhere is elsewhere). A path that does not exist is judged as
    /// written; what is missing is said later.
    static func checkInside(_ path: String, as what: String, folder: String) throws(SuiteValueProblem) {
        func real(_ path: String) -> String {
            guard let resolved = realpath(path, nil) else { return URL(fileURLWithPath: path).standardizedFileURL.path }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let base = real(folder), file = real(path)
        guard file != base, !file.hasPrefix(base == "/" ? "/" : base + "/") else { return }
        throw SuiteValueProblem("\(what) is outside the suite's folder \(base): a suite names files of its own folder, "
            + "since it may come from someone else; 'pageheight check --allow-outside' lets it name \(file)")
    }
}
