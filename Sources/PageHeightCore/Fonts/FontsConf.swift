import Foundation

/// The text of the `fonts.conf` pageheight hands fontconfig (through `FONTCONFIG_FILE`). Pure.
package enum FontsConf {
    /// File names fontconfig (through FreeType) reads as fonts, lowercased extensions.
    package static let fontExtensions: Set<String> = ["ttf", "otf", "ttc", "otc", "pfa", "pfb", "woff", "woff2"]

    /// Pinned fonts: only `fontFiles` (the pinned packages' font files) and every font under
    /// `directories` are visible, searched in `fontDirectories` (the files' own directories)
    /// and `directories`; the generic families resolve to `PinnedFonts.genericFamilies`; the
    /// rules come from `snippets` (full paths, in the order given), never from the machine's
    /// `/etc/fonts`. Caches are written to `cache` and read from there or from the system's.
    /// A device's `families` (not the desktop's) map the generic families and the device's named
    /// ones to their stand-ins instead; the desktop's text is the pinned set's alone.
    package static func pinned(fontFiles: [String], fontDirectories: [String], directories: [String], snippets: [String],
                       cache: String, families: DeviceFonts = .desktop) -> String {
        var lines = header
        lines.append("  <!-- pageheight's pinned fonts: the packages' files and the font directories given, nothing else -->")
        for directory in fontDirectories + directories { lines.append("  <dir>\(escaped(directory))</dir>") }
        lines.append("  <cachedir>\(escaped(cache))</cachedir>")
        lines.append("  <cachedir>/var/cache/fontconfig</cachedir>")
        lines.append("  <config><rescan><int>0</int></rescan></config>")
        // A directory a pinned package shares with other packages (truetype/noto) shows only
        // the package's files: an accepted file is kept whatever a rejecting glob says.
        lines.append("  <selectfont>")
        lines.append("    <acceptfont>")
        for file in fontFiles { lines.append("      <glob>\(escaped(file))</glob>") }
        for directory in directories { lines.append("      <glob>\(escaped(directory))/*</glob>") }
        lines.append("    </acceptfont>")
        lines.append("    <rejectfont><glob>*</glob></rejectfont>")
        lines.append("  </selectfont>")
        // Before the snippets: a family's first `prefer` wins.
        if families != .desktop {
            lines.append("  <!-- the \(families.rawValue) device's families -->")
            for standIn in families.standIns {
                lines.append("  <alias binding=\"same\"><family>\(escaped(standIn.family))</family>"
                    + "<prefer><family>\(escaped(standIn.face))</family></prefer></alias>")
            }
        }
        for (generic, faces) in PinnedFonts.genericFamilies where families == .desktop {
            let preferred = faces.map { "<family>\(escaped($0))</family>" }.joined()
            lines.append("  <alias binding=\"same\"><family>\(generic)</family><prefer>\(preferred)</prefer></alias>")
        }
        for snippet in snippets { lines.append("  <include ignore_missing=\"yes\">\(escaped(snippet))</include>") }
        lines.append("</fontconfig>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// System fonts with `directories` added: the machine's configuration (`base`, the file
    /// fontconfig would read by itself) and those directories.
    package static func system(base: String, directories: [String], cache: String) -> String {
        var lines = header
        lines.append("  <include ignore_missing=\"no\">\(escaped(base))</include>")
        for directory in directories { lines.append("  <dir>\(escaped(directory))</dir>") }
        lines.append("  <cachedir>\(escaped(cache))</cachedir>")
        lines.append("</fontconfig>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static let header = [
        "<?xml version=\"1.0\"?>",
        "<!DOCTYPE fontconfig SYSTEM \"urn:fontconfig:fonts.dtd\">",
        "<fontconfig>",
    ]

    /// `text` as XML character data (the HTML escapes are XML's too). fontconfig's globs know
    /// `*` and `?` only, so paths need no other escaping.
    static func escaped(_ text: String) -> String { HTMLText.escape(text) }
}
