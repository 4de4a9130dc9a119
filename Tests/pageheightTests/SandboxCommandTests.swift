import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import pageheight
import Synchronization
import Testing

/// WebKit's sandbox around the web processes, through the built binary: on by default, off with
/// `--no-sandbox`, and where it cannot start, one line says so and pages are measured without it.
extension CommandLineTests {
    /// The first web process below `pid` (WebKit's, or the one bubblewrap runs in its sandbox),
    /// waited for up to `seconds`.
    func webProcess(below pid: Int32, within seconds: Double = 5) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let found = descendants(of: pid).first {
                (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("WebKitWebProces") == true
            }
            if let found { return found }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// `Seccomp:` of /proc/PID/status: 2 under a filter, 0 without.
    static func seccomp(_ pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("Seccomp:") }.map { $0.dropFirst("Seccomp:".count).trimmingCharacters(in: .whitespaces) }
    }

    /// Measured with and without the sandbox, fixtures keep their heights; the default run's web
    /// process is under WebKit's seccomp filter, `--no-sandbox`'s is not; neither says anything
    /// on stderr.
    @Test func noSandboxMeasuresAsTheSandboxDoes() throws {
        let pages = ["static.html", "fonts-generic.html", "webfont.html", "long-article.html"].map(page)
        let confined = try PageHeightBinary.run(pages)
        let unconfined = try PageHeightBinary.run(["--no-sandbox"] + pages)
        let heights = { (run: PageHeightBinary.Run) in run.stdout.split(separator: "\n").map { $0.prefix { $0 != "(" } } }
        #expect(confined.status == 0 && confined.stderr.isEmpty, "\(confined.stdout)\(confined.stderr)")
        #expect(unconfined.status == 0 && unconfined.stderr.isEmpty, "\(unconfined.stdout)\(unconfined.stderr)")
        #expect(heights(confined).count == 4 && heights(confined) == heights(unconfined), "\(confined.stdout)\n\(unconfined.stdout)")

        // A page that takes the whole schedule on the real clock, time to look at its web process.
        for (arguments, expected) in [([String](), "2"), (["--no-sandbox"], "0")] {
            let filter = Mutex<String?>(nil)
            let run = try PageHeightBinary.run(arguments + ["--clock", "real", page("static.html")]) { pid in
                let found = self.webProcess(below: pid).flatMap(Self.seccomp)
                filter.withLock { $0 = found }
            }
            #expect(run.status == 0 && run.stdout.hasPrefix("1234 px"), "\(run.stdout)\(run.stderr)")
            #expect(filter.withLock { $0 } == expected, "\(arguments): the web process's Seccomp is \(filter.withLock { $0 } ?? "not found")")
        }
    }

    /// Where bubblewrap cannot make its namespaces (here: without CAP_SYS_ADMIN, as in a container
    /// that withholds it), one warning line says why, once however many pages, and the pages are
    /// measured without the sandbox; `--no-sandbox` measures without the warning. Without the
    /// check, WebKit ended the process with a GLib error (SIGTRAP) at the first page.
    @Test(.enabled(if: geteuid() == 0, "taking CAP_SYS_ADMIN out of the bounding set needs CAP_SETPCAP"))
    func whereTheSandboxCannotStartOneLineSaysSo() throws {
        let withheld = ["--bounding-set=-sys_admin", PageHeightBinary.url.path]
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        let warning = "warning: the web processes run without a sandbox: it cannot start here (bwrap: Creating new namespace "
            + "failed: Operation not permitted); --no-sandbox runs them so without this warning\n"
        let one = try PageHeightBinary.run(withheld + ["--until", "quick", page("static.html")], executable: setpriv)
        #expect(one.status == 0 && one.stdout.hasPrefix("1234 px") && one.stderr == warning, "\(one.stdout)\(one.stderr)")
        let two = try PageHeightBinary.run(withheld + ["--until", "quick", page("static.html"), page("webfont.html")],
                                           executable: setpriv)
        #expect(two.status == 0 && two.stdout.split(separator: "\n").count == 2 && two.stderr == warning, "\(two.stdout)\(two.stderr)")
        let asked = try PageHeightBinary.run(withheld + ["--no-sandbox", "--until", "quick", page("static.html")], executable: setpriv)
        #expect(asked.status == 0 && asked.stdout.hasPrefix("1234 px") && asked.stderr.isEmpty, "\(asked.stdout)\(asked.stderr)")
    }

