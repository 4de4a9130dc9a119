import Foundation
#if canImport(Glibc)
import Glibc
import PageHeightCore
#endif

/// Expands a suite's page entry: a URL stays as it is; a path or glob (`*`, `?`, `[…]`) is
/// matched against the file system relative to the suite's directory, sorted.
public enum PageGlob {
    public struct NoMatch: Error, CustomStringConvertible {
        public var pattern: String
        public var isGlob: Bool
        public var description: String {
            isGlob ? "no page matches '\(pattern)'" : "no such file: \(pattern)"
        }
    }

    /// `(name, location)` pairs: `name` is the path relative to `directory` (or the URL),
    /// `location` the absolute path (or the URL).
    public static func expand(_ pattern: String, relativeTo directory: String) throws(NoMatch) -> [(name: String, location: String)] {
        if isURL(pattern) { return [(pattern, pattern)] }
        let absolute = pattern.hasPrefix("/") ? pattern : directory + "/" + pattern
        guard isGlob(pattern) else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw NoMatch(pattern: pattern, isGlob: false)
            }
            return [(pattern, URL(fileURLWithPath: absolute).standardizedFileURL.path)]
        }
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(absolute, 0, nil, &result) == 0 else { throw NoMatch(pattern: pattern, isGlob: true) }
        var matches: [(String, String)] = []
        for index in 0..<Int(result.gl_pathc) {
            guard let cString = result.gl_pathv[index] else { continue }
            let match = String(cString: cString)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: match, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let name = pattern.hasPrefix("/") ? match : String(match.dropFirst(directory.count + 1))
            matches.append((name, URL(fileURLWithPath: match).standardizedFileURL.path))
        }
        guard !matches.isEmpty else { throw NoMatch(pattern: pattern, isGlob: true) }
        return matches.sorted { $0.0 < $1.0 }
    }

    static func isGlob(_ text: String) -> Bool { text.contains { "*?[".contains($0) } }

    static func isURL(_ text: String) -> Bool {
        ["http://", "https://", "file://", "data:", "about:"].contains { text.lowercased().hasPrefix($0) }
    }
}
