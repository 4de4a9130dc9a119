import CWebKit
import Foundation
import PageHeightCore

/// Puts a `FontChoice` into effect for this process: a `fonts.conf` in the private directory and
/// `FONTCONFIG_FILE` pointing at it, set before GTK starts, so the web processes (started later
/// with this environment) read it too.
enum FontConfiguration {
    /// A choice worked out against this machine: the set the reports record and what the
    /// configuration file lists.
    struct Resolved: Sendable {
        var set: FontSet
        /// Pinned: the packages' font files, and the directories they are in.
        var packageFiles: [String]
        var packageDirectories: [String]
        /// Pinned: fontconfig's snippets and the pinned packages' own, in the order to include.
        var snippets: [String]
        /// Pinned: the device whose families the configuration maps.
        var families: DeviceFonts
    }

    /// Reads dpkg's files and lists the fonts; throws when a pinned package, or one of a device's
    /// `families`, is not installed. A device's families apply to pinned fonts only: with
    /// `--fonts system` the machine's configuration resolves every family.
    static func resolve(_ choice: FontChoice, families: DeviceFonts = .desktop) throws -> Resolved {
        let families = choice.mode == .pinned ? families : .desktop
        var packages: [FontSet.Package] = []
        var packageFiles: [String] = []
        var snippets = PinnedFonts.fontconfigSnippets(withFontDirectories: !choice.directories.isEmpty)
            .map { PinnedFonts.snippetDirectory + "/" + $0 }
        if choice.mode == .pinned {
            let versions = DpkgDatabase.installedVersions()
            for name in PinnedFonts.packages {
                guard let version = versions[name], let files = DpkgDatabase.files(of: name) else {
                    throw EngineError.fontsUnavailable("the pinned font package \(name) is not installed (scripts/lib/setup.sh "
                        + "installs it; --fonts system renders with the machine's fonts instead)")
                }
                packages.append(FontSet.Package(name: name, version: version))
                packageFiles += files.filter { isFont($0) && isFile($0) }
                // The snippets a package enables by itself, as its links in /etc/fonts/conf.d.
                snippets += files.filter { $0.hasPrefix("/etc/fonts/conf.d/") && $0.hasSuffix(".conf") }
            }
            // A device's packages: only the faces its table names, without the packages' own
            // snippets (their aliases are the table's business).
            for name in families.packages {
                guard let version = versions[name], let files = DpkgDatabase.files(of: name) else {
                    throw EngineError.fontsUnavailable("the font package \(name) of the \(families.rawValue) device's families is "
                        + "not installed (scripts/lib/setup.sh installs it)")
                }
                packages.append(FontSet.Package(name: name, version: version))
                packageFiles += files.filter { families.shows($0) && isFont($0) && isFile($0) }
            }
        }
        let directoryFiles = choice.directories.map { (directory: $0, files: fontFiles(under: $0)) }
        // A --font-dir's files by their path inside it: a suite's fonts checked out in two places
        // are one set.
        let listed = (packageFiles.map { "\($0)\t\(size(of: $0))\n" }
            + directoryFiles.flatMap { directory, files in
                files.map { "\($0.dropFirst(directory.count))\t\(size(of: $0))\n" }
            }).sorted().joined()
        let checksum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, listed, -1)!
        defer { g_free(checksum) }
        let digest = String(cString: checksum)
        let set = FontSet(mode: choice.mode, packages: packages, directories: choice.directories,
                          files: packageFiles.count + directoryFiles.reduce(0) { $0 + $1.files.count }, digest: digest,
                          families: families == .desktop ? nil : families)
        var directories: [String] = []
        for file in packageFiles {
            let directory = (file as NSString).deletingLastPathComponent
            if !directories.contains(directory) { directories.append(directory) }
        }
        snippets.sort { ($0 as NSString).lastPathComponent < ($1 as NSString).lastPathComponent }
        return Resolved(set: set, packageFiles: packageFiles, packageDirectories: directories, snippets: snippets,
                        families: families)
    }

    /// Writes `fonts.conf` into `directory` and sets `FONTCONFIG_FILE`; with `--fonts system` and
    /// no `--font-dir`, leaves fontconfig as it is. Call before GTK starts.
    static func install(_ resolved: Resolved, in directory: String) throws {
        let cache = directory + "/fontconfig-cache"
        let text: String
        switch resolved.set.mode {
        case .pinned:
            text = FontsConf.pinned(fontFiles: resolved.packageFiles, fontDirectories: resolved.packageDirectories,
                                    directories: resolved.set.directories, snippets: resolved.snippets, cache: cache,
                                    families: resolved.families)
        case .system:
            guard !resolved.set.directories.isEmpty else { return }
            text = FontsConf.system(base: systemConfiguration(), directories: resolved.set.directories, cache: cache)
        }
        let path = directory + "/fonts.conf"
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw EngineError.fontsUnavailable("cannot write \(path): \(error.localizedDescription)")
        }
        EngineEnvironment.set("FONTCONFIG_FILE", path)
    }

    /// The font directories and configuration files this process's fontconfig reads that WebKit's
    /// sandbox does not show the web processes by itself (it shows `/usr`, `/etc` and its choice
    /// of font paths under `$HOME`): the `--font-dir` directories, and with `--fonts system`
    /// wherever the machine's configuration lies (`FONTCONFIG_FILE`, a `<dir>` it names). Call
    /// after `install`: fontconfig reads its configuration on first use, once per process.
    /// A directory whose parent is listed too is left out (fontconfig lists every subdirectory it
    /// scans), and so is everything under `/usr` and `/etc`.
    static func sandboxPaths() -> [String] {
        let config = FcConfigGetCurrent()
        var paths: [String] = []
        for list in [FcConfigGetFontDirs(config), FcConfigGetConfigFiles(config)] {
            guard let list else { continue }
            defer { FcStrListDone(list) }
            while let next = FcStrListNext(list) {
                let path = String(cString: next)
                if !path.hasPrefix("/usr/") && !path.hasPrefix("/etc/") && !paths.contains(path) { paths.append(path) }
            }
        }
        // Only those that exist: the machine's configuration names `~/.fonts` whether or not it
        // is there, and WebKit warns on stderr for each missing path it is given.
        return paths.filter { path in !paths.contains { path.hasPrefix($0 + "/") } && access(path, F_OK) == 0 }
    }

    /// The configuration file fontconfig reads when left alone: `FONTCONFIG_FILE`, else
    /// `fonts.conf` in `FONTCONFIG_PATH` or `/etc/fonts`.
    static func systemConfiguration() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let file = environment["FONTCONFIG_FILE"], !file.isEmpty {
            if file.hasPrefix("/") { return file }
            return (environment["FONTCONFIG_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/fonts") + "/" + file
        }
        return (environment["FONTCONFIG_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/fonts") + "/fonts.conf"
    }

    /// Every font file under `directory`, its subdirectories included, sorted.
    static func fontFiles(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            if isFont(path) && isFile(path) { files.append(path) }
        }
        return files.sorted()
    }

    private static func isFont(_ path: String) -> Bool {
        FontsConf.fontExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    private static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    private static func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }
}
