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

    /// Checks that `html` has the placeholder.
    public init(html: String, origin: String = "the template", directory: String? = nil) throws(TemplateError) {
        guard html.contains(Self.placeholder) else { throw TemplateError(origin, "no \(Self.placeholder) placeholder to insert the article at") }
        self.html = html
        self.directory = directory
    }

    public static func load(_ path: String) throws(TemplateError) -> ReaderTemplate {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TemplateError(path, FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file")
        }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL
        return try ReaderTemplate(html: String(decoding: data, as: UTF8.self), origin: path,
                                  directory: absolute.deletingLastPathComponent().absoluteString)
    }

    /// The template with `fragment` at the placeholder (every occurrence).
    public func inserting(_ fragment: String) -> String {
        html.replacingOccurrences(of: Self.placeholder, with: fragment)
    }

    /// The page to measure for the fragment file at `path` (absolute).
    public func page(forFragmentAt path: String) throws(TemplateError) -> PageSource {
        guard let data = FileManager.default.contents(atPath: path) else { throw TemplateError(path, "cannot read the article fragment") }
        var fragmentDirectory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().absoluteString
        if !fragmentDirectory.hasSuffix("/") { fragmentDirectory += "/" }
        let fragment = String(decoding: data, as: UTF8.self)
        guard let directory else { return .html(inserting(fragment), baseURL: fragmentDirectory) }
        return .html(inserting(FragmentLinks.absolute(fragment, directory: fragmentDirectory)), baseURL: directory,
                     alsoReadable: fragmentDirectory == directory ? [] : [fragmentDirectory])
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
}
