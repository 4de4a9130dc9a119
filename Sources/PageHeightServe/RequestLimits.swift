/// The sizes a request may have, each refused with its own status: the body (413), the header
/// fields (431), the request target (414), and the pages one request may ask for.
public struct RequestLimits: Sendable, Equatable {
    /// Bytes of a request body (`--max-body`): an article's HTML, escaped as a JSON string, is
    /// about as large as the page.
    public var bodyBytes = 8 << 20
    /// Bytes of all header fields together, names and values.
    public var headerBytes = 16 << 10
    /// Bytes of the request target (path and query).
    public var targetBytes = 4 << 10
    /// Combinations of widths, font sizes and zooms in one measurement request.
    public var combinations = 64
    /// Lines of one batch request.
    public var batchLines = 10_000

    public init() {}
}
