// UntrustedPageTests.swift - untrusted pages, round two (issue 47): a page that writes files
// through downloads, reaches loopback through other spellings of its address, inflates
// pageheight's own process with what it posts, or navigates in a loop. Each test runs the real
// engine (or the built binary) on a fixture of Pages/hostile/ and fails without its fix.

import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

@Suite(.serialized)
struct UntrustedPageTests {
    static let hostile = HostileCase.directory

    /// Every file and directory below `directory`, with its size, as "path size" lines.
    static func listing(_ directory: URL) -> [String] {
        let manager = FileManager.default
        guard let walker = manager.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey]) else { return [] }
        var lines: [String] = []
        for case let url as URL in walker {
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? -1
            lines.append("\(url.path.dropFirst(directory.path.count)) \(size)")
        }
        return lines.sorted()
    }

    // MARK: - Downloads

    /// downloads.html saves data:, blob:, same-directory and attachment URLs under names that
    /// climb out of any directory, frames responses WebKit cannot show and navigates to an
    /// attachment: from a file page and from an http page, in each network mode, `$HOME`, the
    /// working directory and TMPDIR are as they were (TMPDIR empty again: the private directory
    /// goes at exit), and the page measures 400 px.
    @Test func noDownloadWritesAFile() throws {
        let server = try #require(HostilePageTests.server)
        let filePage = Self.hostile.appendingPathComponent("downloads.html").path
        let httpPage = server.url(for: "hostile/downloads.html").absoluteString
        for mode in [[], ["--offline"], ["--offline=block"]] {
            let root = try HostilePageTests.temporaryDirectory("downloads")
            let home = root.appendingPathComponent("home/user"), work = root.appendingPathComponent("work/a/b")
            let temporary = root.appendingPathComponent("tmp")
            for directory in [home, work, temporary] {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            try "keep\n".write(to: home.appendingPathComponent(".bashrc"), atomically: true, encoding: .utf8)
            let before = Self.listing(root)
            let run = try PageHeightBinary.run(mode + ["--timeout", "5", "--until", "schedule", filePage, httpPage],
                                               environment: ["HOME": home.path, "TMPDIR": temporary.path,
                                                             "XDG_DOWNLOAD_DIR": home.path],
                                               in: work, within: 60)
            let heights = run.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["height"] as? Double
            }
            #expect(heights == [400, 400], "\(mode): \(heights) \(run.stderr.suffix(300))")
            let after = Self.listing(root)
            #expect(after == before, "\(mode): files appeared: \(Set(after).subtracting(before).sorted())")
            #expect(try String(contentsOf: home.appendingPathComponent(".bashrc"), encoding: .utf8) == "keep\n")
            try? FileManager.default.removeItem(at: root)
        }
    }
}

extension UntrustedPageTests {
    // MARK: - The boundary on addresses, not spellings

    /// spelled-loopback.html reaches for a server on every interface of this machine through
    /// every spelling of its loopback and its own address (user information, decimal, hex and
    /// short IPv4, trailing dots, mapped, compatible and NAT64 IPv6, 0.0.0.0, `[::]`,
    /// `a.localhost`, and the machine's host name, which resolves to loopback): from a file page
    /// in each network mode, and from a page served by the public-looking name of no host, nothing
    /// arrives.
    @Test func noSpellingOfThisMachineReachesIt() async throws {
        let server = try FixtureServer(root: FixtureCase.pagesDirectory, allInterfaces: true)
        defer { server.stop() }
        let own = FixtureServer.nonLoopbackIPv4() ?? ""
        let host = ProcessInfo.processInfo.hostName
        let directory = try HostilePageTests.temporaryDirectory("spelled")
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = try String(contentsOf: Self.hostile.appendingPathComponent("spelled-loopback.html"), encoding: .utf8)
        let page = directory.appendingPathComponent("spelled.html")
        try template.replacingOccurrences(of: "<head>", with: "<head><script>window.PORT = \"\(server.port)\"; "
            + "window.NAMES = [\"\(host)\"]; window.OWN_ADDRESS = \"\(own)\";</script>")
            .write(to: page, atomically: true, encoding: .utf8)
        for mode in [[], ["--offline"], ["--offline=block"]] {
            let options = try CommandLineArguments.parse(mode + ["--timeout", "5", "x"]).options
            server.resetCounts()
            let report = try await PageHeightEngine.shared().measure(.file(page.path), options: options)
            try await Task.sleep(nanoseconds: 700_000_000) // stragglers
            #expect(report.status == .ok && report.height == 400, "\(mode): \(report.status.rawValue) \(report.message ?? "")")
            #expect(server.counts.isEmpty, "\(mode): these arrived: \(server.counts.keys.sorted())")
        }
    }
}
