import Foundation
import PageHeightTestSupport
import Testing

/// Untrusted pages and inputs against the command line (issue 62, round three): what a page, a
/// suite, a list, a baseline, a cookies file or standard input holds can neither drive the
/// terminal nor make the tool run out of memory, time or bounds; each ends in a clear error or
/// a result. The built binary, as a user runs it.
@Suite(.serialized)
struct UntrustedInputTests {
    static let hostile = CommandLineTests.pages.appendingPathComponent("hostile")

    /// A fresh directory for one test, removed by the caller.
    func workspace(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-untrusted-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The characters a terminal acts on that `output` holds raw: C0 controls but newline and
    /// tab, DEL, C1 controls, bidirectional overrides and isolates.
    func rawControls(_ output: String) -> [String] {
        output.unicodeScalars.filter {
            (0x00...0x1F).contains($0.value) && $0 != "\n" && $0 != "\t" || (0x7F...0x9F).contains($0.value)
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }.map { String($0.value, radix: 16) }
    }

    // MARK: - TERM-CHECK

    /// escape-sequences.html names its runaway culprit with ESC/OSC sequences, C1 controls and a
    /// bidirectional override. `check`'s FAIL line and `--update`'s refusal print the page's
    /// message; `--json` prints it inside JSON; a cookies file's bad line is echoed in the usage
    /// error. None of them carries a raw control character, and the JSON still parses.
    @Test func pageTextReachesNoTerminalRaw() throws {
        let directory = try workspace("terminal")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: Self.hostile.appendingPathComponent("escape-sequences.html"),
                                         to: directory.appendingPathComponent("escape-sequences.html"))
        try #"{ "pages": ["escape-sequences.html"], "timeout": 5 }"#.write(to: directory.appendingPathComponent("suite.json"),
                                                                             atomically: true, encoding: .utf8)
        let check = try PageHeightBinary.run(["check", "--no-progress"], in: directory, within: 120)
        #expect(check.status == 1 && check.stdout.hasPrefix("FAIL escape-sequences.html"), "\(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("\\u{1B}]0;pwned\\u{7}"), "the escape is shown as text: \(check.stdout)")
        let update = try PageHeightBinary.run(["check", "--update", "--no-progress"], in: directory, within: 120)
        #expect(update.stdout.contains("! escape-sequences.html") && update.stdout.contains("not recorded"), "\(update.stdout)")

        let json = try PageHeightBinary.run(["--json", "--timeout", "5", directory.appendingPathComponent("escape-sequences.html").path],
                                            within: 120)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((report?["message"] as? String)?.contains("\u{1B}]0;pwned\u{07}") == true, "the JSON keeps the text itself")

        let jar = directory.appendingPathComponent("cookies.txt")
        try "ex\u{1B}]0;pwned\u{07}\u{1B}[2Jample.com\tFALSE\t/\tFALSE\t0\tsession\ts3cret\n".write(to: jar, atomically: true, encoding: .utf8)
        let cookies = try PageHeightBinary.run(["--cookies", jar.path, "Pages/static.html"])
        #expect(cookies.status == 64 && cookies.stderr.contains("is not a domain"), "\(cookies.stderr)")

