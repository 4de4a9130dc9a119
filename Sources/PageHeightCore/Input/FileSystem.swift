import Foundation

/// Whether `path` (the current directory when empty) is a directory.
package func isDirectory(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path.isEmpty ? "." : path, isDirectory: &isDirectory) && isDirectory.boolValue
}
