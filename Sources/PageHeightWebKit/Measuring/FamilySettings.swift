import CWebKit
import PageHeightCore

/// The font families a view asks fontconfig for, set explicitly: the standard family (a page that
/// names none) is the device's (`DeviceFonts.standardFamily`), and each generic family is asked
/// for by its own name, which the process's font configuration maps to the device's face
/// (`FontsConf`). The names are WebKitGTK's defaults but for iOS's standard family (serif).
enum FamilySettings {
    static func apply(_ families: DeviceFonts, to settings: UnsafeMutablePointer<WebKitSettings>?) {
        webkit_settings_set_default_font_family(settings, families.standardFamily)
        webkit_settings_set_serif_font_family(settings, "serif")
        webkit_settings_set_sans_serif_font_family(settings, "sans-serif")
        webkit_settings_set_monospace_font_family(settings, "monospace")
    }
}
