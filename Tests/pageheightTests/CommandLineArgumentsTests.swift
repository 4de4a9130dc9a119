import Foundation
@testable import PageHeightBatch
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

@Suite struct CommandLineArgumentsTests {
    @Test func defaultsMatchTheReaderApp() throws {
        let parsed = try CommandLineArguments.parse(["page.html"])
        #expect(parsed.pages == ["page.html"])
        #expect(parsed.options == MeasureOptions())
        #expect(parsed.options.width == 390 && parsed.options.height == 844 && parsed.options.fontSize == 16)
        #expect(parsed.options.metric == .bodyScroll && parsed.options.until == .schedule && parsed.options.fit)
        #expect(parsed.options.quiet == 0.5 && parsed.options.timeout == 15 && parsed.options.threshold == 5)
    }

    @Test func everyOptionIsRead() throws {
        let parsed = try CommandLineArguments.parse([
            "--width", "768", "--height=600", "--font-size", "20", "--zoom", "1.5", "--metric", "max",
            "--until", "schedule", "--quiet", "0", "--timeout", "12", "--threshold", "2",
            "--schedule", "0.1,0.4", "--no-fit", "--no-javascript", "--header", "50", "--footer", "70",
            "--snapshot", "/tmp/x.png", "--json", "--verbose", "a.html", "-", "--", "--odd-name.html",
        ])
        let o = parsed.options
        #expect(o.width == 768 && o.height == 600 && o.fontSize == 20 && o.zoom == 1.5)
        #expect(o.metric == .max && o.until == .schedule && o.quiet == 0 && o.timeout == 12 && o.threshold == 2)
        #expect(o.schedule.delays == [0.1, 0.4] && !o.fit && !o.javascript && o.header == 50 && o.footer == 70)
        #expect(parsed.snapshot == "/tmp/x.png" && parsed.json && parsed.verbose)
        #expect(parsed.pages == ["a.html", "-", "--odd-name.html"])
    }

    @Test func mistakesAreUsageErrors() {
        let cases: [([String], String)] = [
            (["--bogus", "a"], "unknown option '--bogus'"),
            (["--width"], "missing value for '--width'"),
            (["--width", "wide", "a"], "'--width' takes a whole number, got 'wide'"),
            (["--zoom", "nan", "a"], "'--zoom' takes a number, got 'nan'"),
            (["--metric", "tallest", "a"], "unknown metric 'tallest'"),
            (["--until", "forever", "a"], "unknown value 'forever' for '--until'"),
            (["--schedule", "1,,2", "a"], "'--schedule' takes positive sleeps"),
            (["--json=yes", "a"], "'--json' takes no value"),
        ]
        for (arguments, message) in cases {
            #expect(throws: UsageError.self) { try CommandLineArguments.parse(arguments) }
            do {
                _ = try CommandLineArguments.parse(arguments)
            } catch {
                #expect(error.message.hasPrefix(message), "\(arguments): \(error.message)")
            }
        }
    }

    @Test func validationChecksRangesAndCombinations() throws {
        func problem(_ arguments: [String]) -> String? {
            do {
                try CommandLineArguments.parse(arguments).validate()
                return nil
            } catch {
                return error.message
            }
        }
        #expect(problem(["a.html"]) == nil)
        #expect(problem([]) == "missing page (a file, a URL, or - for stdin)")
        #expect(problem(["--width", "-5", "a"]) == "'--width' must be between 1 and 100000, got -5")
        #expect(problem(["--timeout", "0", "a"])?.hasPrefix("'--timeout' must be between") == true)
        #expect(problem(["--footer", "-1", "a"])?.hasPrefix("'--footer' must be between") == true)
        #expect(problem(["-", "-"]) == "standard input ('-') can be read only once")
        #expect(problem(["--snapshot", "/tmp/x.png", "a", "b"]) == "'--snapshot' takes one page, got 2")
        #expect(problem(["--snapshot", "/no/such/dir/x.png", "a"]) == "'--snapshot': no such directory: /no/such/dir")
        #expect(problem(["--help"]) == nil)
    }
}

@Suite struct PageSourceTests {
    @Test func readsFilesURLsAndStandardInput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-source-test")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("a page.html")
        try Data("<p>x</p>".utf8).write(to: file)
        #expect(try PageSource.parse("a page.html", currentDirectory: directory.path) == .file(file.path))
        #expect(try PageSource.parse(file.absoluteString) == .file(file.path))
        #expect(try PageSource.parse("https://example.org/a?b=c") == .url("https://example.org/a?b=c"))
        let data = "data:text/html,<p>hi</p>".replacingOccurrences(of: "<", with: "%3C").replacingOccurrences(of: ">", with: "%3E")
        #expect(try PageSource.parse(data) == .url(data))
        let stdin = try PageSource.parse("-", currentDirectory: "/tmp", standardInput: { Data("<p>x</p>".utf8) })
        #expect(stdin == .html("<p>x</p>", baseURL: "file:///tmp/"))
        #expect(file.absoluteString.hasSuffix("a%20page.html"))
    }

    @Test func badPagesSayWhatIsWrong() {
        func error(_ argument: String) -> InputError? {
            do {
                _ = try PageSource.parse(argument, currentDirectory: "/tmp", standardInput: { Data() })
                return nil
            } catch {
                return error as? InputError
            }
        }
        #expect(error("/no/such/page.html") == .missingFile("/no/such/page.html"))
        #expect(error("/tmp") == .isDirectory("/tmp"))
        #expect(error("http://") == .malformedURL("http://", reason: "expected http(s)://host/path"))
        #expect(error("javascript:alert(1)") == .unsupportedScheme("javascript:alert(1)", scheme: "javascript"))
        #expect(error("ftp://example.org/a") == .unsupportedScheme("ftp://example.org/a", scheme: "ftp"))
        #expect(error("-") == .emptyStandardInput)
        #expect(error("") != nil)
        #expect(InputError.missingFile("/x").description == "no such file: /x")
    }
}

