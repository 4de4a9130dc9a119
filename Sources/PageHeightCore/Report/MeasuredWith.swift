/// pageheight's own version: `--version`, the baseline's `measuredWith`.
public enum PageHeightVersion {
    public static let current = "0.1.0"
}

/// What heights depend on besides the pages: pageheight's version, the engine's (WebKitGTK) and
/// the fonts. A baseline records it; `check` names what differs from the running pageheight's
/// above its failures, so that a height that moved after an engine upgrade or a font change is
/// not taken for the page's doing.
public struct MeasuredWith: Codable, Sendable, Equatable {
    /// The font set without its `--font-dir` paths, which differ from clone to clone: the files'
    /// digest already covers what they hold.
    public struct Fonts: Codable, Sendable, Equatable {
        public var mode: FontChoice.Mode
        public var packages: [FontSet.Package]
        public var files: Int
        public var digest: String
        /// A device's families (`DeviceFonts`); nil: the desktop's.
        public var families: DeviceFonts?

        public init(_ set: FontSet) {
            (mode, packages, files, digest, families) = (set.mode, set.packages, set.files, set.digest, set.families)
        }
    }

    public var pageheight: String
    public var webKitGTK: String
    public var fonts: Fonts

    public init(pageheight: String = PageHeightVersion.current, webKitGTK: String, fonts: FontSet) {
        (self.pageheight, self.webKitGTK, self.fonts) = (pageheight, webKitGTK, Fonts(fonts))
    }

    /// One phrase per difference from `old`, old value first: `WebKitGTK 2.48.1 → 2.50.6`.
    public func differences(from old: MeasuredWith) -> [String] {
        var phrases: [String] = []
        if old.pageheight != pageheight { phrases.append("pageheight \(old.pageheight) → \(pageheight)") }
        if old.webKitGTK != webKitGTK { phrases.append("WebKitGTK \(old.webKitGTK) → \(webKitGTK)") }
        if old.fonts != fonts { phrases += fonts.differences(from: old.fonts) }
        return phrases
    }
}

extension MeasuredWith.Fonts {
    /// The mode, else the packages that came, went or changed version, else the files.
    func differences(from old: Self) -> [String] {
        if old.mode != mode { return ["fonts \(old.mode.rawValue) → \(mode.rawValue)"] }
        if old.families != families {
            return ["font families \(old.families?.rawValue ?? "desktop") → \(families?.rawValue ?? "desktop")"]
        }
        let before = Dictionary(old.packages.map { ($0.name, $0.version) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(packages.map { ($0.name, $0.version) }, uniquingKeysWith: { first, _ in first })
        var phrases: [String] = []
        for name in Set(before.keys).union(after.keys).sorted() where before[name] != after[name] {
            phrases.append("\(name) \(before[name] ?? "(none)") → \(after[name] ?? "(none)")")
        }
        if phrases.isEmpty {
            phrases.append("font files \(old.files) → \(files) (digest \(old.digest.prefix(12)) → \(digest.prefix(12)))")
        }
        return phrases
    }
}
