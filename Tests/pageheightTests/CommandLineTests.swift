import Foundation
import PageHeightTestSupport
import Testing

/// Runs the built `pageheight` binary and checks its whole output and exit code.
@Suite(.serialized)
struct CommandLineTests {
    static let pages = PageHeightBinary.root.appendingPathComponent("Pages")

    func page(_ name: String) -> String { Self.pages.appendingPathComponent(name).path }

    @Test func helpAndVersionGoToStdoutAndExitZero() throws {
        let help = try PageHeightBinary.run(["--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        for heading in ["OVERVIEW:", "USAGE: pageheight [options] <page> ...", "ARGUMENTS:", "OPTIONS:", "(default: 390)"] {
            #expect(help.stdout.contains(heading), "help lacks \(heading)")
        }
        let version = try PageHeightBinary.run(["--version"])
        // The engine's version is the library's, asked at run time.
        // The engine's version is the installed library's (Debian's version without its revision).
        let dpkg = Process()
        dpkg.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg-query")
        dpkg.arguments = ["-W", "-f", "${Version}", "libwebkit2gtk-4.1-0"]
        let out = Pipe()
        dpkg.standardOutput = out
        try dpkg.run()
        let installed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = PageHeightBinary.waitForExit(dpkg)
        let upstream = installed.split(separator: "-").first.map(String.init) ?? installed
        #expect(version.status == 0 && version.stdout == "pageheight 0.1.0 (WebKitGTK \(upstream))\n", "\(version.stdout) \(installed)")
    }

    @Test(arguments: [
        (["--bogus", "a.html"], "Error: unknown option '--bogus'"),
        (["--widht", "390", "a.html"], "Error: unknown option '--widht' (did you mean '--width'?)"),
        (["batch", "--jbos", "2", "list.txt"], "Error: unknown option '--jbos' (did you mean '--jobs'?)"),
        (["--width", "-5", "a.html"], "Error: '--width' must be between 1 and 100000, got -5"),
        ([String](), "Error: missing page (a file, a URL, or - for stdin)"),
        (["no/such/page.html"], "Error: no such file: "),
        (["http://"], "Error: malformed URL 'http://': expected http(s)://host/path"),
        (["Pages"], "Error: is a directory, not a page: "),
    ])
    func usageErrorsExit64WithMessageUsageAndHint(_ arguments: [String], _ message: String) throws {
        let result = try PageHeightBinary.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 9, "\(result.stderr)")
        #expect(lines.first?.hasPrefix(message) == true, "\(result.stderr)")
        #expect(lines.dropFirst().first == "USAGE: pageheight [options] <page> ...")
        #expect(lines.dropFirst(2).first == "       pageheight batch [options] <list>")
        #expect(lines.dropFirst(3).first == "       pageheight check [options] [suite.json]")
        #expect(lines.dropFirst(5).first == "       pageheight replay [options] <reports> ...")
        #expect(lines.dropFirst(6).first == "       pageheight tune [options] <reports> ...")
        #expect(lines.dropFirst(7).first == "       pageheight serve [--listen HOST:PORT] [--jobs N] [--queue N] [options]")
        #expect(lines.last == "See 'pageheight --help'.")
    }

    @Test func onePagePrintsOneHumanLine() throws {
        let result = try PageHeightBinary.run([page("static.html")])
        #expect(result.status == 0, "\(result.stderr)")
        let pattern = #/^1234 px \(settled at \d+\.\d\d s of page time; the 5\.30 s schedule shows the same\)\n$/#
        #expect(result.stdout.wholeMatch(of: pattern) != nil, "\(result.stdout)")
        // The page's seconds are labelled where they are not the wall clock's (issue 61.5).
        let real = try PageHeightBinary.run(["--clock", "real", page("static.html")])
        #expect(real.stdout.wholeMatch(of: #/^1234 px \(settled at \d+\.\d\d s; the 5\.30 s schedule shows the same\)\n$/#) != nil, "\(real.stdout)")
    }

