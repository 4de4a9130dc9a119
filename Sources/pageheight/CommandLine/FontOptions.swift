import Foundation
import PageHeightCore

/// `--fonts MODE` and `--font-dir DIR`: engine settings (one font configuration per process),
/// read by the single-page, batch, check and sweep parsers alike.
extension FontChoice {
    static let switches: Set<String> = ["--fonts", "--font-dir"]

    /// Reads `--fonts` or `--font-dir` into `fonts`.
    static func read(_ given: inout GivenOption, into fonts: inout FontChoice?) throws(UsageError) {
        var choice = fonts ?? FontChoice()
        switch given.name {
        case "--fonts":
            choice.mode = try given.value(Mode.init(rawValue:), refusal: { "unknown value '\($0)' for '--fonts' (one of: pinned, system)" })
        default:
            let directory = try given.value()
            guard !directory.isEmpty else { throw UsageError("'--font-dir' takes a directory, got ''") }
            let path = URL(fileURLWithPath: directory).standardizedFileURL.path
            if !choice.directories.contains(path) { choice.directories.append(path) }
        }
        fonts = choice
    }

    /// A `--font-dir` must be a directory that holds a font file somewhere under it.
    static func checkDirectory(_ directory: String) throws(UsageError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw UsageError("'--font-dir': no such directory: \(directory)")
        }
        guard isDirectory.boolValue else { throw UsageError("'--font-dir': not a directory: \(directory)") }
        guard FileManager.default.isReadableFile(atPath: directory) else {
            throw UsageError("'--font-dir': cannot read the directory: \(directory)")
        }
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            if FontsConf.fontExtensions.contains((relative as NSString).pathExtension.lowercased()) { return }
        }
        throw UsageError("'--font-dir': no font files (" + FontsConf.fontExtensions.sorted().map { "." + $0 }
            .joined(separator: ", ") + ") under \(directory)")
    }
}
