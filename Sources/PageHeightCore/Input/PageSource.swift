import Foundation

/// A page to measure: a URL, a local file, or HTML given directly.
public enum PageSource: Sendable, Equatable, Codable {
    /// An http(s), data: or about: URL.
    case url(String)
    /// An absolute path to a local file (loaded as a file:// URI).
    case file(String)
    /// HTML text, with the base URL that resolves its relative links, directories (`file://`
    /// URLs ending in `/`) it may read besides the base's (a template's fragment's), and, for an
    /// article fragment put into a reader template, which fragment and which template.
    case html(String, baseURL: String, alsoReadable: [String] = [], article: TemplatedArticle? = nil)

    /// The URL the report names: the page's, a fragment's (not its template's folder), or the base
    /// of HTML given as text.
    public var url: String {
        switch self {
        case .url(let url): url
        case .file(let path): URL(fileURLWithPath: path).absoluteString
        case .html(_, _, _, let article?): article.url
        case .html(_, let base, _, nil): base
        }
    }

    /// The folders this page may read files from: a file page's folder; a page given as text, its
    /// base's folder and the folders it may also read, where they are `file:` URLs.
    public var readableFolders: [String] {
        switch self {
        case .url: return []
        case .file(let path): return [(path as NSString).deletingLastPathComponent]
        case .html(_, let base, let also, _):
            return ([base] + also).compactMap { text -> String? in
                guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else { return nil }
                return text.hasSuffix("/") ? url.path : url.deletingLastPathComponent().path
            }
        }
    }

    /// The reader template the page was put into (its path, or `default`), nil for a page
    /// measured as it is.
    public var template: String? {
        if case .html(_, _, _, let article?) = self { return article.template }
        return nil
    }

    /// The most HTML a page given as text may have (on standard input, or a reader template with
    /// its fragment): 20 times the largest page of the article corpus. More is an error, not read
    /// (`pageheight - < /dev/zero`).
    public static let standardInputLimit = 32 << 20

    /// The HTML on standard input, read to its end: at most `standardInputLimit` bytes, and only
    /// for `seconds` (the page's `--timeout`: a pipe that never closes is no page).
    public static func readStandardInput(seconds: Double) throws(InputError) -> Data {
        do {
            return try BoundedInput.read(descriptor: STDIN_FILENO, limit: standardInputLimit, seconds: seconds)
        } catch {
            switch error {
            case .tooLarge: throw .standardInputTooLarge(limit: standardInputLimit)
            case .noEnd(let seconds, let read): throw .standardInputNotEnded(seconds: seconds, read: read)
            case .unreadable(let code): throw .standardInputUnreadable(String(cString: strerror(code)))
            }
        }
    }

    /// Reads a command-line page argument: `-` for HTML on stdin, a URL, or a file path.
    public static func parse(_ argument: String, currentDirectory: String = FileManager.default.currentDirectoryPath,
                             standardInput: () throws -> Data? = { try readStandardInput(seconds: MeasureOptions().timeout) }) throws -> PageSource {
        if argument == "-" {
            guard let data = try standardInput(), !data.isEmpty else { throw InputError.emptyStandardInput }
            let html = String(decoding: data, as: UTF8.self)
            let base = URL(fileURLWithPath: currentDirectory, isDirectory: true).absoluteString
            return .html(html, baseURL: base)
        }
        guard !argument.isEmpty else { throw InputError.malformedURL(argument, reason: "the page is an empty string") }
        if let scheme = schemeOf(argument) {
            switch scheme {
            case "http", "https":
                guard let components = URLComponents(string: argument), let host = components.host, !host.isEmpty,
                      URL(string: argument) != nil else {
                    throw InputError.malformedURL(argument, reason: "expected http(s)://host/path")
                }
                return .url(argument)
            case "file":
                guard let url = URL(string: argument), url.isFileURL, !url.path.isEmpty else {
                    throw InputError.malformedURL(argument, reason: "expected file:///absolute/path")
                }
                return try file(at: url.path)
            case "data", "about":
                guard URL(string: argument) != nil else {
                    throw InputError.malformedURL(argument, reason: "not a valid \(scheme): URL")
                }
                return .url(argument)
            default:
                // A relative path with a colon in it (`a:b.html`) that names a file is that file.
                let path = URL(fileURLWithPath: currentDirectory, isDirectory: true).appendingPathComponent(argument).path
                if FileManager.default.fileExists(atPath: path) { return try file(at: path) }
                throw InputError.unsupportedScheme(argument, scheme: scheme)
            }
        }
        let path = argument.hasPrefix("/") ? argument
            : URL(fileURLWithPath: currentDirectory, isDirectory: true).appendingPathComponent(argument).path
        return try file(at: path)
    }

