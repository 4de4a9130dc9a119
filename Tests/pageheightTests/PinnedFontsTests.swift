import Foundation
@testable import PageHeightBatch
@testable import PageHeightCore
@testable import pageheight
import Testing

/// The pure parts of pinned fonts: dpkg's status file, the generated fonts.conf, the options.
struct PinnedFontsTests {
    static let root: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    @Test func installedVersionsComeFromInstalledParagraphsOnly() {
        let status = """
            Package: fonts-dejavu-core
            Status: install ok installed
            Priority: optional
            Version: 2.37-6
            Description: Vera font family derivate
             with a continuation line

            Package: fonts-gone
            Status: deinstall ok config-files
            Version: 1.0

            Package: fonts-noto-cjk
            Status: install ok installed
            Version: 1:20220127+repack1-1

            """
        #expect(DpkgDatabase.installedVersions(status: status)
            == ["fonts-dejavu-core": "2.37-6", "fonts-noto-cjk": "1:20220127+repack1-1"])
    }

    /// The setup installs exactly the packages pinned mode renders with, then the devices' (one
    /// list in each place, kept equal here).
    @Test func setupInstallsExactlyThePinnedPackages() throws {
        let setup = try String(contentsOf: Self.root.appendingPathComponent("scripts/lib/setup.sh"), encoding: .utf8)
        let start = try #require(setup.range(of: "PAGEHEIGHT_PACKAGES=("))
        let end = try #require(setup[start.upperBound...].firstIndex(of: ")"))
        let installed = setup[start.upperBound..<end].split(whereSeparator: { $0 == " " || $0 == "\n" })
            .map(String.init).filter { $0.hasPrefix("fonts-") }
        #expect(installed == PinnedFonts.packages + DeviceFonts.allPackages)
        #expect(Set(DeviceFonts.allCases.flatMap(\.packages)) == Set(DeviceFonts.allPackages))
    }

    /// The container recipe installs through the setup script in both stages (the build, as the
    /// README's command; the image, its runtime list), names no package of its own, and is the
    /// image docs/scale-out.md tells a fleet to build.
    @Test func theContainerfileInstallsThroughTheSetupScriptAndKeepsNoPackageList() throws {
        let recipe = try String(contentsOf: Self.root.appendingPathComponent("Containerfile"), encoding: .utf8)
        let lines = recipe.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        let image = try #require(lines.first { $0.hasPrefix("ARG SWIFT_IMAGE=") }).dropFirst("ARG SWIFT_IMAGE=".count)
        let stages = lines.filter { $0.hasPrefix("FROM ") }.map { $0.replacingOccurrences(of: "${SWIFT_IMAGE}", with: image) }
        #expect(stages.count == 2 && stages.allSatisfy { $0.contains("bookworm") || $0.contains("debian:12") }, "\(stages)")
        let runs = lines.filter { $0.hasPrefix("RUN ") }
        #expect(runs.contains("RUN scripts/pageheight --version"), "the build stage runs the README's command: \(runs)")
        #expect(runs.contains { $0.contains("PAGEHEIGHT_SETUP=runtime bash /opt/pageheight/scripts/lib/setup.sh") })
        for line in lines {
            #expect(!line.contains("apt-get install") && !line.contains("apt install") && !line.contains("fonts-"),
                    "no second package list: \(line)")
        }
        #expect(lines.contains { $0.hasPrefix("COPY --from=build") && $0.contains("release/pageheight") && $0.contains("libPageHeightEGL.so") })
        // The runtime list is the setup's own list, without the test tools.
        let setup = try String(contentsOf: Self.root.appendingPathComponent("scripts/lib/setup.sh"), encoding: .utf8)
        #expect(setup.contains(#"if [ "${PAGEHEIGHT_SETUP:-}" = runtime ]; then\#n  pageheight_install "${PAGEHEIGHT_PACKAGES[@]}""#))
        let scaleOut = try String(contentsOf: Self.root.appendingPathComponent("docs/scale-out.md"), encoding: .utf8)
        #expect(scaleOut.contains("[`Containerfile`](../Containerfile)") && scaleOut.contains("# built from the repository's Containerfile"))
    }

    /// Without `--font-dir`, the snippets that name no pinned family are left out; with one (its
    /// fonts may have those families) every snippet is in, in the same order.
    @Test func snippetsNamingNoPinnedFamilyAreLeftOutOnlyWithoutFontDirectories() {
        let without = PinnedFonts.fontconfigSnippets(withFontDirectories: false)
        #expect(without.count == PinnedFonts.fontconfigSnippets.count - 3)
        #expect(!without.contains("65-nonlatin.conf") && without.contains("60-latin.conf") && without.contains("40-nonlatin.conf"))
        #expect(PinnedFonts.fontconfigSnippets(withFontDirectories: true) == PinnedFonts.fontconfigSnippets)
    }

    /// What makes leaving them out change no match: no font file of the pinned packages (as dpkg
    /// lists them, read by fontconfig's own `fc-scan`) has a family those snippets name, so the
    /// names they add to a lookup match nothing.
    @Test func theLeftOutSnippetsNameNoFamilyOfThePinnedFonts() throws {
        var families: Set<String> = []
        for package in PinnedFonts.packages {
            let files = try #require(DpkgDatabase.files(of: package), "\(package) is installed")
            for file in files where FontsConf.fontExtensions.contains((file as NSString).pathExtension.lowercased())
                && FileManager.default.fileExists(atPath: file) {
                let scan = Process()
                scan.executableURL = URL(fileURLWithPath: "/usr/bin/fc-scan")
                scan.arguments = ["--format", "%{family}\n", file]
                let pipe = Pipe()
                scan.standardOutput = pipe
                try scan.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                scan.waitUntilExit()
                for line in output.split(separator: "\n") {
                    families.formUnion(line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                }
            }
        }
        #expect(families.contains("DejaVu Serif") && families.contains("Noto Sans CJK JP"), "\(families.sorted())")
        let familyTag = try Regex(#"<family>([^<]*)</family>"#)
        for snippet in PinnedFonts.snippetsNamingNoPinnedFamily {
            let text = try String(contentsOfFile: PinnedFonts.snippetDirectory + "/" + snippet, encoding: .utf8)
            let named = Set(text.matches(of: familyTag).compactMap { $0.output[1].substring.map(String.init) })
            #expect(named.count > 5, "\(snippet) names families")
            #expect(named.isDisjoint(with: families), "\(snippet) names pinned families: \(named.intersection(families).sorted())")
        }
    }

    @Test func pinnedConfigurationListsOnlyItsFontsAndNeverTheMachinesConfiguration() {
        let text = FontsConf.pinned(
            fontFiles: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"],
            fontDirectories: ["/usr/share/fonts/truetype/dejavu"], directories: ["/site/fonts & more"],
            snippets: ["/usr/share/fontconfig/conf.avail/10-hinting-slight.conf"], cache: "/tmp/private/cache")
        #expect(text.hasPrefix("<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig"))
        #expect(text.contains("<dir>/usr/share/fonts/truetype/dejavu</dir>"))
        #expect(text.contains("<dir>/site/fonts &amp; more</dir>"))
        #expect(text.contains("<glob>/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf</glob>"))
        #expect(text.contains("<glob>/site/fonts &amp; more/*</glob>"))
        #expect(text.contains("<rejectfont><glob>*</glob></rejectfont>"))
        #expect(text.contains("<cachedir>/tmp/private/cache</cachedir>"))
        #expect(!text.contains("/etc/fonts"), "the machine's configuration is not read")
        for comment in text.components(separatedBy: "<!--").dropFirst() {
            #expect(!comment.components(separatedBy: "-->")[0].contains("--"), "an XML comment may not hold --")
        }
        // The generic families are pageheight's, ahead of every snippet's preferences.
        let serif = text.range(of: "<alias binding=\"same\"><family>serif</family><prefer><family>DejaVu Serif</family>")
        let sans = text.range(of: "<family>sans-serif</family><prefer><family>DejaVu Sans</family>")
        let mono = text.range(of: "<family>monospace</family><prefer><family>Noto Sans Mono</family>")
        let include = text.range(of: "<include ignore_missing=\"yes\">/usr/share/fontconfig/conf.avail/10-hinting-slight.conf</include>")
        #expect(serif != nil && sans != nil && mono != nil && include != nil)
        if let serif, let include { #expect(serif.lowerBound < include.lowerBound) }
    }

    @Test func systemConfigurationIncludesTheMachinesAndAddsTheDirectories() {
        let text = FontsConf.system(base: "/etc/fonts/fonts.conf", directories: ["/app/fonts"], cache: "/tmp/p/cache")
        #expect(text.contains("<include ignore_missing=\"no\">/etc/fonts/fonts.conf</include>"))
        #expect(text.contains("<dir>/app/fonts</dir>"))
        #expect(!text.contains("selectfont"))
    }

    @Test func fontsArePinnedByDefaultAndTheOptionsChangeThat() throws {
        #expect(try CommandLineArguments.parse(["a.html"]).options.fonts == FontChoice(mode: .pinned))
        let system = try CommandLineArguments.parse(["--fonts", "system", "a.html"])
        #expect(system.options.fonts == FontChoice(mode: .system))
        let directory = FileManager.default.currentDirectoryPath
        let both = try CommandLineArguments.parse(["--font-dir", "Pages/fonts", "--fonts=system", "--font-dir=/x/../y", "a.html"])
        #expect(both.options.fonts == FontChoice(mode: .system, directories: [directory + "/Pages/fonts", "/y"]))
        #expect(throws: UsageError("unknown value 'mine' for '--fonts' (one of: pinned, system)")) {
            try CommandLineArguments.parse(["--fonts", "mine", "a.html"])
        }
    }

    @Test func aFontDirectoryMustExistBeADirectoryAndHoldFonts() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-font-dir-\(getpid())")
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: scratch.appendingPathComponent("file.txt"))
        defer { try? FileManager.default.removeItem(at: scratch) }
        func validate(_ directory: String) throws {
            try CommandLineArguments.parse(["--font-dir", directory, "a.html"]).validate()
        }
        #expect(throws: UsageError("'--font-dir': no such directory: \(scratch.path)/nosuch")) { try validate(scratch.path + "/nosuch") }
        #expect(throws: UsageError("'--font-dir': not a directory: \(scratch.path)/file.txt")) { try validate(scratch.path + "/file.txt") }
        #expect(throws: UsageError("'--font-dir': no font files (.otc, .otf, .pfa, .pfb, .ttc, .ttf, .woff, .woff2) under \(scratch.path)/empty")) {
            try validate(scratch.path + "/empty")
        }
        try validate(Self.root.appendingPathComponent("Pages/fonts").path)
    }

    @Test func checkAndSweepTakeTheFontOptions() throws {
        let fonts = Self.root.appendingPathComponent("Pages/fonts").path
        let parsed = try CheckArguments.parse(["--fonts", "system", "--font-dir", fonts, "suite.json"], command: .check)
        #expect(parsed.measuring.applied(to: MeasureOptions()).fonts == FontChoice(mode: .system, directories: [fonts]))
        #expect(try CheckArguments.parse(["suite.json"], command: .check).measuring.applied(to: MeasureOptions()).fonts
            == FontChoice(mode: .pinned))
    }

    /// A result written with other fonts cannot be resumed by this command, and the message names
    /// the option.
    @Test func resumeRefusesResultsMeasuredWithOtherFonts() throws {
        var system = MeasureOptions()
        system.fonts = FontChoice(mode: .system)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let recorded = ResumeCheck.Recorded(index: 0, url: "https://example.com/",
                                            options: String(decoding: try encoder.encode(system), as: UTF8.self))
        let list = PageList(entries: [PageList.Entry(index: 0, page: "https://example.com/")])
        let mismatch = try #require(ResumeCheck.mismatch([recorded], list: list, options: MeasureOptions()))
        #expect(mismatch.hasPrefix("its results were measured with fonts {\"directories\":[],\"mode\":\"system\"}"), "\(mismatch)")
    }

    /// Reports written before fonts were recorded still read (tune and replay read old reports).
    @Test func optionsWithoutFontsStillDecode() throws {
        var options = MeasureOptions()
        options.fonts = nil
        let data = try JSONEncoder().encode(options)
        #expect(!String(decoding: data, as: UTF8.self).contains("fonts"))
        #expect(try JSONDecoder().decode(MeasureOptions.self, from: data).fonts == nil)
    }
}

/// A device's families in the generated fonts.conf: the desktop's text has none of them.
struct DeviceFontsConfTests {
    @Test func onlyADevicesConfigurationMapsItsFamilies() {
        let desktop = FontsConf.pinned(fontFiles: [], fontDirectories: [], directories: [], snippets: [], cache: "/c")
        #expect(desktop == FontsConf.pinned(fontFiles: [], fontDirectories: [], directories: [], snippets: [], cache: "/c",
                                            families: .desktop))
        #expect(!desktop.contains("device's families") && desktop.contains("<family>DejaVu Serif</family>"))
        let ios = FontsConf.pinned(fontFiles: [], fontDirectories: [], directories: [], snippets: [], cache: "/c", families: .ios)
        #expect(ios.contains("<alias binding=\"same\"><family>serif</family><prefer><family>Liberation Serif</family></prefer></alias>"))
        #expect(ios.contains("<family>Georgia</family><prefer><family>P052</family>"))
        #expect(!ios.contains("<family>DejaVu Serif</family>"))
        #expect(DeviceFonts.of(.ipad) == .ios && DeviceFonts.ios.standardFamily == "serif")
        #expect(DeviceFonts.android.standIn(for: "ARIAL")?.face == "Roboto")
    }
}
