import Foundation

/// A reader-view page that an extracted article fragment is inserted into, as reader apps do
/// (a bare `<div id="readability-page-1">…` has no doctype, charset or CSS of its own).
///
/// The fragment replaces the placeholder `{{article}}`. The inserted page is loaded as HTML
/// text (so it is UTF-8 whatever the fragment declares). A template read from a file is based
/// at its own directory, so its stylesheets, scripts and fonts resolve as they do beside it;
/// the fragment's relative links are made absolute against the fragment's directory
/// (`FragmentLinks`), and the page may read both directories. The built-in template has no
/// links: it is based at the fragment's directory.
public struct ReaderTemplate: Sendable, Equatable {
    public static let placeholder = "{{article}}"

    public var html: String
    /// The directory of the template's file (a `file://` URL ending in `/`); nil for the
    /// built-in template.
    public var directory: String?
    /// What the report names as the template: its file's absolute path, or `default` for the
    /// built-in one.
    public var name: String

    /// Checks that `html` has the placeholder.
    public init(html: String, origin: String = "the template", directory: String? = nil, name: String = "default") throws(TemplateError) {
        guard html.contains(Self.placeholder) else { throw TemplateError(origin, "no \(Self.placeholder) placeholder to insert the article at") }
        self.html = html
        self.directory = directory
        self.name = name
    }

    public static func load(_ path: String) throws(TemplateError) -> ReaderTemplate {
        let data = try read(path, what: "the file")
        let absolute = URL(fileURLWithPath: path).standardizedFileURL
        return try ReaderTemplate(html: String(decoding: data, as: UTF8.self), origin: path,
                                  directory: absolute.deletingLastPathComponent().absoluteString, name: absolute.path)
    }

    /// The template with `fragment` at the placeholder (every occurrence).
    public func inserting(_ fragment: String) -> String {
        html.replacingOccurrences(of: Self.placeholder, with: fragment)
    }

    /// The page to measure for the fragment file at `path` (absolute); its `url` is the fragment's
    /// and its `template` this template's name.
    public func page(forFragmentAt path: String) throws(TemplateError) -> PageSource {
        let data = try Self.read(path, what: "the article fragment")
        let copies = html.components(separatedBy: Self.placeholder).count - 1
        let size = html.utf8.count + copies * data.count
        guard size <= PageSource.standardInputLimit else {
            throw TemplateError(path, "the template takes \(copies) copies of it: \(size) bytes, more than \(BoundedInput.size(PageSource.standardInputLimit)), the most a page given as text may have")
        }
        var fragmentDirectory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().absoluteString
        if !fragmentDirectory.hasSuffix("/") { fragmentDirectory += "/" }
        let fragment = String(decoding: data, as: UTF8.self)
        let article = TemplatedArticle(url: URL(fileURLWithPath: path).standardizedFileURL.absoluteString, template: name)
        guard let directory else { return .html(inserting(fragment), baseURL: fragmentDirectory, article: article) }
        return .html(inserting(FragmentLinks.absolute(fragment, directory: fragmentDirectory)), baseURL: directory,
                     alsoReadable: fragmentDirectory == directory ? [] : [fragmentDirectory], article: article)
    }

    /// Why the file at `path` is not an article fragment, when it is a whole document (a doctype
    /// or an `<html>` element before any text): the template would nest one document in another.
    /// Nil for a fragment, or a file that cannot be read (the measurement says so).
    public static func wholeDocumentWarning(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let start = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self).lowercased()
        let trimmed = start.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        guard trimmed.hasPrefix("<!doctype") || trimmed.hasPrefix("<html") || trimmed.hasPrefix("<?xml") else { return nil }
        return "\(path) is a whole document, not an article fragment: the template nests one document inside another "
            + "(measure it without --template, or give its article's fragment)"
    }

    /// The built-in template, `Templates/reader.html` compiled into the binary (no resource files
    /// to find at run time). `Pages/templates/reader.html` is a link to it.
    public static let standard = try! ReaderTemplate(html: String(decoding: PackageResources.reader_html, as: UTF8.self))

    /// A template or a fragment, at most `PageSource.standardInputLimit` bytes (a page given as
    /// text, as on standard input).
    private static func read(_ path: String, what: String) throws(TemplateError) -> Data {
        do {
            return try BoundedInput.read(path: path, limit: PageSource.standardInputLimit)
        } catch {
            if case .tooLarge(let limit) = error { throw TemplateError(path, "larger than \(BoundedInput.size(limit)), the most a page given as text may have") }
            throw TemplateError(path, FileManager.default.fileExists(atPath: path) ? "cannot read \(what)" : "no such file")
        }
    }
}
