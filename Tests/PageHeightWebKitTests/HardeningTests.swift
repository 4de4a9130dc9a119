// HardeningTests.swift - the holes that hostile use found (issue 27): files of ours at fixed
// paths in a shared temporary directory, `--out` replacing what it names, a service worker that
// answers the next page, write errors that crashed or were ignored, two batches on one output.
// Each test reproduces the hole against the real engine or the built binary.

import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Synchronization
import Testing

@Suite(.serialized)
struct HardeningTests {
    static let pages = FixtureCase.pagesDirectory
    static let staticPage = pages.appendingPathComponent("static.html").path

    /// A scratch directory `name` with `list.txt` listing `pages`, and the path for `out.jsonl`.
    static func batchFiles(_ name: String, pages: [String]) throws -> (directory: URL, list: String, out: String) {
        let directory = try HostilePageTests.temporaryDirectory(name)
        let list = directory.appendingPathComponent("list.txt").path
        try pages.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return (directory, list, directory.appendingPathComponent("out.jsonl").path)
    }

    /// The binary, killed after a minute unless told otherwise (the run then says `timedOut`).
    static func run(_ arguments: [String], within seconds: Double = 60, environment: [String: String?] = [:],
                    standardOutput: FileHandle? = nil, during: (@Sendable (Int32) -> Void)? = nil) throws -> PageHeightBinary.Run {
        try PageHeightBinary.run(arguments, environment: environment, within: seconds, standardOutput: standardOutput, during: during)
    }

    // MARK: - Service workers

