import Foundation

/// A font family a page's text asks for, and the face that stands in for it under the device's
/// profile (`DeviceFonts`): what the report says so that a height can be read against the faces
/// the device would have used.
public struct FontUse: Codable, Sendable, Equatable {
    /// The family as the page names it (a generic family by its CSS keyword).
    public var family: String
    /// The face the engine lays it out in: a Debian face, or `web font` for a family the page
    /// loads itself.
    public var face: String
    /// The device's own face, where it differs from `face` (the family's stand-in is approximate
    /// or metric-compatible: docs/devices.md).
    public var deviceFace: String?

    public init(family: String, face: String, deviceFace: String? = nil) {
        (self.family, self.face, self.deviceFace) = (family, face, deviceFace)
    }

    /// What the probe saw: computed `font-family` lists of the page's text, its web fonts' families.
    public struct Seen: Codable, Sendable, Equatable {
        public var lists: [String]
        public var webFonts: [String]

        public init(lists: [String], webFonts: [String]) {
            (self.lists, self.webFonts) = (lists, webFonts)
        }
    }

    /// For each list, the family that decides its face: a web font the page loaded, else the
    /// first family the device's table names (a family the device lacks falls through, as on the
    /// device), else the device's standard family. Distinct families, in the order first used. Pure.
    public static func uses(_ seen: Seen, device: DeviceFonts) -> [FontUse] {
        let table = device.standIns
        let web = Set(seen.webFonts.map { $0.lowercased() })
        var uses: [FontUse] = []
        for list in seen.lists {
            let use = family(deciding: list, table: table, web: web)
                ?? table.first { $0.family == device.standardFamily }.map { FontUse(standIn: $0) }
            if let use, !uses.contains(where: { $0.family == use.family }) { uses.append(use) }
        }
        return uses
    }

    private init(standIn: DeviceFonts.StandIn) {
        self.init(family: standIn.family, face: standIn.face,
                  deviceFace: standIn.deviceFace == standIn.face ? nil : standIn.deviceFace)
    }

    private static func family(deciding list: String, table: [DeviceFonts.StandIn], web: Set<String>) -> FontUse? {
        for name in families(in: list) {
            if web.contains(name.lowercased()) { return FontUse(family: name, face: "web font") }
            if let standIn = table.first(where: { $0.family.lowercased() == name.lowercased() }) { return FontUse(standIn: standIn) }
        }
        return nil
    }

    /// The families of a computed `font-family` value, unquoted: `"Helvetica Neue", Arial, sans-serif`.
    static func families(in list: String) -> [String] {
        list.split(separator: ",").map { part in
            var name = part.trimmingCharacters(in: .whitespaces)
            if name.count >= 2, let first = name.first, first == name.last, first == "\"" || first == "'" {
                name = String(name.dropFirst().dropLast())
            }
            return name
        }.filter { !$0.isEmpty }
    }
}
