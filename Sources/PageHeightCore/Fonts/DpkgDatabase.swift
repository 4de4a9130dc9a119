import Foundation

/// What dpkg knows about installed packages, read from its files (no process started): versions
/// from `status`, a package's files from `info/<package>.list`.
package enum DpkgDatabase {
    static let directory = "/var/lib/dpkg"

    /// The version of every installed package in a `status` file's text, by name (without an
    /// architecture: font packages are `all`; for a package installed for several
    /// architectures, the first one listed).
    package static func installedVersions(status: String) -> [String: String] {
        var versions: [String: String] = [:]
        for paragraph in status.split(separator: "\n\n", omittingEmptySubsequences: true) {
            var name: Substring?, version: Substring?, installed = false
            for line in paragraph.split(separator: "\n") {
                if line.hasPrefix("Package: ") {
                    name = line.dropFirst("Package: ".count)
                } else if line.hasPrefix("Version: ") {
                    version = line.dropFirst("Version: ".count)
                } else if line.hasPrefix("Status: ") {
                    installed = line.hasSuffix(" installed")
                }
            }
            if installed, let name, let version, versions[String(name)] == nil {
                versions[String(name)] = String(version)
            }
        }
        return versions
    }

    /// The installed versions on this machine; empty when dpkg's status cannot be read.
    package static func installedVersions() -> [String: String] {
        guard let data = FileManager.default.contents(atPath: directory + "/status") else { return [:] }
        return installedVersions(status: String(decoding: data, as: UTF8.self))
    }

    /// The paths a package installed (directories included), from its `.list` file; nil when
    /// there is none.
    package static func files(of package: String) -> [String]? {
        for name in [package, package + ":" + architecture] {
            if let data = FileManager.default.contents(atPath: "\(directory)/info/\(name).list") {
                return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            }
        }
        return nil
    }

    /// dpkg's name for this machine's architecture, as in a multi-arch `.list` file's name.
    private static var architecture: String {
        #if arch(x86_64)
        "amd64"
        #elseif arch(arm64)
        "arm64"
        #else
        "unknown"
        #endif
    }
}