    /// `--no-sandbox` is read by every subcommand that starts the engine, and refused by those
    /// that load nothing.
    @Test func everyCommandThatMeasuresTakesNoSandbox() throws {
        #expect(try CommandLineArguments.parse(["a.html"]).run.sandbox)
        #expect(try !CommandLineArguments.parse(["--no-sandbox", "a.html"]).run.sandbox)
        #expect(try !CommandLineArguments.parse(["batch", "--no-sandbox", "list.txt"]).run.sandbox)
        #expect(try !CheckArguments.parse(["--no-sandbox", "s.json"], command: .check).run.sandbox)
        #expect(try !CheckArguments.parse(["--no-sandbox", "a.html"], command: .sweep).run.sandbox)
        #expect(throws: UsageError("'--no-sandbox' is an option of 'pageheight', 'pageheight check' and 'pageheight sweep'")) {
            try TuneArguments.parse(["--no-sandbox", "r.jsonl"], command: .replay)
        }
    }

    /// With the sandbox on, the engine's processes see only the system, the pages' folders and
    /// their own files (`FileJail`): a page whose content filters are turned off (a test build's
    /// switch) still cannot read another folder of the machine or `$HOME`, nor the real accounts'
    /// file; without the sandbox, the same page reads them all (so the filters are off indeed).
    @Test(.enabled(if: geteuid() == 0, "a mount namespace needs CAP_SYS_ADMIN"))
    func withoutItsFiltersAPageStillReadsOnlyItsOwnFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-jail-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, other, home) = (root.appendingPathComponent("page"), root.appendingPathComponent("other"), root.appendingPathComponent("home"))
        for made in [folder, other, home] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        // Each script read adds its block: 100 px for the page's own, then 1000, 2000 and 4000.
        let grow = { (px: Int) in "document.body.appendChild(Object.assign(document.createElement('div'), {style: 'height:\(px)px'}))" }
        try grow(100).write(to: folder.appendingPathComponent("own.js"), atomically: true, encoding: .utf8)
        try grow(1000).write(to: other.appendingPathComponent("secret.js"), atomically: true, encoding: .utf8)
        try grow(2000).write(to: home.appendingPathComponent("home.js"), atomically: true, encoding: .utf8)
        try """
            <!doctype html><body style="margin:0">
            <script src="own.js"></script>
            <script src="\(other.appendingPathComponent("secret.js").absoluteString)"></script>
            <script src="\(home.appendingPathComponent("home.js").absoluteString)"></script>
            """.write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        let page = folder.appendingPathComponent("index.html").path
        let environment = ["PAGEHEIGHT_TEST_WITHOUT_FILE_BOUNDARY": "1", "HOME": home.path]
        let confined = try PageHeightBinary.run(["--offline", "--until", "quick", page], environment: environment)
        #expect(confined.status == 0 && confined.stdout.hasPrefix("100 px"), "\(confined.stdout)\(confined.stderr)")
        #expect(!confined.stderr.contains("warning: the engine's files"), "\(confined.stderr)")
        let open = try PageHeightBinary.run(["--offline", "--no-sandbox", "--until", "quick", page], environment: environment)
        #expect(open.stdout.hasPrefix("3100 px"), "\(open.stdout)\(open.stderr)")
        // The same in a batch, whose engine process is shown the folders of its list's pages only.
        let list = root.appendingPathComponent("list.txt")
        try (page + "\n").write(to: list, atomically: true, encoding: .utf8)
        let batch = try PageHeightBinary.run(["batch", "--offline", "--until", "quick", "--no-progress", list.path], environment: environment)
        #expect(batch.status == 0 && batch.stdout.contains("\"height\":100,"), "\(batch.stdout)\(batch.stderr)")

        // What the network process (which reads a file page's subresources) sees, through its root:
        // the page's folder, not the other one nor $HOME's files, and one line of accounts.
        let seen = Mutex<(page: Bool, other: Bool, home: [String]?, passwd: String?)?>(nil)
        let slow = try PageHeightBinary.run(["--offline", "--clock", "real", page], environment: environment) { pid in
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                let network = self.descendants(of: pid).first {
                    (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("WebKitNetworkPr") == true
                }
                if let network {
                    let root = "/proc/\(network)/root"
                    seen.withLock {
                        $0 = (FileManager.default.fileExists(atPath: root + folder.path + "/own.js"),
                              FileManager.default.fileExists(atPath: root + other.path),
                              try? FileManager.default.contentsOfDirectory(atPath: root + home.path),
                              try? String(contentsOfFile: root + "/etc/passwd", encoding: .utf8))
                    }
                    return
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        #expect(slow.stdout.hasPrefix("100 px"), "\(slow.stdout)\(slow.stderr)")
        let view = try #require(seen.withLock { $0 }, "no network process found")
        #expect(view.page && !view.other && view.home == [], "\(view)")
        #expect(view.passwd?.split(separator: "\n").count == 1 && view.passwd?.hasPrefix("root:") == true, "\(view.passwd ?? "none")")
    }

    /// In a batch, a page's folder is in the jail only while that page is measured: a page whose
    /// content filters are off reads its own folder, not the folder of a page before it or after
    /// it in the list. Before, the jail showed every folder of the list to every page.
    @Test(.enabled(if: geteuid() == 0, "a mount namespace needs CAP_SYS_ADMIN"))
    func aPageOfABatchDoesNotReadTheOtherPagesFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-batch-jail-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let (reader, neighbour) = (root.appendingPathComponent("reader"), root.appendingPathComponent("neighbour"))
        for made in [reader, neighbour] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        let grow = { (px: Int) in "document.body.appendChild(Object.assign(document.createElement('div'), {style: 'height:\(px)px'}))" }
        try grow(100).write(to: reader.appendingPathComponent("own.js"), atomically: true, encoding: .utf8)
        try grow(1000).write(to: neighbour.appendingPathComponent("secret.js"), atomically: true, encoding: .utf8)
        try """
            <!doctype html><body style="margin:0">
            <script src="own.js"></script>
            <script src="\(neighbour.appendingPathComponent("secret.js").absoluteString)"></script>
            """.write(to: reader.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "<!doctype html><body style=\"margin:0\"><div style=\"height:300px\"></div>"
            .write(to: neighbour.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        let readerPage = reader.appendingPathComponent("index.html").path
        let neighbourPage = neighbour.appendingPathComponent("index.html").path
        let environment = ["PAGEHEIGHT_TEST_WITHOUT_FILE_BOUNDARY": "1"]
        for order in [[neighbourPage, readerPage, neighbourPage], [readerPage, neighbourPage]] {
            let list = root.appendingPathComponent("list.txt")
            try (order.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
            let batch = try PageHeightBinary.run(["batch", "--offline", "--until", "quick", "--no-progress", "--jobs", "1", list.path],
                                                 environment: environment)
            let heights = batch.stdout.split(separator: "\n").compactMap { line -> (Int, Int)? in
                guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let index = report["index"] as? Int, let height = report["height"] as? Int else { return nil }
                return (index, height)
            }.sorted { $0.0 < $1.0 }.map(\.1)
            #expect(heights == order.map { $0 == readerPage ? 100 : 300 }, "\(order): \(batch.stdout)\(batch.stderr)")
        }
        // The filters are off indeed: without the sandbox (and its jail) the reader reads the secret.
        let open = try PageHeightBinary.run(["--offline", "--no-sandbox", "--until", "quick", readerPage], environment: environment)
        #expect(open.stdout.hasPrefix("1100 px"), "\(open.stdout)\(open.stderr)")
    }

    /// A session bus of the caller's whose socket lies outside what the file jail shows (here one
    /// that does not exist) is not the engine's: it starts its own, and the page measures, quietly.
    /// Before, WebKit's D-Bus proxy could not reach it and the engine died (SIGTRAP), and a batch
    /// whose reader went away printed the proxy's warnings.
    @Test(.enabled(if: geteuid() == 0, "a mount namespace needs CAP_SYS_ADMIN"))
    func aSessionBusOutsideTheJailIsNotTheEngines() throws {
        let bus = "unix:path=" + FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-no-bus-\(getpid())/bus").path
        let run = try PageHeightBinary.run([page("static.html")], environment: ["DBUS_SESSION_BUS_ADDRESS": bus])
        #expect(run.status == 0 && run.stdout.hasPrefix("1234 px") && run.stderr.isEmpty, "\(run.stdout)\(run.stderr)")
    }

    /// A display of the caller's that wants its authority file (`XAUTHORITY`, here under `$HOME`,
    /// which the file jail hides): the jail shows that one file, and the page measures.
    @Test(.enabled(if: geteuid() == 0, "a mount namespace needs CAP_SYS_ADMIN"))
    func aDisplaysAuthorityFileIsShownToTheEngine() throws {
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let (cookies, serverCookies) = (home + "/.pageheight-test-xauth-\(getpid())", NSTemporaryDirectory() + "xauth-server-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: cookies); try? FileManager.default.removeItem(atPath: serverCookies) }
        let number = try #require((150..<250).first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
            && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") })
        let display = ":\(number)"
        let cookie = String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(32))
        for file in [cookies, serverCookies] {
            let add = try PageHeightBinary.run(["-q", "-f", file, "add", display, ".", cookie],
                                               executable: URL(fileURLWithPath: "/usr/bin/xauth"))
            #expect(add.status == 0, "xauth: \(add.stderr)")
        }
        let server = try PageHeightBinary.start([display, "-auth", serverCookies, "-nolisten", "tcp", "-screen", "0", "1280x1024x24"],
                                                executable: URL(fileURLWithPath: "/usr/bin/Xvfb"))
        defer {
            kill(server.processIdentifier, SIGKILL) // it inherits the test process's blocked SIGTERM
            _ = PageHeightBinary.exit(of: server, by: Date().addingTimeInterval(5))
        }
        let socket = "/tmp/.X11-unix/X" + display.dropFirst()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
        let run = try PageHeightBinary.run(["--until", "quick", page("static.html")], environment: ["DISPLAY": display, "XAUTHORITY": cookies])
        #expect(run.status == 0 && run.stdout.hasPrefix("1234 px"), "\(run.stdout)\(run.stderr)")
    }
}
