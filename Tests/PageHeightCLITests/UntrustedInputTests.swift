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
}
