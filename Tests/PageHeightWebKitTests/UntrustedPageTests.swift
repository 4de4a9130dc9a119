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
        for mode in [[], ["--offline=refuse"], ["--offline=block"]] {
            let root = try HostilePageTests.temporaryDirectory("downloads")
            let home = root.appendingPathComponent("home/user"), work = root.appendingPathComponent("work/a/b")
            let temporary = root.appendingPathComponent("tmp")
            for directory in [home, work, temporary] {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            try "keep\n".write(to: home.appendingPathComponent(".bashrc"), atomically: true, encoding: .utf8)
            let before = Self.listing(root)
            let run = try PageHeightBinary.run(mode + ["--json", "--timeout", "5", "--until", "schedule", filePage, httpPage],
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
        for mode in [[], ["--offline=refuse"], ["--offline=block"]] {
            let options = try CommandLineArguments.parse(mode + ["--timeout", "5", "x"]).options
            server.resetCounts()
            let report = try await PageHeightEngine.shared().measure(.file(page.path), options: options)
            try await Task.sleep(nanoseconds: 700_000_000) // stragglers
            #expect(report.status == .ok && report.height == 400, "\(mode): \(report.status.rawValue) \(report.message ?? "")")
            #expect(server.counts.isEmpty, "\(mode): these arrived: \(server.counts.keys.sorted())")
        }
    }
}

extension UntrustedPageTests {
    // MARK: - What a page can make pageheight hold

    /// inflate.html forges probe events with 8 MB causes and fails images with 2 MB URLs;
    /// inflate-culprit.html gives the runaway's culprit a 4 MB id: each report stays small, no
    /// string in it is longer than a capped URL and its note, and a cut says so.
    @Test func whatAPageSendsIsCappedWhereItEnters() async throws {
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["--timeout", "5", "x"]).options
        for (page, status, height) in [("inflate.html", PageStatus.ok, 500.0), ("inflate-culprit.html", .runaway, 944)] {
            let report = await engine.measure(.file(Self.hostile.appendingPathComponent(page).path), options: options)
            #expect(report.status == status && report.height == height, "\(page): \(report.status.rawValue) \(report.height ?? -1)")
            let json = try JSONEncoder().encode(report)
            #expect(json.count < 200_000, "\(page): a report of \(json.count) bytes")
            let object = try JSONSerialization.jsonObject(with: json)
            var longest = 0
            func walk(_ value: Any) {
                if let text = value as? String { longest = max(longest, text.utf8.count) }
                if let list = value as? [Any] { list.forEach(walk) }
                if let map = value as? [String: Any] { map.values.forEach(walk) }
            }
            walk(object)
            #expect(longest < PageText.urlKept + 2 * PageText.kept + 100, "\(page): a string of \(longest) bytes")
        }
        let culprit = await engine.measure(.file(Self.hostile.appendingPathComponent("inflate-culprit.html").path), options: options)
        #expect(culprit.message?.contains("more characters cut") == true, "\(culprit.message ?? "")")
    }

    /// navigation-loop.html starts navigations to URLs of up to 1 MB without end once loaded: it
    /// is stopped as a loop (or done before it counts as one), and its static neighbours in a batch keep their
    /// heights and their verdict times (page time), at one job and at four.
    @Test func aNavigationLoopCostsItsNeighboursNothing() throws {
        let pages = FixtureCase.pagesDirectory
        let normal = ["static.html", "absolute.html", "grow-2.5.html"].map { pages.appendingPathComponent($0).path }
        let hostile = ["navigation-loop.html", "inflate.html", "downloads.html"].map { Self.hostile.appendingPathComponent($0).path }
        let entries = normal.flatMap { page in [page] + hostile }
        let alone = try PageHeightBinary.run(["--json", "--until", "schedule", "--timeout", "8"] + normal, within: 120)
        func verdicts(_ output: String) -> [String: (Double?, Double?)] {
            var found: [String: (Double?, Double?)] = [:]
            for line in output.split(separator: "\n") {
                guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let url = report["url"] as? String, normal.contains(where: { url.hasSuffix($0) }) else { continue }
                let timings = report["timings"] as? [String: Any]
                found[url] = (report["height"] as? Double, timings?["settledAt"] as? Double)
            }
            return found
        }
        let expected = verdicts(alone.stdout)
        #expect(expected.count == normal.count, "alone: \(alone.stderr.suffix(300))")
        for jobs in ["1", "4"] {
            let (directory, list, out) = try HardeningTests.batchFiles("neighbours-\(jobs)", pages: entries)
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try PageHeightBinary.run(["batch", "--until", "schedule", "--timeout", "8", "--jobs", jobs,
                                                "--no-progress", "--out", out, list], within: 300)
            let lines = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            #expect(lines.split(separator: "\n").count == entries.count, "jobs \(jobs): \(run.stderr.suffix(300))")
            let found = verdicts(lines)
            let loops = lines.split(separator: "\n").filter { $0.contains("navigation-loop.html") }
            // Stopped as a loop, or (its schedule on the virtual clock over first) measured as it was.
            #expect(loops.count == normal.count && loops.allSatisfy { $0.contains("\"status\":\"ok\"") && $0.contains("navigat") },
                    "jobs \(jobs): \(loops.map { $0.prefix(300) })")
            for (url, (height, settled)) in expected {
                let (gotHeight, gotSettled) = found[url] ?? (nil, nil)
                #expect(gotHeight == height, "jobs \(jobs): \(url) measured \(gotHeight ?? -1), alone \(height ?? -1)")
                #expect(gotSettled != nil && abs((gotSettled ?? 0) - (settled ?? 0)) < 0.25,
                        "jobs \(jobs): \(url) settled at \(gotSettled ?? -1), alone at \(settled ?? -1)")
            }
        }
    }
}