        for (name, output) in [("check", check.stdout + check.stderr), ("update", update.stdout + update.stderr),
                               ("json", json.stdout + json.stderr), ("cookies", cookies.stderr)] {
            #expect(rawControls(output).isEmpty, "\(name): raw control characters \(rawControls(output))")
        }
    }

    // MARK: - STDIN

    /// Runs the binary on `arguments` with `input` as its standard input; the run, and how long
    /// it took. Killed after `seconds`.
    func run(_ arguments: [String], input: FileHandle, within seconds: Double = 60) throws -> (Ended, Double) {
        let directory = try workspace("stdin-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let started = Date()
        let process = try PageHeightBinary.start(arguments, standardInput: input, standardOutput: try FileHandle(forWritingTo: out),
                                                 standardError: try FileHandle(forWritingTo: err))
        var end = PageHeightBinary.exit(of: process, by: started.addingTimeInterval(seconds))
        let timedOut = end == nil
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            end = PageHeightBinary.exit(of: process, by: .distantFuture)
        }
        let elapsed = Date().timeIntervalSince(started)
        return (Ended(status: timedOut ? -1 : end!.status, stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? ""), elapsed)
    }

    /// How a run with its own standard input ended: its exit status (-1: killed at the time
    /// limit) and its stderr.
    struct Ended {
        var status: Int32
        var stderr: String
    }

    /// `pageheight - < /dev/zero` read 7.7 GB in 15 s, and `--timeout` did not hold while standard
    /// input was read. A page on standard input is at most 32 MiB, read within `--timeout`;
    /// either way a usage error at once. A batch list and `replay`'s reports on standard input
    /// are capped too.
    @Test func standardInputIsCappedAndTimed() throws {
        let zero = try #require(FileHandle(forReadingAtPath: "/dev/zero"))
        let (endless, endlessSeconds) = try run(["-"], input: zero, within: 60)
        #expect(endless.status == 64 && endless.stderr.hasPrefix(
            "Error: standard input holds more than 32 MiB, the most a page read from it ('-') may have"), "\(endless.stderr)")
        #expect(endlessSeconds < 10, "\(endlessSeconds) s")

        let pipe = Pipe() // its writing end stays open: the input never ends
        pipe.fileHandleForWriting.write(Data("<!DOCTYPE html><p>the start of a page".utf8))
        let (open, openSeconds) = try run(["--timeout", "2", "-"], input: pipe.fileHandleForReading, within: 60)
        #expect(open.status == 64 && open.stderr.hasPrefix(
            "Error: standard input did not end within 2 s (--timeout; 37 bytes read by then)"), "\(open.stderr)")
        #expect(openSeconds < 5, "the read kept to --timeout: \(openSeconds) s")
        try pipe.fileHandleForWriting.close()

        let (list, _) = try run(["batch", "-"], input: try #require(FileHandle(forReadingAtPath: "/dev/zero")), within: 60)
        #expect(list.status == 64 && list.stderr.hasPrefix("Error: the list: the list on standard input holds more than 256 MiB"),
                "\(list.stderr)")

        let (reports, _) = try run(["replay", "-"], input: try #require(FileHandle(forReadingAtPath: "/dev/zero")), within: 60)
        #expect(reports.status == 64 && reports.stderr.hasPrefix(
            "Error: the reports: larger than 256 MiB (the most a file of reports may hold): standard input"), "\(reports.stderr)")

        let page = try PageHeightBinary.run(["-"], stdin: "<!DOCTYPE html><body style='margin:0'><div style='height:321px'></div>")
        #expect(page.status == 0 && page.stdout.hasPrefix("321 px"), "a page on standard input is measured as before: \(page.stdout)")
    }

    // MARK: - A list's lines

    /// A 50 MB line in a list gave a 100 MB report line. A line is at most 128 KiB (one
    /// command-line argument's most): longer is a usage error naming the line, before anything
    /// is measured; a line of 128 KiB is still a page.
    @Test func aListLineIsCapped() throws {
        let directory = try workspace("list-line")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path
        let huge = "data:text/html," + String(repeating: "a", count: 50 << 20)
        try "# pages\n\(CommandLineTests.pages.path)/static.html\r\n\(huge)\n".write(toFile: list, atomically: true, encoding: .utf8)
        let started = Date()
        let refused = try PageHeightBinary.run(["batch", list], within: 60)
        #expect(refused.status == 64 && refused.stderr.hasPrefix("Error: the list: line 3 of \(list) is longer than 128 KiB"),
                "\(refused.stderr.prefix(300))")
        #expect(refused.stdout.isEmpty && Date().timeIntervalSince(started) < 20)

        let longest = "data:text/html,<!DOCTYPE html><body style='margin:0'><div style='height:222px'></div><!--"
        try (longest + String(repeating: "a", count: (128 << 10) - longest.utf8.count) + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let measured = try PageHeightBinary.run(["batch", "--no-progress", list], within: 120)
        #expect(measured.status == 0 && measured.stdout.contains("\"height\":222"), "\(measured.stderr.suffix(300))")
    }

    // MARK: - SUITE-HUGE

    /// A suite of 3000 widths × 500 font sizes × 100 zooms reached 11.4 GB before measuring
    /// anything. A suite or a sweep expands to at most 10,000 cases: more is a usage error that
    /// names the product, at once; a suite file is at most 4 MiB.
    @Test func aSuiteExpandsToACappedNumberOfCases() throws {
        let directory = try workspace("suite-huge")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("static.html"),
                                         to: directory.appendingPathComponent("static.html"))
        let widths = (1...3000).map(String.init).joined(separator: ","), fontSizes = (1...500).map(String.init).joined(separator: ",")
        let zooms = (1...100).map { String(Double($0) / 10) }.joined(separator: ",")
        try #"{ "pages": ["static.html"], "widths": [\#(widths)], "fontSizes": [\#(fontSizes)], "zooms": [\#(zooms)] }"#
            .write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let started = Date()
        let check = try PageHeightBinary.run(["check", "--update"], in: directory, within: 60)
        #expect(check.status == 64 && check.stderr.contains(
            "suite.json: 3000 widths × 500 font sizes × 100 zooms = 150000000 cases; a suite or sweep expands to at most 10000"),
                "\(check.stderr.prefix(400))")
        let sweep = try PageHeightBinary.run(["sweep", "--widths", widths, "--font-sizes", fontSizes, "--zooms", zooms, "static.html"],
                                             in: directory, within: 60)
        #expect(sweep.status == 64 && sweep.stderr.hasPrefix(
            "Error: 1 page × 3000 widths × 500 font sizes × 100 zooms = 150000000 cases"), "\(sweep.stderr.prefix(400))")
        #expect(Date().timeIntervalSince(started) < 20)

        try #"{ "pages": ["static.html"], "widths": [390, 1024] }"#.write(to: directory.appendingPathComponent("small.json"),
                                                                            atomically: true, encoding: .utf8)
        let small = try PageHeightBinary.run(["check", "--update", "--no-progress", "small.json"], in: directory, within: 120)
        #expect(small.status == 0, "a suite under the cap is measured: \(small.stdout) \(small.stderr.suffix(300))")
        try (#"{ "pages": ["static.html"] }"# + String(repeating: " ", count: 5 << 20))
            .write(to: directory.appendingPathComponent("large.json"), atomically: true, encoding: .utf8)
        let large = try PageHeightBinary.run(["check", "large.json"], in: directory, within: 60)
        #expect(large.status == 64 && large.stderr.contains("large.json: larger than 4 MiB, the most a suite file may be"), "\(large.stderr)")
    }

    // MARK: - A suite's files

    /// A suite naming `../../home/.ssh/id_rsa` rendered that file into its snapshots on
    /// `check --update`. A suite's pages, templates and cookies file are files of its own
    /// folder: a path out of it, a glob, a `file:` URL, a link inside it to a file elsewhere are
    /// each a usage error, and nothing is rendered; `--allow-outside` lets the suite name them.
    @Test func aSuiteNamesOnlyFilesOfItsFolder() throws {
        let directory = try workspace("suite-outside")
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("home/.ssh"), suite = directory.appendingPathComponent("suite")
        for folder in [secret, suite] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n".write(to: secret.appendingPathComponent("id_rsa"), atomically: true, encoding: .utf8)
        try "<!DOCTYPE html><main>{{content}}</main>".write(to: secret.appendingPathComponent("template.html"), atomically: true, encoding: .utf8)
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts3cret\n".write(to: secret.appendingPathComponent("cookies.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("static.html"), to: suite.appendingPathComponent("static.html"))
        try FileManager.default.createSymbolicLink(atPath: suite.appendingPathComponent("link.html").path, withDestinationPath: "../home/.ssh/id_rsa")
        let id = secret.appendingPathComponent("id_rsa").path
        for (pages, extra, named) in [
            (#"["../home/.ssh/id_rsa"]"#, "", "the page '../home/.ssh/id_rsa'"),
            (#"["../home/.ssh/*"]"#, "", "the page '../home/.ssh/cookies.txt'"),
            (#"["\#(id)"]"#, "", "the page '\(id)'"),
            (#"["file://\#(id)"]"#, "", "the page 'file://\(id)'"),
            (#"["link.html"]"#, "", "the page 'link.html'"),
            (#"["static.html"]"#, #", "template": "../home/.ssh/template.html""#, "the template ../home/.ssh/template.html"),
            (#"[{ "path": "static.html", "template": "../home/.ssh/template.html" }]"#, "", "the template of 'static.html'"),
            (#"["static.html"]"#, #", "cookiesFile": "../home/.ssh/cookies.txt""#, "'cookiesFile' ../home/.ssh/cookies.txt"),
        ] {
            try #"{ "pages": \#(pages)\#(extra) }"#.write(to: suite.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
            let run = try PageHeightBinary.run(["check", "--update", "--no-progress"], in: suite, within: 60)
            #expect(run.status == 64 && run.stderr.contains("\(named) is outside the suite's folder "), "\(pages)\(extra): \(run.stderr.prefix(400))")
            #expect(!FileManager.default.fileExists(atPath: suite.appendingPathComponent("suite.snapshots").path), "\(pages): rendered")
        }
        try #"{ "pages": ["../home/.ssh/id_rsa", "static.html"] }"#.write(to: suite.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let allowed = try PageHeightBinary.run(["check", "--update", "--no-progress", "--allow-outside"], in: suite, within: 120)
        #expect(allowed.status == 0 && allowed.stdout.contains("+ ../home/.ssh/id_rsa (width 390"), "\(allowed.stdout) \(allowed.stderr.suffix(300))")
    }

    // MARK: - A baseline's numbers

    /// A baseline height of 1e308 trapped the process (SIGILL, "Double value cannot be converted
    /// to Int"). A baseline entry no measurement gives (a height beyond any page, a zoom or
    /// width out of range) is a usage error naming the case.
    @Test func aBaselineWithImpossibleNumbersIsAnError() throws {
        let directory = try workspace("baseline-numbers")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: CommandLineTests.pages.appendingPathComponent("static.html"),
                                         to: directory.appendingPathComponent("static.html"))
        try #"{ "pages": ["static.html"] }"#.write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let entry = #"{ "page": "static.html", "width": 390, "fontSize": 16, "zoom": ZOOM, "status": "ok", "height": HEIGHT }"#
        for (zoom, height, problem) in [("1", "1e308", "height 1e+308 is not a page height (0 to 100000000 px)"),
                                        ("1", "-5", "height -5.0 is not a page height"),
                                        ("1e308", "1234", "zoom 1e+308 is not in 0.1...10.0")] {
            let baseline = #"{ "version": 1, "cases": [ \#(entry.replacingOccurrences(of: "ZOOM", with: zoom).replacingOccurrences(of: "HEIGHT", with: height)) ] }"#
            try baseline.write(to: directory.appendingPathComponent("suite.baseline.json"), atomically: true, encoding: .utf8)
            let run = try PageHeightBinary.run(["check", "--no-progress"], in: directory, within: 60)
            #expect(run.signal == nil && run.status == 64, "\(height): \(run.status) \(run.signal.map { "signal \($0)" } ?? "") \(run.stderr.suffix(300))")
            #expect(run.stderr.contains("suite.baseline.json: case 1 (page static.html): \(problem)"), "\(run.stderr.prefix(400))")
        }
    }

    // MARK: - A results file changed by hand

    /// `--resume` kept the duplicate and garbage lines of a tampered results file (and counted a
    /// duplicate twice in its summary). Resuming a file with a line that is not a result, or two
    /// results for one entry, is a usage error naming the lines; the file is left as it was.
    @Test func resumeRefusesATamperedResultsFile() throws {
        let directory = try workspace("resume-tampered")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt").path, out = directory.appendingPathComponent("out.jsonl").path
        let pages = ["static.html", "absolute.html", "grow-2.5.html"].map { CommandLineTests.pages.appendingPathComponent($0).path }
        try pages.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try pages.prefix(2).joined(separator: "\n").write(toFile: list + ".2", atomically: true, encoding: .utf8)
        let first = try PageHeightBinary.run(["batch", "--no-progress", "--out", out, list + ".2"], within: 120)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(first.status == 0 && lines.count == 2, "\(first.stderr.suffix(300))")
        // The batch writes in the order pages finish: the first line is entry 0 or entry 1.
        let firstEntry = (try? JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])?["index"] as? Int ?? -1
        for (name, tampered, message) in [
            ("garbage", lines + ["not a result", "{\"no\": \"index\"}"], "its line 3 is not a result (a JSON object with an index), nor are 1 more"),
            ("duplicate", lines + [lines[0]], "its lines 1 and 3 both hold a result for entry \(firstEntry)"),
        ] {
            let text = tampered.joined(separator: "\n") + "\n"
            try text.write(toFile: out, atomically: true, encoding: .utf8)
            let resumed = try PageHeightBinary.run(["batch", "--no-progress", "--resume", "--out", out, list], within: 120)
            #expect(resumed.status == 64 && resumed.stderr.hasPrefix("Error: --resume: \(out) cannot be resumed by this command: \(message)"),
                    "\(name): \(resumed.stderr.prefix(400))")
            #expect(try String(contentsOfFile: out, encoding: .utf8) == text, "\(name): the file was changed")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
        let clean = try PageHeightBinary.run(["batch", "--no-progress", "--resume", "--out", out, list], within: 120)
        #expect(clean.status == 0 && clean.stderr.hasPrefix("resuming: 2 pages already in \(out), 1 to go"), "\(clean.stderr.prefix(300))")
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 3)
    }

    // MARK: - A view larger than the engine renders

    /// `--device iphone --then width=100000` (300,000 device pixels) crashed the web process. A
    /// side of the view, the first or one a step sets, is at most 100,000 device pixels (what
    /// `--width` allows at scale 1): larger is a usage error at once, in a single run, a suite
    /// and a sweep. At the limit it is still a measurement.
    @Test func aViewIsNoLargerThanTheEngineRenders() throws {
        let page = CommandLineTests.pages.appendingPathComponent("static.html").path
        let limit = "a side of the view is at most 33333 CSS px there, 100000 device pixels, the most the engine renders"
        for arguments in [["--device", "iphone", "--then", "width=100000"], ["--then", "height=40000", "--device", "android"],
                          ["--device", "iphone", "--width", "50000"]] {
            let run = try PageHeightBinary.run(arguments + [page], within: 60)
            #expect(run.status == 64 && run.stderr.hasPrefix("Error: '") && run.stderr.contains(limit), "\(arguments): \(run.stderr.prefix(300))")
        }
        let directory = try workspace("view-size")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(atPath: page, toPath: directory.appendingPathComponent("static.html").path)
        try #"{ "pages": [{ "path": "static.html", "steps": ["width=100000"] }], "device": "iphone" }"#
            .write(to: directory.appendingPathComponent("suite.json"), atomically: true, encoding: .utf8)
        let check = try PageHeightBinary.run(["check", "--update"], in: directory, within: 60)
        #expect(check.status == 64 && check.stderr.contains("'--then width=100000' with --device iphone (scale 3): \(limit)"),
                "\(check.stderr.prefix(300))")
        let sweep = try PageHeightBinary.run(["sweep", "--device", "ipad", "--widths", "390,60000", page], within: 60)
        #expect(sweep.status == 64 && sweep.stderr.contains("'--widths 60000' with --device ipad (scale 2): a side of the view is at most 50000 CSS px"),
                "\(sweep.stderr.prefix(300))")
        let atTheLimit = try PageHeightBinary.run(["--device", "ipad", "--then", "width=50000", page], within: 120)
        #expect(atTheLimit.status != 64 && atTheLimit.stdout.hasPrefix("1234 px"), "\(atTheLimit.stdout) \(atTheLimit.stderr.suffix(300))")
    }

    // MARK: - A template that multiplies its fragment

    /// A reader template inserts its fragment at every `{{article}}`: 1000 of them and a 1 MB
    /// fragment made a 1 GB page. A page given as text (standard input, a template with its
    /// fragment) is at most 32 MiB: more is an error at once, for one page and in a batch.
    @Test func aTemplateCannotMultiplyItsFragmentPastAPage() throws {
        let directory = try workspace("template-copies")
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = directory.appendingPathComponent("template.html").path, fragment = directory.appendingPathComponent("a.html").path
        try ("<!DOCTYPE html><body>" + String(repeating: "<div>{{article}}</div>", count: 1000)).write(toFile: template, atomically: true, encoding: .utf8)
        try ("<p>" + String(repeating: "x", count: 1 << 20) + "</p>").write(toFile: fragment, atomically: true, encoding: .utf8)
        let single = try PageHeightBinary.run(["--template", template, fragment], within: 60)
        #expect(single.status == 64 && single.stderr.contains("\(fragment): the template takes 1000 copies of it: ")
                && single.stderr.contains("more than 32 MiB, the most a page given as text may have"), "\(single.stderr.prefix(400))")
        let list = directory.appendingPathComponent("list.txt").path
        try fragment.write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try PageHeightBinary.run(["batch", "--no-progress", "--template", template, list], within: 60)
        #expect(batch.status == 1 && batch.stdout.contains("\"status\":\"load-error\"") && batch.stdout.contains("1000 copies of it"),
                "\(batch.stdout.prefix(400)) \(batch.stderr.suffix(300))")
    }
}