@Suite struct OfflineModeArgumentsTests {
    @Test func offlineAloneBlocksAndTakesAModeAfterAnEqualsSign() throws {
        let plain = try CommandLineArguments.parse(["--offline", "a.html"])
        #expect(plain.options.offline && plain.options.offlineMode == .block && plain.pages == ["a.html"])
        let block = try CommandLineArguments.parse(["--offline=block", "a.html"])
        #expect(block.options.offline && block.options.offlineMode == .block)
        let refuse = try CommandLineArguments.parse(["batch", "--offline=refuse", "list.txt"])
        #expect(refuse.options.offline && refuse.options.offlineMode == .refuse)
        #expect(!(try CommandLineArguments.parse(["a.html"]).options.offline))
    }

    @Test func anUnknownOfflineModeIsAUsageError() {
        #expect(throws: UsageError("unknown value 'strict' for '--offline' (one of: refuse, block)")) {
            try CommandLineArguments.parse(["--offline=strict", "a.html"])
        }
    }

    @Test func checkAndSweepPassTheOfflineModeOverTheSuite() throws {
        let parsed = try CheckArguments.parse(["--offline=block", "suite.json"], command: .check)
        let options = parsed.measuring.applied(to: MeasureOptions())
        #expect(options.offline && options.offlineMode == .block)
    }

    @Test func theBlockRulesLetOnlyLocalAndLoopbackThrough() throws {
        // The content-blocker rules are JSON: block all, then let each allowed prefix through.
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(OfflineBlocker.rules.utf8)) as? [[String: Any]])
        let filters = rules.compactMap { ($0["trigger"] as? [String: Any])?["url-filter"] as? String }
        let actions = rules.compactMap { ($0["action"] as? [String: Any])?["type"] as? String }
        #expect(filters.first == ".*" && actions.first == "block")
        #expect(actions.dropFirst().allSatisfy { $0 == "ignore-previous-rules" })
        func allowed(_ url: String) -> Bool {
            filters.dropFirst().contains { url.range(of: $0, options: .regularExpression) != nil }
        }
        for url in ["file:///tmp/a.html", "data:text/html,x", "about:blank", "blob:file:///1", "http://127.0.0.1:8080/x",
                    "https://localhost/x", "http://[::1]:9/x", "ws://127.0.0.5:1/s"] {
            #expect(allowed(url), "\(url) should load")
        }
        for url in ["https://example.com/", "http://localhost.example.com/", "http://128.0.0.1/", "wss://cdn.example/s",
                    "ftp://localhost/x"] {
            #expect(!allowed(url), "\(url) should be blocked")
        }
    }
}

@Suite struct BatchArgumentsTests {
    @Test func batchOptionsAreReadAfterTheSubcommand() throws {
        let parsed = try CommandLineArguments.parse(["batch", "--jobs", "3", "--out", "r.jsonl", "--resume", "--retries", "2",
                                                     "--shard", "2/5", "--no-progress", "--offline", "--width", "768", "list.txt"])
        #expect(parsed.command == .batch && parsed.jobs == 3 && parsed.out == "r.jsonl" && parsed.resume)
        #expect(parsed.retries == 2 && parsed.shard == Shard(parsing: "2/5") && parsed.progress == false)
        #expect(parsed.options.offline && parsed.options.width == 768 && parsed.pages == ["list.txt"])
        try parsed.validate()
    }

    @Test func batchMistakesAreUsageErrors() throws {
        func problem(_ arguments: [String]) -> String? {
            do { try CommandLineArguments.parse(arguments).validate(); return nil } catch { return error.message }
        }
        #expect(problem(["--jobs", "2", "a.html"]) == "'--jobs' is an option of 'pageheight batch', 'pageheight check' and 'pageheight sweep'")
        #expect(problem(["--out", "x.jsonl", "a.html"]) == "'--out' is an option of 'pageheight batch'")
        #expect(problem(["batch"]) == "missing list (a file of pages, a directory, or - for stdin)")
        #expect(problem(["batch", "a", "b"]) == "'pageheight batch' takes one list, got 2")
        #expect(problem(["batch", "--resume", "a"]) == "'--resume' needs '--out FILE' (the output to continue)")
        #expect(problem(["batch", "--jobs", "0", "a"]) == "'--jobs' must be between 1 and 64, got 0")
        #expect(problem(["batch", "--shard", "5/4", "a"])?.hasPrefix("'--shard' takes K/N") == true)
    }
}
