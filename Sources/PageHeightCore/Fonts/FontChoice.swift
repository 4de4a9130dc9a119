/// Which fonts pages are rendered with: a setting of the whole engine, not of one page, since
/// fontconfig reads its configuration once per process and every web process inherits it.
public struct FontChoice: Codable, Sendable, Equatable {
    public enum Mode: String, CaseIterable, Codable, Sendable {
        /// Only the fonts of the Debian packages pageheight's setup installs (`PinnedFonts`), with
        /// the generic families (serif, sans-serif, monospace) mapped to them by pageheight, so
        /// heights do not depend on what else the machine has.
        case pinned
        /// The machine's own fontconfig configuration, as any other program on it sees it.
        case system
    }

    public var mode: Mode = .pinned
    /// Absolute paths of directories with a site's or an app's own fonts (`--font-dir`), searched
    /// with their subdirectories, in either mode.
    public var directories: [String] = []

    public init(mode: Mode = .pinned, directories: [String] = []) {
        (self.mode, self.directories) = (mode, directories)
    }
}
