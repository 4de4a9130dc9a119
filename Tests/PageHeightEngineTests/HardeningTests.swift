// HardeningTests.swift - the holes that hostile use found (issue 27): files of ours at fixed
// paths in a shared temporary directory, `--out` replacing what it names, a service worker that
// answers the next page, write errors that crashed or were ignored, two batches on one output.
// Each test reproduces the hole against the real engine or the built binary.

import Foundation
@testable import PageHeight
import Testing

@Suite(.serialized)
struct HardeningTests {
    static let pages = FixtureCase.pagesDirectory
    static let staticPage = pages.appendingPathComponent("static.html").path

    static func run(_ arguments: [String], within seconds: Double = 60, environment: [String: String?] = [:],
                    standardOutput: FileHandle? = nil) throws -> HostilePageTests.Run {
        try HostilePageTests.runBinary(arguments, within: seconds, environment: environment, standardOutput: standardOutput)
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
        let cli = try Self.run(["--offline", "--timeout", "5", registering, next, registering, next])
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
        let directory = try HostilePageTests.temporaryDirectory("no-tmpdir")
        defer { try? FileManager.default.removeItem(at: directory) }
        let single = try Self.run([Self.staticPage], environment: ["TMPDIR": "/proc"])
        #expect(single.status == 70, "exit \(single.status): \(single.stderr)")
        #expect(single.stdout.isEmpty)
        #expect(single.stderr.contains("private directory") && single.stderr.contains("TMPDIR"), "\(single.stderr)")
        let list = directory.appendingPathComponent("list.txt").path
        let out = directory.appendingPathComponent("out.jsonl").path
        try [Self.staticPage, Self.staticPage].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try Self.run(["batch", "--no-progress", "--out", out, list], environment: ["TMPDIR": "/proc"])
        #expect(batch.status == 70, "exit \(batch.status): \(batch.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).isEmpty, "results were written")
    }

    // MARK: - --out writes through, never replaces

    /// A FIFO and a symbolic link given to `--out` stay what they are; the results go through them.
    @Test func outWritesThroughAPipeAndALink() async throws {
        let directory = try HostilePageTests.temporaryDirectory("out-through")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        try Self.staticPage.write(toFile: list, atomically: true, encoding: .utf8)

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

    /// A directory, a missing directory and `--resume` on a pipe are refused with a message that
    /// says what is wrong (exit 64), before any page is measured.
    @Test func outThatCannotBeWrittenIsAClearUsageError() throws {
        let directory = try HostilePageTests.temporaryDirectory("out-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        try Self.staticPage.write(toFile: list, atomically: true, encoding: .utf8)
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [([String], String)] = [
            (["--out", directory.path], "it is a directory"),
            (["--out", directory.path + "/missing/out.jsonl"], "/missing' does not exist"),
            (["--resume", "--out", fifo], "--resume needs a regular file"),
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
        let directory = try HostilePageTests.temporaryDirectory("full")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        try [Self.staticPage, Self.staticPage, Self.staticPage].joined(separator: "\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
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
        let directory = try HostilePageTests.temporaryDirectory("pipe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        try Array(repeating: Self.staticPage, count: 6).joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
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
        let first = Task.detached { try Self.run(["batch", "--jobs", "1", "--no-progress", "--out", out, list]) }
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

    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }
}
