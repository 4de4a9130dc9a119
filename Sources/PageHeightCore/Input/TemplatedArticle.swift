/// Which article fragment a page built from a reader template holds, and which template it was
/// put into: what the report names, since the page itself is HTML based at the template's folder.
public struct TemplatedArticle: Sendable, Equatable, Codable {
    /// The fragment's `file://` URL.
    public var url: String
    /// The template's path, or `default` for the built-in one.
    public var template: String

    public init(url: String, template: String) {
        (self.url, self.template) = (url, template)
    }
}