    /// The one-line output names a real disagreement of the metrics (margins.html: children's
    /// margins collapse through the body, 54 px beyond its own 8 + 8) and stays quiet about the
    /// body's own margins (static.html).
    @Test func oneLineOutputNamesARealMetricsDisagreement() throws {
        let margins = try PageHeightBinary.run([page("margins.html")])
        #expect(margins.status == 0)
        #expect(margins.stdout.hasSuffix("; metrics disagree: body-scroll 550 px but document-scroll 620 px, 54 px more than "
            + "the body's own margins explain (margins collapsing through the body, absolute positioning, overflow or "
            + "viewport-relative CSS)\n"), "\(margins.stdout)")
        let plain = try PageHeightBinary.run([page("static.html")])
        #expect(plain.status == 0 && !plain.stdout.contains("disagree"), "\(plain.stdout)")
    }

    @Test func jsonReportHasTheDocumentedFields() throws {
        let result = try PageHeightBinary.run(["--json", "--header", "50", "--footer", "70", page("absolute.html")])
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["status"] as? String == "ok")
        #expect(report["height"] as? Double == 500)
        #expect(report["total"] as? Double == 620)
        let metrics = try #require(report["metrics"] as? [String: Double])
        #expect(metrics["max"] == 3000 && metrics["body-scroll"] == 500 && metrics.count == 7)
        #expect((report["metricsDisagree"] as? String)?.contains("max 3000 px") == true
            || (report["metricsDisagree"] as? String)?.contains("3000 px") == true)
        let timings = try #require(report["timings"] as? [String: Double])
        for key in ["loadStarted", "committed", "finished", "firstMeasurement", "settledAt", "total"] {
            #expect(timings[key] != nil, "timings lack \(key)")
        }
        let samples = try #require(report["samples"] as? [[String: Any]])
        #expect(samples.contains { $0["source"] as? String == "load" })
        #expect(samples.contains { $0["source"] as? String == "observer" })
    }

    @Test func severalPagesPrintALineEachInOrderAndExitOneWhenOneIsNotOK() throws {
        let plain = try PageHeightBinary.run([page("empty.html"), page("static.html")])
        #expect(plain.status == 1)
        let rows = plain.stdout.split(separator: "\n")
        #expect(rows.count == 2, "\(plain.stdout)")
        #expect(rows.first?.hasPrefix(page("empty.html") + ": ") == true, "\(plain.stdout)")
        #expect(rows.last?.hasPrefix(page("static.html") + ": 1234 px (settled at ") == true, "\(plain.stdout)")
        let result = try PageHeightBinary.run(["--json", page("empty.html"), page("static.html")])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let reports = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(reports[0]?["status"] as? String == "fallback")
        #expect((reports[0]?["url"] as? String)?.hasSuffix("empty.html") == true)
        #expect(reports[1]?["status"] as? String == "ok")
        #expect(reports[1]?["height"] as? Double == 1234)
    }

    @Test func htmlFromStandardInput() throws {
        let html = "<!DOCTYPE html><body style='margin:0'><div style='height:777px'></div></body>"
        let result = try PageHeightBinary.run(["-"], stdin: html)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("777 px (settled at "))
    }

    @Test func verboseLogsTimestampedStepsOnStderr() throws {
        let result = try PageHeightBinary.run(["--verbose", page("static.html")])
        #expect(result.status == 0)
        for step in ["loading file://", "committed", "load finished", "load: 1234 px", "ended: settled"] {
            #expect(result.stderr.contains(step), "no '\(step)' in the log")
        }
        #expect(result.stderr.split(separator: "\n").allSatisfy { $0.wholeMatch(of: #/ *\d+\.\d{3} s  .*/#) != nil })
    }

    @Test func noJavaScriptFallsBackToALabelledEstimate() throws {
        let result = try PageHeightBinary.run(["--no-javascript", "--json", page("no-javascript.html")])
        #expect(result.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["status"] as? String == "fallback")
        let estimate = try #require(report["estimate"] as? [String: Any])
        #expect(estimate["reason"] as? String == "JavaScript is off")
        #expect((estimate["textLength"] as? Int ?? 0) > 1000)
        #expect(report["height"] as? Double == estimate["height"] as? Double)
    }

    @Test func snapshotWritesAFullDocumentPNG() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-snapshot-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try PageHeightBinary.run(["--snapshot", path, page("static.html")])
        #expect(result.status == 0, "\(result.stderr)")
        let png = try #require(FileManager.default.contents(atPath: path))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // IHDR: width and height, big-endian, at bytes 16 and 20.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 390 && height == 1234)
    }

    /// A page without a doctype is reported in quirks mode, and its line warns that its height is
    /// at least the view's; a standards-mode page has neither.
    @Test func quirksModeIsReportedAndWarnedAbout() throws {
        let quirks = try PageHeightBinary.run([page("quirks.html")])
        #expect(quirks.stdout.hasPrefix("844 px (") && quirks.stdout.contains("warning: quirks mode (no <!DOCTYPE html>)"), "\(quirks.stdout)")
        let json = try PageHeightBinary.run(["--json", page("quirks.html")])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["quirksMode"] as? Bool == true)
        let standards = try PageHeightBinary.run([page("static.html")])
        #expect(!standards.stdout.contains("quirks"), "\(standards.stdout)")
    }

    /// The quick rule's line says what it measured, and nothing about a schedule it did not run.
    @Test func theQuickRuleSaysWhatItMeasured() throws {
        let result = try PageHeightBinary.run(["--until", "quick", page("grow-2.5.html")])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("800 px (quick rule: measured at ") && !result.stdout.contains("schedule"), "\(result.stdout)")
    }

    /// A snapshot that cannot be written (a directory, a page taller than a PNG surface can be)
    /// is an error on stderr and exit 1, not a silent success; a missing directory is a usage
    /// error before anything is measured.
    @Test func aSnapshotThatCannotBeWrittenIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-snapshot-dir-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, String, Int32, String)] = [
            (directory.path, "static.html", 1, "was not written"),
            (directory.path + "/tall.png", "hostile/tall-200000.html", 1, "was not written"),
            (directory.path + "/missing/shot.png", "static.html", 64, "no such directory"),
        ]
        for (path, name, status, message) in cases {
            let result = try PageHeightBinary.run(["--no-fit", "--snapshot", path, page(name)])
            #expect(result.status == status && result.stderr.contains(message), "\(path): \(result.status) \(result.stderr)")
        }
    }

    /// Pages get no WebGL (the web processes' EGL has no driver: `DriverlessEGL`), and nothing
    /// about it reaches stderr; `PAGEHEIGHT_WEBGL=1` gives them Mesa's, and webgl.html then lays
    /// out its 3D figure rather than its fallback. Without the EGL library they get no WebGL either.
    @Test func pagesGetWebGLOnlyWhenAskedFor() throws {
        let without = try PageHeightBinary.run(["--until", "quick", page("webgl.html")])
        #expect(without.status == 0 && without.stdout.hasPrefix("1000 px"), "\(without.stdout)\(without.stderr)")
        #expect(without.stderr.isEmpty)
        let with = try PageHeightBinary.run(["--until", "quick", page("webgl.html")], environment: ["PAGEHEIGHT_WEBGL": "1"])
        #expect(with.status == 0 && with.stdout.hasPrefix("1800 px"), "\(with.stdout)\(with.stderr)")
        // Built without the EGL library beside it (a plain `swift build`): still no WebGL, the same height.
        let alone = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-no-egl")
        defer { try? FileManager.default.removeItem(at: alone) }
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: PageHeightBinary.url, to: alone.appendingPathComponent("pageheight"))
        #expect(!FileManager.default.fileExists(atPath: alone.appendingPathComponent("libPageHeightEGL.so").path))
        let noVendor = try PageHeightBinary.run(["--until", "quick", page("webgl.html")],
                                                executable: alone.appendingPathComponent("pageheight"))
        #expect(noVendor.status == 0 && noVendor.stdout.hasPrefix("1000 px"), "\(noVendor.stdout)\(noVendor.stderr)")
    }

    /// SIGTERM in the middle of a measurement stops pageheight, its Xvfb and every WebKit child.
    @Test(arguments: [SIGTERM, SIGINT])
    func signalStopsTheToolAndEveryChild(_ signal: Int32) throws {
        let process = try PageHeightBinary.start(["--clock", "real", "--timeout", "12", page("grow-6.5.html")])
        Thread.sleep(forTimeInterval: 2.0)
        let children = descendants(of: process.processIdentifier)
        #expect(children.count >= 3, "Xvfb, network and web process expected: \(children)")
        kill(process.processIdentifier, signal)
        #expect(PageHeightBinary.waitForExit(process) == (signal == SIGTERM ? 143 : 130))
        #expect(waitUntilGone(children), "left behind: \(children.filter(isAlive))")
    }

    @Test func normalExitLeavesNoProcessBehind() throws {
        let process = try PageHeightBinary.start(["--clock", "real", "--quiet", "1.5", page("static.html")])
        Thread.sleep(forTimeInterval: 1.2)
        let children = descendants(of: process.processIdentifier)
        #expect(PageHeightBinary.waitForExit(process) == 0)
        #expect(!children.isEmpty)
        #expect(waitUntilGone(children), "left behind: \(children.filter(isAlive))")
    }

    // MARK: - Processes

    /// Every live descendant of `pid`, from /proc.
    func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[child] = parent }
        }
        var result: [Int32] = []
        var frontier = [pid]
        while let next = frontier.popLast() {
            for (child, parent) in parents where parent == next {
                result.append(child)
                frontier.append(child)
            }
        }
        return result
    }

    /// Alive and not a zombie.
    func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    func waitUntilGone(_ pids: [Int32], within seconds: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !pids.contains(where: isAlive) { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return !pids.contains(where: isAlive)
    }
}
