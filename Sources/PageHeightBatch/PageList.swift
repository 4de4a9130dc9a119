import Foundation
import PageHeightCore

/// The pages of a batch: a list file (one URL or path a line; blank lines and `#` comments
/// ignored), standard input (`-`), or a directory (every `.html` under it, sorted).
/// Relative paths in a list file are relative to the list file's directory.
public struct PageList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable, Codable {
        /// The entry's 0-based position in the whole list (before sharding).
        public var index: Int
        /// The entry as written (a URL or a path, resolved against the list's directory).
        public var page: String

        public init(index: Int, page: String) {
            (self.index, self.page) = (index, page)
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses the text of a list file: lines end in LF, CR LF or CR alone; a UTF-8 byte order
    /// mark at the start is not part of the first entry.
    public init(text: String, baseDirectory: String) {
        var pages: [String] = []
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            pages.append(Self.resolve(line, against: baseDirectory))
        }
        entries = pages.enumerated().map { Entry(index: $0.offset, page: $0.element) }
    }

    /// The most a list may hold, in bytes: millions of URLs.
    public static let byteLimit = 256 << 20
    /// The longest line of a list, in bytes: as much as one command-line argument holds
    /// (Linux's `MAX_ARG_STRLEN`), so a list names any page a command line could. A report
    /// repeats its page's URL: a longer line would make report lines of its size.
    public static let lineLimit = 128 << 10

    /// Reads a list argument: `-` (stdin), a directory, or a list file.
    /// - Parameter glob: for a directory, only the `.html` files whose path below it matches
    ///   (`fnmatch`, `*` matching `/` too: `*/reader.html`); a list file or stdin takes none.
    public static func read(_ argument: String, glob: String? = nil,
                            currentDirectory: String = FileManager.default.currentDirectoryPath,
                            standardInput: () throws -> Data? = { try readStandardInput() }) throws -> PageList {
        if let glob {
            let path = argument.hasPrefix("/") ? argument : URL(fileURLWithPath: currentDirectory).appendingPathComponent(argument).path
            var isDirectory: ObjCBool = false
            guard argument != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("'--glob' chooses files under a directory; \(argument == "-" ? "standard input" : argument) is "
                    + "not one (a list names its pages itself)")
            }
            let files = htmlFiles(under: path).filter { matches(glob, relativePath(of: $0, under: path)) }
            guard !files.isEmpty else {
                throw UsageError("no .html file under the directory \(path) matches --glob '\(glob)' (a path below it, `*` matching `/` too)")
            }
            return PageList(entries: files.enumerated().map { Entry(index: $0.offset, page: $0.element) })
        }
        if argument == "-" {
            let data = try standardInput() ?? Data()
            try checkLines(data, argument)
            return try nonEmpty(PageList(text: String(decoding: data, as: UTF8.self), baseDirectory: currentDirectory), argument)
        }
        let path = argument.hasPrefix("/") ? argument
            : URL(fileURLWithPath: currentDirectory).appendingPathComponent(argument).path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError.missingFile(path)
        }
        if isDirectory.boolValue {
            let files = htmlFiles(under: path)
            guard !files.isEmpty else { throw InputError.noPages(path, directory: true) }
            return PageList(entries: files.enumerated().map { Entry(index: $0.offset, page: $0.element) })
        }
        let data: Data
        do {
            data = try BoundedInput.read(path: path, limit: byteLimit)
        } catch {
            if case .tooLarge(let limit) = error { throw InputError.listTooLarge(path, limit: limit) }
            throw InputError.unreadable(path)
        }
        try checkLines(data, path)
        return try nonEmpty(PageList(text: String(decoding: data, as: UTF8.self),
                                     baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path), path)
    }

    /// A list on standard input, read to its end or to `byteLimit`.
    public static func readStandardInput() throws -> Data {
        do {
            return try BoundedInput.read(descriptor: STDIN_FILENO, limit: byteLimit)
        } catch {
            if case .tooLarge(let limit) = error { throw InputError.listTooLarge("-", limit: limit) }
            throw InputError.standardInputUnreadable("\(error)")
        }
    }

    /// Throws for the first line longer than `lineLimit` (any end of line counts: LF, CR).
    static func checkLines(_ data: Data, _ name: String) throws {
        let long: Int? = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            var number = 1, length = 0
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == 0x0A || byte == 0x0D {
                    if !(byte == 0x0A && previous == 0x0D) { number += 1 }
                    length = 0
                } else {
                    length += 1
                    if length > lineLimit { return number }
                }
                previous = byte
            }
            return nil
        }
        if let long { throw InputError.listLineTooLong(name, line: long, limit: lineLimit) }
    }

    private static func nonEmpty(_ list: PageList, _ name: String) throws -> PageList {
        guard !list.entries.isEmpty else { throw InputError.noPages(name, directory: false) }
        return list
    }

    /// Whether `path` (relative) matches `glob`, `*` matching `/` too.
    static func matches(_ glob: String, _ path: String) -> Bool {
        fnmatch(glob, path, 0) == 0
    }

    static func relativePath(of file: String, under directory: String) -> String {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return file.hasPrefix(base) ? String(file.dropFirst(base.count)) : file
    }

    /// Every `.html` file under `directory`, recursively, sorted by path (byte order). Symbolic
    /// links to folders are followed (a folder of links to article folders is a list too), each
    /// folder once: a link back up is not followed again.
    static func htmlFiles(under directory: String) -> [String] {
        var files: [String] = []
        var seen: Set<String> = []
        func walk(_ folder: String) {
            guard let real = realpath(folder, nil) else { return }
            defer { free(real) }
            guard seen.insert(String(cString: real)).inserted,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
            for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) { // the first path to a folder wins
                let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue { walk(path) } else if name.lowercased().hasSuffix(".html") { files.append(path) }
            }
        }
        walk(directory)
        return files.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// An entry as a URL or a path made absolute against `base`. Something that looks like a URL
    /// of a scheme pageheight does not load (`a:b.html`) is a path when a file of that name is
    /// next to the list, else kept as written (and then refused as an unsupported scheme).
    private static func resolve(_ entry: String, against base: String) -> String {
        if entry == "-" || entry.hasPrefix("/") { return entry }
        let path = URL(fileURLWithPath: base).appendingPathComponent(entry).path
        if let scheme = PageSource.schemeOf(entry) {
            if PageSource.loadedSchemes.contains(scheme) || !FileManager.default.fileExists(atPath: path) { return entry }
        }
        return path
    }
}

/// `--shard K/N`: the slice of a list that machine K of N measures (K from 1).
///
/// An entry belongs to the shard picked by a stable hash (FNV-1a) of its text, so every entry
/// is in exactly one shard, the split needs no coordinator, it does not change from run to run
/// or machine to machine, and adding entries to the list does not move the others. Each shard
/// keeps list order and the entries' indexes in the whole list, so outputs concatenate.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public var number: Int
    public var count: Int

    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else { return nil }
        number = k
        count = n
    }

    public var description: String { "\(number)/\(count)" }

    public func contains(_ entry: PageList.Entry) -> Bool {
        Int(Self.fnv1a(entry.page) % UInt64(count)) == number - 1
    }

    public func slice(_ list: PageList) -> PageList {
        PageList(entries: list.entries.filter(contains))
    }

    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
