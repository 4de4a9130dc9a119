/// The fonts a measurement was rendered with, as the report records them (`fonts`): worked out
/// once when the engine starts.
public struct FontSet: Codable, Sendable, Equatable {
    public struct Package: Codable, Sendable, Equatable {
        public var name: String
        public var version: String

        public init(name: String, version: String) {
            (self.name, self.version) = (name, version)
        }
    }

    public var mode: FontChoice.Mode
    /// The pinned packages and their installed versions (empty with `--fonts system`, whose
    /// fonts are the machine's and are not listed).
    public var packages: [Package]
    /// The `--font-dir` directories.
    public var directories: [String]
    /// How many font files the set holds: the pinned packages' and those under `directories`
    /// (with `--fonts system`, only the latter).
    public var files: Int
    /// SHA-256 (hex) of those files' sorted list of `path<TAB>size<LF>` lines (a `--font-dir`
    /// file's path taken inside its directory): equal digests, the same files.
    public var digest: String
    /// The device whose families the set maps (`DeviceFonts`); nil: the desktop's, the pinned
    /// set as it is.
    public var families: DeviceFonts?

    public init(mode: FontChoice.Mode, packages: [Package], directories: [String], files: Int, digest: String,
                families: DeviceFonts? = nil) {
        (self.mode, self.packages, self.directories, self.files, self.digest) = (mode, packages, directories, files, digest)
        self.families = families
    }
}
