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

    /// The built-in template: the same text as `Pages/templates/reader.html` (a test keeps them
    /// equal), so the binary needs no resource files.
    public static let standard = try! ReaderTemplate(html: standardHTML)

    static let standardHTML = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reader</title>
<style>
  /* pageheight's default reader view: an extracted article fragment goes where the
     placeholder is. Standards mode, UTF-8, named installed faces (DejaVu Serif, then
     Liberation Serif) so heights do not depend on fontconfig's choice of a default. */
  html { -webkit-text-size-adjust: 100%; }
  body { margin: 0; background: #fff; color: #1b1b1b; }
  article {
    box-sizing: border-box; max-width: 42em; margin: 0 auto; padding: 16px 20px 32px;
    font-family: "DejaVu Serif", "Liberation Serif", serif; font-size: 100%; line-height: 1.6;
    overflow-wrap: break-word;
  }
  article h1, article h2, article h3, article h4 { font-family: "DejaVu Sans", "Liberation Sans", sans-serif; line-height: 1.25; }
  article img, article video, article svg, article iframe { max-width: 100%; height: auto; }
  article figure { margin: 1em 0; }
  article pre { overflow-x: auto; font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.875em; }
  article code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; }
  article table { display: block; overflow-x: auto; border-collapse: collapse; }
  article blockquote { margin: 1em 0; padding-left: 1em; border-left: 3px solid #ccc; }
</style>
</head>
<body>
<article>
{{article}}
</article>
</body>
</html>
"""#
}
