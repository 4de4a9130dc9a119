/// The font set `--fonts pinned` renders with: the Debian packages `scripts/lib/setup.sh`
/// installs (a test checks that the two lists agree), the faces the generic families resolve
/// to, and which of fontconfig's own configuration snippets apply.
package enum PinnedFonts {
    /// DejaVu: the sans-serif and serif faces (`-extra`: light, condensed and math faces);
    /// Liberation: the metric-compatible faces for Arial, Helvetica, Times and Courier; Noto Sans
    /// Mono: monospace; Noto CJK: Chinese, Japanese and Korean text.
    package static let packages = ["fonts-dejavu-core", "fonts-dejavu-extra", "fonts-liberation2", "fonts-noto-mono",
                           "fonts-noto-cjk"]

    /// The faces the generic families resolve to, first choice first; with only the pinned fonts
    /// visible, fontconfig's own preference lists would put DejaVu Math TeX Gyre first for serif.
    static let genericFamilies: [(generic: String, faces: [String])] = [
        ("serif", ["DejaVu Serif"]),
        ("sans-serif", ["DejaVu Sans"]),
        ("monospace", ["Noto Sans Mono", "DejaVu Sans Mono"]),
    ]

    /// fontconfig's own snippets (in `/usr/share/fontconfig/conf.avail`, from the fontconfig
    /// package, so they change with the engine's libraries, not with what a machine installed)
    /// that Debian enables by default: rendering (hinting, antialiasing, scaling), the
    /// metric-compatible aliases (Arial to Liberation Sans, ...), the generic-family rules and
    /// synthetic bold and oblique. Left out: `50-user.conf` and `51-local.conf` (a user's and a
    /// machine's own configuration), and the snippets font packages add for themselves, except
    /// the pinned packages' own (`FontConfiguration` finds those in their file lists).
    package static let fontconfigSnippets = [
        "10-hinting-slight.conf", "10-scale-bitmap-fonts.conf", "10-yes-antialias.conf", "11-lcdfilter-default.conf",
        "20-unhint-small-vera.conf", "30-metric-aliases.conf", "40-nonlatin.conf", "45-generic.conf",
        "45-latin.conf", "48-spacing.conf", "49-sansserif.conf", "60-generic.conf", "60-latin.conf",
        "65-fonts-persian.conf", "65-nonlatin.conf", "69-unifont.conf", "70-no-bitmaps.conf", "80-delicious.conf",
        "90-synthetic.conf",
    ]

    /// Snippets of `fontconfigSnippets` that only name families none of the pinned packages has
    /// (fallback lists for scripts other than Latin, Persian faces, GNU Unifont). With only the
    /// pinned fonts visible they change no match, yet they make every family lookup slow: they
    /// lengthen the family list a lookup substitutes from about 16 names to about 90, and Skia
    /// (WebKit's font backend) tests each name's binding with a fontconfig match of its own that
    /// copies the whole list. Left out unless a `--font-dir` is given, whose fonts may have
    /// those families. A test checks that they name no pinned font's family.
    package static let snippetsNamingNoPinnedFamily = ["65-fonts-persian.conf", "65-nonlatin.conf", "69-unifont.conf"]

    /// The fontconfig snippets pinned mode includes, with or without `--font-dir`.
    package static func fontconfigSnippets(withFontDirectories: Bool) -> [String] {
        withFontDirectories ? fontconfigSnippets : fontconfigSnippets.filter { !snippetsNamingNoPinnedFamily.contains($0) }
    }

    /// Where fontconfig's snippets are.
    package static let snippetDirectory = "/usr/share/fontconfig/conf.avail"
}