    /// service-worker.html registers a worker that answers every request in its folder with a
    /// 9999 px page; navigated.html, measured next from the same origin, must still be 5000 px:
    /// through the library, and with two page arguments offline.
    @Test func aServiceWorkerDoesNotAnswerTheNextPage() async throws {
        let server = try #require(HostilePageTests.server)
        let registering = server.url(for: "hostile/service-worker.html").absoluteString
        let next = server.url(for: "hostile/navigated.html").absoluteString
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["--timeout", "5", "x"]).options
        for round in 1...2 {
            let first = await engine.measure(.url(registering), options: options)
            #expect(first.status == .ok && first.height == 400, "round \(round): \(first.status.rawValue) \(first.height ?? -1)")
            let second = await engine.measure(.url(next), options: options)
            #expect(second.status == .ok && second.height == 5000,
                    "round \(round): the page after a service worker measured \(second.height ?? -1)")
        }
        let cli = try Self.run(["--json", "--offline", "--timeout", "5", registering, next, registering, next])
        let heights = cli.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["height"] as? Double
        }
        #expect(heights == [400, 5000, 400, 5000], "several page arguments: \(heights) \(cli.stderr.suffix(300))")
    }

    // MARK: - The probe's own world

    /// forge.html posts readings of 99999 px to the probe's message handler and replaces
    /// `window.__pageheight`: none of it reaches the timeline, every strategy shows 400 px.
    @Test func aPageCannotForgeReadings() async throws {
        let options = try CommandLineArguments.parse(["--timeout", "8", "x"]).options
        let page = HostileCase.directory.appendingPathComponent("forge.html").path
        let report = try await PageHeightEngine.shared().measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 400, "\(report.status.rawValue) \(report.height ?? -1)")
        #expect(!report.samples.contains { $0.height == 99999 }, "a forged reading is in the timeline")
        for outcome in [report.strategies.once, report.strategies.schedule, report.strategies.observe] {
            #expect(outcome.height == 400 && !outcome.jumps.contains { $0.height == 99999 })
        }
    }

    // MARK: - What a page may load

    /// Each row of the README's trust-model table: offline-reach.html reaches for a server on
    /// every interface, through its loopback and its private address, in every way it can; the
    /// server counts what arrives.
    @Test func aPageReachesLoopbackAndPrivateHostsOnlyWhenServedFromThemOrAllowed() async throws {
        let server = try FixtureServer(root: FixtureCase.pagesDirectory, allInterfaces: true)
        defer { server.stop() }
        let address = try #require(FixtureServer.nonLoopbackIPv4(), "this machine has no non-loopback IPv4 address")
        let loopback = "http://127.0.0.1:\(server.port)", privateBase = "http://\(address):\(server.port)"
        let directory = try HostilePageTests.temporaryDirectory("boundary")
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = try String(contentsOf: HostileCase.directory.appendingPathComponent("offline-reach.html"), encoding: .utf8)
        func filePage(_ base: String) throws -> PageSource {
            let page = directory.appendingPathComponent("reach-\(base.hashValue).html")
            try template.replacingOccurrences(of: "<head>", with: "<head><script>window.BASE = \"\(base)\";</script>")
                .write(to: page, atomically: true, encoding: .utf8)
            return .file(page.path)
        }
        func servedPage(from origin: String, reaching base: String) -> PageSource {
            .url(origin + "/hostile/offline-reach.html?base=" + (base.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? base))
        }
        let rows: [(String, PageSource, [String], Bool)] = [
            ("file page -> loopback", try filePage(loopback), [], false),
            ("file page -> loopback, allowed", try filePage(loopback), ["--allow-host", "127.0.0.1:\(server.port)"], true),
            ("file page -> private address", try filePage(privateBase), [], false),
            ("loopback page -> loopback", servedPage(from: loopback, reaching: loopback), [], true),
            ("loopback page -> private address", servedPage(from: loopback, reaching: privateBase), [], false),
            ("loopback page -> private address, allowed", servedPage(from: loopback, reaching: privateBase),
             ["--allow-host", address], true),
            ("private page -> private address", servedPage(from: privateBase, reaching: privateBase), [], true),
            ("private page -> loopback", servedPage(from: privateBase, reaching: loopback), [], false),
        ]
        for (label, source, arguments, arrives) in rows {
            let options = try CommandLineArguments.parse(arguments + ["--timeout", "5", "x"]).options
            server.resetCounts()
            let report = try await PageHeightEngine.shared().measure(source, options: options)
            try await Task.sleep(nanoseconds: 700_000_000) // stragglers
            let arrived = server.counts
            print("boundary: \(label): \(report.status.rawValue), arrived: \(arrived.sorted { $0.key < $1.key })")
            #expect(report.status == .ok && report.height == 400, "\(label): \(report.status.rawValue) \(report.message ?? "")")
            if arrives {
                for how in ["img", "css", "script", "fetch", "xhr"] {
                    #expect((arrived[how] ?? 0) > 0, "\(label): \(how) should arrive")
                }
            } else {
                #expect(arrived.isEmpty, "\(label): these arrived: \(arrived)")
            }
        }
    }

    /// A file page loads from its own directory and below, not from beside or above it (a
    /// script, a stylesheet, an image: each would add to its height).
    @Test func aFilePageLoadsOnlyFromItsOwnDirectoryTree() async throws {
        let root = try HostilePageTests.temporaryDirectory("tree")
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site"), secret = root.appendingPathComponent("secret")
        for folder in [site, site.appendingPathComponent("sub"), secret] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let grow = { (px: Int) in "document.getElementById('box').style.height = (parseInt(document.getElementById('box').style.height) + \(px)) + 'px';" }
        try grow(100).write(to: site.appendingPathComponent("sub/inside.js"), atomically: true, encoding: .utf8)
        try grow(1000).write(to: secret.appendingPathComponent("outside.js"), atomically: true, encoding: .utf8)
        try "p { color: red; }".write(to: secret.appendingPathComponent("outside.css"), atomically: true, encoding: .utf8)
        let png = try Data(contentsOf: FixtureCase.pagesDirectory.appendingPathComponent("hostile/image.png"))
        try png.write(to: secret.appendingPathComponent("outside.png"))
        let page = site.appendingPathComponent("page.html")
        try """
            <!DOCTYPE html><html><head><meta charset="utf-8"><style>html, body { margin: 0; }</style></head>
            <body><div id="box" style="height:400px"></div>
            <script src="sub/inside.js"></script>
            <script src="../secret/outside.js"></script>
            <link rel="stylesheet" href="../secret/outside.css" onload="\(grow(2000))">
            <img src="../secret/outside.png" style="display:none" onload="\(grow(4000))">
            <img src="file://\(secret.path)/outside.png" style="display:none" onload="\(grow(8000))">
            </body></html>
            """.write(to: page, atomically: true, encoding: .utf8)
        let options = try CommandLineArguments.parse(["--timeout", "5", "x"]).options
        let report = try await PageHeightEngine.shared().measure(.file(page.path), options: options)
        #expect(report.status == .ok && report.height == 500, "\(report.height ?? -1): something outside the page's folder loaded")
    }

    // MARK: - The private directory

    /// A file planted where pageheight once wrote its session-bus configuration
    /// (`$TMPDIR/pageheight-session-bus.conf`) is neither used nor replaced, and the run leaves
    /// nothing of its own in TMPDIR.
    @Test func nothingIsWrittenAtAFixedPathInTheTemporaryDirectory() throws {
        let temporary = try HostilePageTests.temporaryDirectory("tmpdir")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let planted = temporary.appendingPathComponent("pageheight-session-bus.conf")
        let socket = temporary.appendingPathComponent("planted-socket").path
        let plantedText = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:path=\(socket)</listen><auth>EXTERNAL</auth>
            <servicedir>\(temporary.path)/services</servicedir>
            <policy context="default"><allow send_destination="*"/><allow own="*"/></policy></busconfig>
            """
        try plantedText.write(to: planted, atomically: true, encoding: .utf8)
        let run = try Self.run([Self.staticPage], environment: ["TMPDIR": temporary.path, "DBUS_SESSION_BUS_ADDRESS": nil])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("1234 px"), "\(run.stdout)")
        #expect(try String(contentsOf: planted, encoding: .utf8) == plantedText, "the planted file was replaced")
        #expect(!FileManager.default.fileExists(atPath: socket), "dbus-daemon ran with the planted configuration")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left == ["pageheight-session-bus.conf"], "the run left files in TMPDIR: \(left)")
    }

    /// The private directory is made fresh by mkdtemp: a name of this process's, mode 0700, ours.
    @Test func thePrivateDirectoryIsOnlyOurs() throws {
        _ = try PageHeightEngine.shared()
        let path = try PrivateDirectory.path()
        let name = (path as NSString).lastPathComponent
        #expect(PrivateDirectory.ownerProcess(of: name) == getpid(), "\(name)")
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o777 == 0o700 && info.st_uid == geteuid())
        #expect(FileManager.default.fileExists(atPath: path + "/session-bus.conf")
                || ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"].map { !$0.isEmpty } == true)
    }

    /// An engine that cannot make its private directory does not start: exit 70, one message
    /// that names the cause, no result for any page (a batch writes none, so `--resume` will
    /// measure them all).
    @Test func anUnwritableTemporaryDirectoryIsAnEngineError() throws {
        let (directory, list, out) = try Self.batchFiles("no-tmpdir", pages: [Self.staticPage, Self.staticPage])
        defer { try? FileManager.default.removeItem(at: directory) }
        let single = try Self.run([Self.staticPage], environment: ["TMPDIR": "/proc"])
        #expect(single.status == 70, "exit \(single.status): \(single.stderr)")
        #expect(single.stdout.isEmpty)
        #expect(single.stderr.contains("private directory") && single.stderr.contains("TMPDIR"), "\(single.stderr)")
        let batch = try Self.run(["batch", "--no-progress", "--out", out, list], environment: ["TMPDIR": "/proc"])
        #expect(batch.status == 70, "exit \(batch.status): \(batch.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).isEmpty, "results were written")
    }

    // MARK: - --out writes through, never replaces

    /// A FIFO and a symbolic link given to `--out` stay what they are; the results go through them.
    @Test func outWritesThroughAPipeAndALink() async throws {
        let (directory, list, _) = try Self.batchFiles("out-through", pages: [Self.staticPage])
        defer { try? FileManager.default.removeItem(at: directory) }

        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> String in
            guard let handle = FileHandle(forReadingAtPath: fifo) else { return "" }
            return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        }
        let throughPipe = try Self.run(["batch", "--no-progress", "--out", fifo, list])
        let read = await reader.value
        #expect(throughPipe.status == 0, "\(throughPipe.stderr)")
        #expect(read.contains("\"height\":1234"), "the reader got: \(read.prefix(200))")
        #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")

        let target = directory.appendingPathComponent("target.jsonl").path
        let link = directory.appendingPathComponent("link.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let throughLink = try Self.run(["batch", "--no-progress", "--out", link, list])
        #expect(throughLink.status == 0, "\(throughLink.stderr)")
        #expect(Self.fileType(link) == S_IFLNK, "the link was replaced")
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("\"height\":1234"))
    }

    /// A directory, a missing directory, a pipe nothing reads and `--resume` on a pipe are refused with a message that
    /// says what is wrong (exit 64), before any page is measured.
    @Test func outThatCannotBeWrittenIsAClearUsageError() throws {
        let (directory, list, _) = try Self.batchFiles("out-bad", pages: [Self.staticPage])
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [([String], String)] = [
            (["--out", directory.path], "it is a directory"),
            (["--out", directory.path + "/missing/out.jsonl"], "/missing' does not exist"),
            (["--resume", "--out", fifo], "--resume needs a regular file"),
            (["--out", fifo], "a pipe (FIFO) that nothing reads"), // not a wait in open(2) for ever
        ]
        for (options, message) in cases {
            let run = try Self.run(["batch", "--no-progress"] + options + [list], within: 20)
            #expect(run.status == 64 && run.stderr.contains(message), "\(options): exit \(run.status): \(run.stderr)")
        }
        #expect(Self.fileType(directory.path) == S_IFDIR)
    }

    // MARK: - Write errors

    /// Results that cannot be written end the run with a message and exit 74: batch output to a
    /// link to /dev/full, single-page and batch output on a full standard output. /dev/full
    /// stays a device.
    @Test func aFullDiskIsExit74WithAMessage() throws {
        let (directory, list, _) = try Self.batchFiles("full", pages: Array(repeating: Self.staticPage, count: 3))
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("full.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/full")

        let viaLink = try Self.run(["batch", "--jobs", "1", "--no-progress", "--out", link, list])
        #expect(viaLink.signal == nil && viaLink.status == 74, "exit \(viaLink.status) signal \(viaLink.signal ?? 0)")
        #expect(viaLink.stderr.contains("No space left on device") && viaLink.stderr.contains("--resume"), "\(viaLink.stderr)")
        #expect(Self.fileType(link) == S_IFLNK && Self.fileType("/dev/full") == S_IFCHR)

        for arguments in [[Self.staticPage], ["--json", Self.staticPage], ["batch", "--no-progress", list]] {
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let run = try Self.run(arguments, standardOutput: full)
            #expect(run.signal == nil && run.status == 74, "\(arguments): exit \(run.status) signal \(run.signal ?? 0)")
            #expect(run.stderr.contains("standard output") && run.stderr.contains("No space left"), "\(arguments): \(run.stderr)")
        }
    }

    /// A reader that goes away (`pageheight batch … | head -1`): the run ends at once and
    /// quietly (exit 141), with no crash and no backtrace.
    @Test func aClosedPipeEndsTheRunQuietly() throws {
        let (directory, list, _) = try Self.batchFiles("pipe", pages: Array(repeating: Self.staticPage, count: 6))
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let run = try Self.run(["batch", "--jobs", "1", "--no-progress", list], within: 30,
                               standardOutput: pipe.fileHandleForWriting)
        #expect(!run.timedOut && run.signal == nil && run.status == 141, "exit \(run.status) signal \(run.signal ?? 0)")
        #expect(run.stderr.isEmpty, "\(run.stderr.prefix(300))")
    }

    // MARK: - One writer per output

    /// A second batch on an output that a running batch writes is refused (exit 64, a message
    /// that says why), with or without `--resume`; the first batch's results all stay.
    @Test func aSecondBatchOnTheSameOutputIsRefused() async throws {
        let directory = try HostilePageTests.temporaryDirectory("two-writers")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        let out = directory.appendingPathComponent("out.jsonl").path
        let entries = Array(repeating: Self.staticPage, count: 8)
        try entries.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let first = Task.detached { try Self.run(["batch", "--jobs", "1", "--clock", "real", "--no-progress", "--out", out, list]) }
        // Wait until the first batch holds the file (its first line is written).
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").isEmpty {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        for extra in [[], ["--resume"]] {
            let second = try Self.run(["batch", "--no-progress"] + extra + ["--out", out, list], within: 20)
            #expect(second.status == 64 && second.stderr.contains("being written by another pageheight"),
                    "\(extra): exit \(second.status): \(second.stderr)")
        }
        let firstRun = try await first.value
        #expect(firstRun.status == 0, "\(firstRun.stderr)")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == entries.count, "\(lines.count) results of \(entries.count)")
    }

    /// `--resume` on a file written with other measuring options or for another list is refused,
    /// naming the difference; the same command resumes.
    @Test func resumeRefusesAnotherWidthOrAnotherList() throws {
        let directory = try HostilePageTests.temporaryDirectory("resume-check")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        let other = directory.appendingPathComponent("other.txt").path
        let out = directory.appendingPathComponent("out.jsonl").path
        let absolute = Self.pages.appendingPathComponent("absolute.html").path
        try [Self.staticPage, absolute].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try [absolute, Self.staticPage].joined(separator: "\n").write(toFile: other, atomically: true, encoding: .utf8)
        let first = try Self.run(["batch", "--no-progress", "--out", out, list])
        #expect(first.status == 0, "\(first.stderr)")
        let wider = try Self.run(["batch", "--no-progress", "--resume", "--width", "1024", "--out", out, list])
        #expect(wider.status == 64 && wider.stderr.contains("width 390") && wider.stderr.contains("1024"), "\(wider.stderr)")
        let otherList = try Self.run(["batch", "--no-progress", "--resume", "--out", out, other])
        #expect(otherList.status == 64 && otherList.stderr.contains("another list"), "\(otherList.stderr)")
        let same = try Self.run(["batch", "--no-progress", "--resume", "--out", out, list])
        #expect(same.status == 0 && same.stderr.contains("2 pages already in"), "\(same.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 2)
    }

    /// A batch's engine process (the run's one child of its own program, `EngineProcess`)
    /// allocates WebKit's memory with malloc: it started with WebKit's switch, `Malloc=1`, in its
    /// environment (its first environment, as /proc shows it), and the run itself never needed
    /// it. The web processes it starts have no such switch and keep libpas. A single page's
    /// engine process has no switch either.
    @Test func aBatchAllocatesWithMallocItsWebProcessesDoNot() throws {
        let (directory, list, out) = try Self.batchFiles("malloc", pages: Array(repeating: Self.staticPage, count: 4))
        defer { try? FileManager.default.removeItem(at: directory) }
        @Sendable func environment(_ pid: Int32) -> [Substring] {
            (WebProcesses.read("/proc/\(pid)/environ") ?? "").split(separator: "\0")
        }
        @Sendable func engineProcess(of pid: Int32) -> Int32? {
            WebProcesses.descendants(of: pid).first { $0.name == "pageheight" }?.pid
        }
        let seen = Synchronization.Mutex<(run: [Substring], engine: [Substring], web: [[Substring]])>(([], [], []))
        let run = try Self.run(["batch", "--jobs", "2", "--clock", "real", "--no-progress", "--out", out, list]) { pid in
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let web = WebProcesses.descendants(of: pid).filter { $0.name.hasPrefix("WebKitWebProces") }
                if !web.isEmpty, let engine = engineProcess(of: pid) {
                    seen.withLock { $0 = (environment(pid), environment(engine), web.map { environment($0.pid) }) }
                    return
                }
                usleep(20_000)
            }
        }
        #expect(run.status == 0, "\(run.stderr)")
        let (own, engine, web) = seen.withLock { $0 }
        #expect(!own.isEmpty && !own.contains("Malloc=1"), "\(own)")
        #expect(engine.contains("Malloc=1") && engine.contains("PAGEHEIGHT_SYSTEM_MALLOC=1"), "\(engine)")
        #expect(!web.isEmpty && web.allSatisfy { !$0.isEmpty && !$0.contains { $0.hasPrefix("Malloc=") } }, "\(web)")
        let single = Synchronization.Mutex<[Substring]>([])
        let page = try Self.run([Self.staticPage]) { pid in
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, WebProcesses.descendants(of: pid).filter({ $0.name.hasPrefix("WebKit") }).isEmpty { usleep(20_000) }
            single.withLock { $0 = engineProcess(of: pid).map(environment) ?? [] }
        }
        #expect(page.status == 0, "\(page.stderr)")
        #expect(single.withLock { !$0.isEmpty && !$0.contains("Malloc=1") }, "a single page's engine has the switch")
    }

    /// A run's standard error ends with pageheight's own lines: nothing from a web process that
    /// was starting as the run ended (a spare view's: "cannot open display"), nor a lost display
    /// reported while the processes are ended, nor a crash of WebKit's process launcher finding
    /// a web process it was starting killed ("short read from PID socket"): the exit status is
    /// the run's. Several runs, as the moment is a race.
    @Test func theEndLeavesNothingOnStandardError() throws {
        let (directory, list, out) = try Self.batchFiles("quiet-end", pages: Array(repeating: Self.staticPage, count: 6))
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<4 {
            let runs = [try Self.run(["batch", "--jobs", "1", "--no-progress", "--out", out + "\(round)", list]),
                        try Self.run(["batch", "--jobs", "4", "--no-progress", "--out", out + "\(round)-4", list]),
                        try Self.run([Self.staticPage])]
            for run in runs {
                #expect(run.status == 0 && run.signal == nil, "\(run.stderr)")
                #expect(!run.stderr.contains("Gtk-") && !run.stderr.contains("display"), "round \(round): \(run.stderr)")
            }
        }
    }

    /// pageheight's own Xvfb killed mid-batch: the run stops at once with exit 70 and a message
    /// that names the cause and how to go on; what was written stays, and `--resume` measures
    /// the rest.
    @Test func aLostDisplayEndsTheBatchWithAMessageAndResumeGoesOn() throws {
        let (directory, list, out) = try Self.batchFiles("xvfb", pages: Array(repeating: Self.staticPage, count: 12))
        defer { try? FileManager.default.removeItem(at: directory) }
        let killed = try Self.run(["batch", "--jobs", "1", "--clock", "real", "--no-progress", "--out", out, list], within: 60) { pid in
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").isEmpty { usleep(20_000) }
            for child in WebProcesses.descendants(of: pid) where child.name.hasPrefix("Xvfb") { kill(child.pid, SIGKILL) }
        }
        #expect(!killed.timedOut && killed.signal == nil && killed.status == 70, "exit \(killed.status): \(killed.stderr)")
        #expect(killed.stderr.contains("went away") && killed.stderr.contains("--resume"), "\(killed.stderr)")
        let kept = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count
        #expect(kept >= 1 && kept < 12, "\(kept) results")
        let resumed = try Self.run(["batch", "--jobs", "1", "--clock", "real", "--no-progress", "--resume", "--out", out, list], within: 60)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 12)
    }

    /// Thirty-two pages whose script never yields, thirty-two jobs on a small machine: every
    /// verdict comes within 3 s of its page's timeout (the margin the README states; starting 32
    /// views at once on the engine's thread is what delays the latest ones), and the whole batch
    /// within the timeout plus the time to start its views.
    @Test func manyJobsOfStalledPagesKeepTheirTimeout() throws {
        let page = HostileCase.directory.appendingPathComponent("busy-after-load.html").path
        let (directory, list, out) = try Self.batchFiles("many-jobs", pages: Array(repeating: page, count: 32))
        defer { try? FileManager.default.removeItem(at: directory) }
        let started = Date()
        let run = try Self.run(["batch", "--jobs", "32", "--timeout", "5", "--no-progress", "--out", out, list], within: 60)
        let wall = Date().timeIntervalSince(started)
        #expect(!run.timedOut && run.status == 1, "\(run.stderr.suffix(300))")
        let totals = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]).flatMap { ($0["timings"] as? [String: Any])?["total"] as? Double }
        }
        print("many jobs: 32 stalled pages, wall \(String(format: "%.1f", wall)) s, latest verdict \(totals.max() ?? -1) s")
        #expect(totals.count == 32 && totals.allSatisfy { $0 <= 5 + 3 }, "\(totals.sorted().suffix(3))")
        #expect(wall < 20, "the batch took \(wall) s")
    }

    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }
}
