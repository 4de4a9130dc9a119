import Foundation

/// A machine's font configuration, made for a test.
public enum MachineFonts {
    /// A scratch directory with a fontconfig file that takes the machine's configuration and
    /// maps serif and sans-serif to a wide face (DejaVu Sans Mono), found in an added font
    /// directory: what installing a font package with its own aliases does to a machine, done
    /// through the environment.
    public static func wide() throws -> (directory: URL, environment: [String: String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-machine-fonts-\(getpid())")
        let fonts = directory.appendingPathComponent("fonts")
        try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
        let wide = fonts.appendingPathComponent("DejaVuSansMono.ttf")
        if !FileManager.default.fileExists(atPath: wide.path) {
            try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", toPath: wide.path)
        }
        let conf = directory.appendingPathComponent("fonts.conf")
        try """
            <?xml version="1.0"?>
            <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
            <fontconfig>
              <dir>\(fonts.path)</dir>
              <alias binding="same"><family>serif</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
              <alias binding="same"><family>sans-serif</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
              <include ignore_missing="no">/etc/fonts/fonts.conf</include>
            </fontconfig>

            """.write(to: conf, atomically: true, encoding: .utf8)
        return (directory, ["FONTCONFIG_FILE": conf.path])
    }
}