    private static func file(at path: String) throws -> PageSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError.missingFile(path)
        }
        guard !isDirectory.boolValue else { throw InputError.isDirectory(path) }
        guard FileManager.default.isReadableFile(atPath: path) else { throw InputError.unreadable(path) }
        return .file(URL(fileURLWithPath: path).standardizedFileURL.path)
    }

    /// The URL schemes pageheight loads.
    package static let loadedSchemes: Set<String> = ["http", "https", "file", "data", "about"]

    /// The scheme of `text` when it looks like a URL (`scheme:` with letters first), else nil.
    /// A Windows-style or relative path such as `pages/a:b.html` is not a URL.
    package static func schemeOf(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }
}

/// Why a page argument cannot be measured; described as "what failed: detail".
public enum InputError: Error, Equatable, CustomStringConvertible {
    case missingFile(String)
    case isDirectory(String)
    case unreadable(String)
    case malformedURL(String, reason: String)
    case unsupportedScheme(String, scheme: String)
    case emptyStandardInput
    /// Standard input held more than `limit` bytes.
    case standardInputTooLarge(limit: Int)
    /// Standard input had not ended after `seconds` (the `--timeout`), `read` bytes by then.
    case standardInputNotEnded(seconds: Double, read: Int)
    case standardInputUnreadable(String)
    /// A batch list with no page in it: a directory with no `.html` file under it, or a list
    /// of only blank lines and comments.
    case noPages(String, directory: Bool)
    /// A batch list larger than `limit` bytes.
    case listTooLarge(String, limit: Int)
    /// A batch list's line `line` is longer than `limit` bytes.
    case listLineTooLong(String, line: Int, limit: Int)

    public var description: String {
        switch self {
        case .missingFile(let path): "no such file: \(path)"
        case .isDirectory(let path): "is a directory, not a page: \(path)"
        case .unreadable(let path): "cannot read file: \(path)"
        case .malformedURL(let url, let reason): "malformed URL '\(url)': \(reason)"
        case .unsupportedScheme(let url, let scheme):
            "unsupported URL scheme '\(scheme):' in '\(url.prefix(80))': use http(s)://, file://, data:, about:, a file path, or - for stdin"
        case .emptyStandardInput: "no HTML on standard input (the page '-' reads it)"
        case .standardInputTooLarge(let limit):
            "standard input holds more than \(BoundedInput.size(limit)), the most a page read from it ('-') may have"
        case .standardInputNotEnded(let seconds, let read):
            "standard input did not end within \(DecimalText.format(seconds)) s (--timeout; \(read) bytes read by then): "
                + "the page '-' is read to its end before it is measured"
        case .standardInputUnreadable(let reason): "cannot read standard input: \(reason)"
        case .listTooLarge(let list, let limit):
            "\(list == "-" ? "the list on standard input" : list) holds more than \(BoundedInput.size(limit)), the most a list may hold"
        case .listLineTooLong(let list, let line, let limit):
            "line \(line) of \(list == "-" ? "the list on standard input" : list) is longer than \(BoundedInput.size(limit)), "
                + "the longest page a list may name (as long as one command-line argument)"
        case .noPages(let list, let directory):
            directory ? "no .html file under the directory \(list)"
                : "no page in \(list == "-" ? "the list on standard input" : list) (only blank lines and # comments)"
        }
    }
}
