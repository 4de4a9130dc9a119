// SandboxTests.swift - WebKit's sandbox around the engine's web processes (issue 62): what a web
// process can see of this machine once a page has been measured in it, read from outside through
// /proc, and that the page measured as it does without the sandbox.

import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

@Suite(.serialized)
struct SandboxTests {
    /// A page whose script, in its own folder, makes it 700 px tall, and another page's folder
    /// beside it (what a page must not reach).
    static func pageFolders() throws -> (page: String, folder: URL, other: URL) {
        let folder = try HostilePageTests.temporaryDirectory("sandbox-page")
        let other = try HostilePageTests.temporaryDirectory("sandbox-other")
        try "<!doctype html><body style=\"margin:0\"><div id=\"a\" style=\"height:100px\"></div><script src=\"grow.js\"></script>"
            .write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "document.getElementById('a').style.height = '700px'"
            .write(to: folder.appendingPathComponent("grow.js"), atomically: true, encoding: .utf8)
        try "secret".write(to: other.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        return (folder.appendingPathComponent("index.html").path, folder, other)
    }

    /// The web processes of this process's engine: below the bubblewrap WebKit started for each.
    static func sandboxedWebProcesses() -> [Int32] {
        WebProcesses.children().compactMap(WebProcesses.webProcess(runBy:))
    }

    /// A field of /proc/PID/status, as text.
    static func status(_ pid: Int32, _ field: String) -> String? {
        (WebProcesses.read("/proc/\(pid)/status") ?? "").split(separator: "\n")
            .first { $0.hasPrefix(field + ":") }
            .map { $0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    /// The names in directory `path` as process `pid` sees it (through its root), or nil when it
    /// sees no such directory.
    static func listing(_ path: String, seenBy pid: Int32) -> [String]? {
        try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/root" + path)
    }

    /// What WebKit's sandbox itself shows of `$HOME` where it exists: font, theme, sound and X
    /// authority paths (BubblewrapLauncher.cpp), and the folders that lead to them.
    static let homeEntriesWebKitShows: Set = [".fonts", ".fontconfig", ".fonts.conf", ".config", ".cache", ".local", ".themes",
                                              ".icons", ".pulse", ".asoundrc", ".Xauthority"]

    /// With the sandbox on (it starts here), a page measures as it does without it (its script,
    /// in its folder, read by the network process), while its web process runs with no new
    /// privileges, WebKit's seccomp filter, namespaces of its own (mounts, network, processes),
    /// only the capabilities bubblewrap needs, and a file system without the page's folder,
    /// another page's, this process's private files (but the web processes' own) or `$HOME`.
    @Test func aSandboxedWebProcessSeesNoneOfThisMachinesPages() async throws {
        let engine = try PageHeightEngine.shared()
        #expect(engine.sandbox == .on, "the sandbox does not start here: \(engine.sandbox)")
        let (page, folder, other) = try Self.pageFolders()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: other)
        }
        let options = try CommandLineArguments.parse(["--until", "quick", "x"]).options
        let report = await engine.measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 700, "\(report.status.rawValue) \(report.height ?? -1)")

        let processes = Self.sandboxedWebProcesses()
        #expect(!processes.isEmpty, "no web process runs in a sandbox")
        let kept = WebProcessSandbox.keptCapabilities.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
        let privateDirectory = try PrivateDirectory.path()
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        for pid in processes {
            #expect(Self.status(pid, "NoNewPrivs") == "1", "web process \(pid)")
            #expect(Self.status(pid, "Seccomp") == "2", "web process \(pid): no seccomp filter")
            for namespace in ["mnt", "net", "pid"] {
                let theirs = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/\(namespace)")
                let ours = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/\(namespace)")
                #expect(theirs != nil && theirs != ours, "web process \(pid) shares our \(namespace) namespace")
            }
            let capabilities = UInt64(Self.status(pid, "CapEff") ?? "", radix: 16) ?? .max
            #expect(capabilities & ~kept == 0, "web process \(pid) holds capabilities \(String(capabilities, radix: 16))")

            #expect(Self.listing(folder.path, seenBy: pid) == nil, "web process \(pid) sees the page's folder")
            #expect(Self.listing(other.path, seenBy: pid) == nil, "web process \(pid) sees another page's folder")
            #expect(Self.listing(FixtureCase.pagesDirectory.path, seenBy: pid) == nil, "web process \(pid) sees Pages/")
            let ownFiles = Set(Self.listing(privateDirectory, seenBy: pid) ?? [])
            #expect(ownFiles.isSubset(of: ["web-process", "runtime"]), "web process \(pid) sees our private files \(ownFiles)")
            let homeEntries = Set(Self.listing(home, seenBy: pid) ?? [])
            #expect(homeEntries.isSubset(of: Self.homeEntriesWebKitShows), "web process \(pid) sees \(home): \(homeEntries)")
            // What it must still see: the fonts' configuration and our EGL, read-only.
            #expect(FileManager.default.fileExists(atPath: "/proc/\(pid)/root" + (try PrivateDirectory.webProcessFiles()) + "/fonts.conf"))
        }
    }

    /// A display the sandbox cannot reach turns it off, rather than ending every web process:
    /// one over TCP, or a local one without its socket file. The engine's own display is fine.
    @Test func aDisplayOutOfTheSandboxsReachIsFound() throws {
        _ = try PageHeightEngine.shared()
        #expect(WebProcessSandbox.displayProblem(ProcessInfo.processInfo.environment["DISPLAY"] ?? "") == nil)
        #expect(WebProcessSandbox.displayProblem("localhost:10.0")?.contains("not a local one") == true)
        #expect(WebProcessSandbox.displayProblem("") != nil)
        #expect(WebProcessSandbox.displayProblem(":98765") == "the display's socket /tmp/.X11-unix/X98765 is missing")
    }

    /// The fonts a page is drawn with are the same inside the sandbox: a fixture whose height
    /// depends on the generic families' faces, and one with a web font, measure their declared
    /// heights in a sandboxed web process.
    @Test func fontsAreTheSameInTheSandbox() async throws {
        let engine = try PageHeightEngine.shared()
        #expect(engine.sandbox == .on, "the sandbox does not start here: \(engine.sandbox)")
        let options = try CommandLineArguments.parse(["--until", "quick", "x"]).options
        for (name, height) in [("fonts-generic.html", 2424.0), ("static.html", 1234)] {
            let page = FixtureCase.pagesDirectory.appendingPathComponent(name).path
            let report = await engine.measure(.file(page), options: options)
            #expect(report.height == height, "\(name): \(report.status.rawValue) \(report.height ?? -1)")
        }
        #expect(!Self.sandboxedWebProcesses().isEmpty, "no web process runs in a sandbox")
    }
}
