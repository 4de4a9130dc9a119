/// The font families of a device: which Debian face stands in for each family a page can name
/// on that device (the generic ones and the device's own), with pinned fonts.
///
/// A device's mapping is a setting of the engine's process, as the fonts are (`FontChoice`):
/// fontconfig reads its configuration once per process, and only its aliases resolve a named
/// family the way the device's own font system does (a family the device has becomes its stand-in,
/// one it lacks falls through to the next family of the page's list). The desktop's configuration
/// is the pinned set's, unchanged; iOS's and Android's add their packages' faces and aliases.
/// The standard family (what a page that names no family gets) is a view's setting:
/// `standardFamily`.
///
/// The table, each face's closeness and the sources are in docs/devices.md.
public enum DeviceFonts: String, CaseIterable, Codable, Sendable {
    /// The pinned set as it is: DejaVu for the generic families.
    case desktop
    /// iPhone and iPad: Times, Helvetica and Courier for the generic families; standard is serif.
    case ios
    /// Android's WebView: Roboto, Noto Serif, Droid Sans Mono; standard is sans-serif.
    case android

    /// A family a page can name on the device, and the Debian face that stands in for it.
    public struct StandIn: Sendable, Equatable {
        /// The family as a page names it (a generic family by its CSS keyword).
        public var family: String
        /// The face fontconfig gives for it: a family of one of `packages` or of the pinned set.
        public var face: String
        /// The device's own face, when it is another than `face` (shown in docs and tests).
        public var deviceFace: String

        init(_ family: String, _ face: String, device deviceFace: String) {
            (self.family, self.face, self.deviceFace) = (family, face, deviceFace)
        }
    }

    /// The profile a device renders with.
    public static func of(_ device: DeviceProfile.Name) -> DeviceFonts {
        switch device {
        case .desktop: .desktop
        case .iphone, .ipad: .ios
        case .android: .android
        }
    }

    /// What WebKit calls the standard family (`-webkit-standard`, a page with no `font-family`),
    /// as a generic family: iOS's WebKit sets Times, Android's WebView sans-serif, WebKitGTK
    /// sans-serif.
    public var standardFamily: String {
        self == .ios ? "serif" : "sans-serif"
    }

    /// The Debian packages the profile's faces come from, besides the pinned set's. Installed by
    /// `scripts/lib/setup.sh` with the pinned packages (a test keeps the lists equal).
    public var packages: [String] {
        switch self {
        case .desktop: []
        case .ios: ["fonts-urw-base35", "fonts-crosextra-carlito"]
        case .android: ["fonts-roboto-unhinted", "fonts-noto-core", "fonts-urw-base35"]
        }
    }

    /// Every package any device profile needs, in the order `scripts/lib/setup.sh` lists them.
    public static let allPackages = ["fonts-urw-base35", "fonts-crosextra-carlito", "fonts-roboto-unhinted", "fonts-noto-core"]

    /// Whether a font file of `packages` is visible to the profile's pages: only the faces the
    /// table names (and, for Android, every Noto face: its fallback for other scripts), so a page
    /// that names a face the device does not have still falls through.
    public func shows(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        switch self {
        case .desktop:
            return false
        case .ios:
            return (path.hasPrefix("/usr/share/fonts/opentype/urw-base35/") && name.hasPrefix("P052-"))
                || (path.hasPrefix("/usr/share/fonts/truetype/crosextra/") && name.hasPrefix("Carlito-"))
        case .android:
            if path.hasPrefix("/usr/share/fonts/opentype/urw-base35/") { return name.hasPrefix("NimbusMonoPS-") }
            if path.contains("/roboto/") { return name.hasPrefix("Roboto-") || name.hasPrefix("RobotoCondensed-") }
            return path.hasPrefix("/usr/share/fonts/truetype/noto/") && !name.contains("Display") && !name.contains("UI-")
        }
    }

    /// The families the profile maps, generic ones first: each resolves to its face (a fontconfig
    /// alias that binds as the family itself), before fontconfig's own rules.
    public var standIns: [StandIn] {
        switch self {
        case .desktop:
            return []
        case .ios:
            // Liberation's faces have the advance widths of Times New Roman, Arial and Courier
            // New, which Times, Helvetica and Courier share; P052 is Palatino's clone; Menlo is
            // DejaVu Sans Mono's derivative. Georgia and San Francisco have no clone: the faces
            // of the nearest average width (docs/devices.md).
            return [
                StandIn("serif", "Liberation Serif", device: "Times"),
                StandIn("sans-serif", "Liberation Sans", device: "Helvetica"),
                StandIn("monospace", "Liberation Mono", device: "Courier"),
                StandIn("Times", "Liberation Serif", device: "Times"),
                StandIn("Times New Roman", "Liberation Serif", device: "Times New Roman"),
                StandIn("Helvetica", "Liberation Sans", device: "Helvetica"),
                StandIn("Arial", "Liberation Sans", device: "Arial"),
                StandIn("Courier", "Liberation Mono", device: "Courier"),
                StandIn("Courier New", "Liberation Mono", device: "Courier New"),
                StandIn("Helvetica Neue", "Liberation Sans", device: "Helvetica Neue"),
                StandIn("Georgia", "P052", device: "Georgia"),
                StandIn("Palatino", "P052", device: "Palatino"),
                StandIn("Palatino Linotype", "P052", device: "Palatino"),
                StandIn("Book Antiqua", "P052", device: "Palatino"),
                StandIn("Menlo", "DejaVu Sans Mono", device: "Menlo"),
                StandIn("-apple-system", "Carlito", device: "SF Pro"),
                StandIn("system-ui", "Carlito", device: "SF Pro"),
                StandIn("BlinkMacSystemFont", "Carlito", device: "SF Pro"),
            ]
        case .android:
            // Android's fonts.xml: the families and aliases its WebView resolves through Skia.
            return [
                StandIn("serif", "Noto Serif", device: "Noto Serif"),
                StandIn("sans-serif", "Roboto", device: "Roboto"),
                StandIn("monospace", "Liberation Mono", device: "Droid Sans Mono"),
                StandIn("system-ui", "Roboto", device: "Roboto"),
                StandIn("Arial", "Roboto", device: "Roboto"),
                StandIn("Helvetica", "Roboto", device: "Roboto"),
                StandIn("Tahoma", "Roboto", device: "Roboto"),
                StandIn("Verdana", "Roboto", device: "Roboto"),
                StandIn("sans-serif-condensed", "Roboto Condensed", device: "Roboto Condensed"),
                StandIn("Times", "Noto Serif", device: "Noto Serif"),
                StandIn("Times New Roman", "Noto Serif", device: "Noto Serif"),
                StandIn("Palatino", "Noto Serif", device: "Noto Serif"),
                StandIn("Georgia", "Noto Serif", device: "Noto Serif"),
                StandIn("Baskerville", "Noto Serif", device: "Noto Serif"),
                StandIn("Goudy", "Noto Serif", device: "Noto Serif"),
                StandIn("Courier", "Nimbus Mono PS", device: "Cutive Mono"),
                StandIn("Courier New", "Nimbus Mono PS", device: "Cutive Mono"),
                StandIn("serif-monospace", "Nimbus Mono PS", device: "Cutive Mono"),
                StandIn("Monaco", "Liberation Mono", device: "Droid Sans Mono"),
            ]
        }
    }

    /// The stand-in for `family` as a page names it (case-insensitive, as fontconfig compares
    /// family names); nil for a family the profile does not map.
    public func standIn(for family: String) -> StandIn? {
        let key = family.lowercased()
        return standIns.first { $0.family.lowercased() == key }
    }
}
