import Foundation
import PageHeightCore

/// One page to measure as a client asks for it (`POST /v1/measure`'s body, one line of
/// `/v1/batch`): `{"url"}` or `{"html", "baseURL"}` (with `"template": "default"`: an article
/// fragment put into the built-in reader template), `"options"` and `"steps"`.
///
/// The trust boundary is the command line's, narrowed: an `http(s):`, `data:` or `about:` URL; a
/// `file:` URL or a path only under the pages folder (`--pages-dir`), none without one; HTML whose
/// base is an `http(s):` URL or none (`about:blank`), so it reads no local file.
public struct MeasureRequest: Sendable {
    public var page: PageSource
    /// One set of options per combination of widths, font sizes and zooms.
    public var combinations: [MeasureOptions]
    /// Whether the answer is a list of reports (a list of widths, font sizes or zooms was given).
    public var isList: Bool

    /// The host of the page's URL, for the log (never a path, a query or a cookie).
    public var host: String? {
        guard case .url(let text) = page else { return nil }
        return URLComponents(string: text)?.host
    }

    static let keys = ["url", "html", "baseURL", "template", "options", "steps"]

    /// Reads a request body (a JSON object).
    public static func parse(_ data: Data, settings: ServeSettings) throws(APIError) -> MeasureRequest {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .badRequest("the body is not JSON: \(Self.detail(error))")
        }
        return try parse(value, settings: settings)
    }

    public static func parse(_ value: JSONValue, settings: ServeSettings) throws(APIError) -> MeasureRequest {
        guard let object = value.object else {
            throw .badRequest("expected a JSON object, e.g. {\"url\": \"https://example.com/article\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .badRequest("unknown key '\(unknown)' (known: \(keys.joined(separator: ", ")))", field: unknown)
        }
        let page = try self.page(object, pagesDirectory: settings.pagesDirectory)
        var options: [String: JSONValue]?
        if let given = object["options"] {
            guard let dictionary = given.object else { throw .badRequest("'options' must be a JSON object", field: "options") }
            options = dictionary
        }
        let read = try RequestOptions.read(options, steps: object["steps"], defaults: settings.defaults, limits: settings.limits)
        return MeasureRequest(page: page, combinations: read.combinations, isList: read.isList)
    }

    private static func page(_ object: [String: JSONValue], pagesDirectory: String?) throws(APIError) -> PageSource {
        switch (object["url"], object["html"]) {
        case (nil, nil): throw .badRequest("missing 'url' or 'html': the page to measure", field: "url")
        case (.some, .some): throw .badRequest("give 'url' or 'html', not both", field: "html")
        case (let url?, nil):
            for key in ["baseURL", "template"] where object[key] != nil {
                throw .badRequest("'\(key)' goes with 'html', not with 'url'", field: key)
            }
            guard let text = url.string, !text.isEmpty else { throw .badRequest("'url' must be a non-empty string", field: "url") }
            return try urlPage(text, pagesDirectory: pagesDirectory)
        case (nil, let html?):
            guard let text = html.string else { throw .badRequest("'html' must be a string", field: "html") }
            var base = "about:blank"
            if let given = object["baseURL"] {
                guard let text = given.string, let scheme = PageSource.schemeOf(text), ["http", "https"].contains(scheme),
                      URLComponents(string: text)?.host?.isEmpty == false else {
                    throw .badRequest("'baseURL' must be an http(s) URL (HTML given in a request reads no local file)", field: "baseURL")
                }
                base = text
            }
            switch object["template"] {
            case nil:
                return .html(text, baseURL: base)
            case .string("default")?:
                return .html(ReaderTemplate.standard.inserting(text), baseURL: base)
            default:
                throw .badRequest("'template' takes \"default\" (the built-in reader template)", field: "template")
            }
        }
    }

    /// An http(s), data: or about: URL; a file: URL or path under the pages folder.
    private static func urlPage(_ text: String, pagesDirectory: String?) throws(APIError) -> PageSource {
        let scheme = PageSource.schemeOf(text)
        if let scheme, scheme != "file" {
            guard ["http", "https", "data", "about"].contains(scheme) else {
                throw .badRequest("unsupported URL scheme '\(scheme):': use http(s)://, data: or about:", field: "url")
            }
            do {
                return try PageSource.parse(text, standardInput: { nil })
            } catch {
                throw .badRequest("\(error)", field: "url")
            }
        }
        guard let pagesDirectory else {
            throw .badRequest("this server measures no local files (start it with --pages-dir DIR to allow those under DIR)", field: "url")
        }
        let path: String
        if scheme == "file" {
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                throw .badRequest("malformed file: URL", field: "url")
            }
            path = url.path
        } else {
            path = text.hasPrefix("/") ? text : pagesDirectory + "/" + text
        }
        // The page as the file system resolves it (links followed, `..` gone) must be inside.
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        guard resolved.hasPrefix(pagesDirectory.hasSuffix("/") ? pagesDirectory : pagesDirectory + "/") else {
            throw .badRequest("not under the pages folder: \(text)", field: "url")
        }
        do {
            return try PageSource.parse(resolved, standardInput: { nil })
        } catch {
            throw .badRequest("\(error)", field: "url")
        }
    }

    private static func detail(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = context.underlyingError.map { ($0 as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\($0)" }
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