extension UntrustedPageTests {
    // MARK: - What reaches a terminal

    /// escape-sequences.html names its runaway culprit with ESC, OSC, C1 and bidirectional
    /// override characters: the one-line output and `-v` on standard error carry none of them raw.
    @Test func aPageCannotDriveTheTerminal() throws {
        let page = Self.hostile.appendingPathComponent("escape-sequences.html").path
        let run = try PageHeightBinary.run(["-v", "--timeout", "5", page], within: 60)
        #expect(run.stdout.hasPrefix("runaway:"), "\(run.stdout)")
        #expect(run.stdout.contains("\\u{1B}[2J"), "the escape is shown as text: \(run.stdout)")
        for output in [run.stdout, run.stderr] {
            let raw = output.unicodeScalars.filter { (0x00...0x1F).contains($0.value) && $0 != "\n" && $0 != "\t"
                || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) }
            #expect(raw.isEmpty, "raw control characters: \(raw.map { String($0.value, radix: 16) })")
        }
    }
}

extension UntrustedPageTests {
    // MARK: - The process tree's memory budget

    /// memory-hog.html among static pages in a `--jobs 4` batch, with the tree's budget lowered to
    /// 900 MB through `PAGEHEIGHT_MEMORY_BUDGET_MB`: the hog (the largest web process when the
    /// tree crosses the budget) is `crashed` with a message naming the budget, long before its
    /// own 2 GB limit; the static pages keep the heights they have alone.
    @Test func theProcessTreeKeepsToItsMemoryBudget() throws {
        let pages = FixtureCase.pagesDirectory
        let normal = ["static.html", "absolute.html", "grow-2.5.html"].map { pages.appendingPathComponent($0).path }
        let hog = Self.hostile.appendingPathComponent("memory-hog.html").path
        let entries = normal + [hog] + normal
        let (directory, list, out) = try HardeningTests.batchFiles("memory-budget", pages: entries)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try PageHeightBinary.run(["batch", "--timeout", "15", "--jobs", "4", "--no-progress", "--out", out, list],
                                           environment: ["PAGEHEIGHT_MEMORY_BUDGET_MB": "900"], within: 300)
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.count == entries.count, "\(run.stderr.suffix(300))")
        var heights: [String: Set<Double>] = [:]
        for line in lines {
            guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let url = report["url"] as? String else { continue }
            if url.hasSuffix("memory-hog.html") {
                #expect(report["status"] as? String == "crashed")
                let message = report["message"] as? String ?? ""
                #expect(message.contains("the process tree exceeded its memory budget (900 MB, set by PAGEHEIGHT_MEMORY_BUDGET_MB)")
                        && message.contains("this page's web process was the largest"), "\(message)")
            } else {
                #expect(report["status"] as? String == "ok", "\(url): \(report["message"] ?? "")")
                heights[url, default: []].insert(report["height"] as? Double ?? -1)
            }
        }
        let expected = ["static.html": 1234.0, "absolute.html": 500.0, "grow-2.5.html": 1300.0] // their cases
        for (url, found) in heights {
            let name = (url as NSString).lastPathComponent
            #expect(found == [expected[name] ?? -1], "\(name): \(found)")
        }
    }

    /// stores-gigabytes.html (served over loopback: IndexedDB and the Cache API need an http
    /// origin) beside pages whose web processes are larger than its own, budget 900 MB: what it
    /// stores grows WebKit's network process, and the watchdog, finding the network process the
    /// largest, stops the page whose data store holds that data, and forgets it. Before, it stopped
    /// the largest web process: an innocent `holds-memory.html` was `crashed`.
    @Test func thePageWhoseStoredDataFillsTheNetworkProcessIsTheOneStopped() throws {
        let server = try FixtureServer(root: FixtureCase.pagesDirectory)
        defer { server.stop() }
        let pages = FixtureCase.pagesDirectory
        let storer = server.url(for: "hostile/stores-gigabytes.html").absoluteString
        let entries = [storer] + ["holds-memory.html", "static.html", "holds-memory.html"].map { pages.appendingPathComponent($0).path }
        let (directory, list, out) = try HardeningTests.batchFiles("stored-data", pages: entries)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try PageHeightBinary.run(["batch", "--clock", "real", "--timeout", "20", "--jobs", "2", "--no-progress",
                                            "--allow-host", "127.0.0.1:\(server.port)", "--out", out, list],
                                           environment: ["PAGEHEIGHT_MEMORY_BUDGET_MB": "900"], within: 120)
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.count == entries.count, "\(run.stderr.suffix(300))")
        for line in lines {
            guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let url = report["url"] as? String else { continue }
            if url == storer {
                let message = report["message"] as? String ?? ""
                #expect(report["status"] as? String == "crashed" && message.contains("what the page stored (IndexedDB, the Cache API) "
                    + "filled WebKit's network process"), "\(message)")
            } else {
                let expected = url.hasSuffix("static.html") ? 1234.0 : 600
                #expect(report["status"] as? String == "ok" && report["height"] as? Double == expected, "\(url): \(report["message"] ?? "")")
            }
        }
    }

    /// A click on a link to `https://127.0.0.1:PORT/` under `--offline`: the navigation is
    /// stopped, and no connection reaches the port either. Before, WebKit preconnected on the click
    /// (a TCP connection and a TLS ClientHello to the loopback port, around the content filter).
    @Test func aClickedLinkOpensNoConnection() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        #expect(bound && listen(listener, 16) == 0)
        let port = UInt16(bigEndian: address.sin_port)
        let directory = try HostilePageTests.temporaryDirectory("preconnect")
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("index.html")
        try "<!doctype html><body style=\"margin:0\"><div style=\"height:300px\"><a id=\"a\" href=\"https://127.0.0.1:\(port)/x\">go</a></div>"
            .write(to: page, atomically: true, encoding: .utf8)
        let run = try PageHeightBinary.run(["--offline", "--then", "click=#a", page.path], within: 60)
        #expect(run.stdout.hasPrefix("300 px") && run.stdout.contains("tried to navigate"), "\(run.stdout)\(run.stderr)")
        _ = fcntl(listener, F_SETFL, O_NONBLOCK)
        let connection = accept(listener, nil, nil)
        if connection >= 0 { close(connection) }
        #expect(connection < 0, "a connection reached the loopback port")
    }
}
