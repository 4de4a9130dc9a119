import PageHeightTestSupport
import Foundation
import Testing

/// Pinned fonts against the real engine, through the built binary: heights do not follow the
/// machine's font configuration unless `--fonts system` asks for it, and `--font-dir` adds fonts.
extension CommandLineTests {
    @Test func pinnedFontsIgnoreTheMachinesFontConfiguration() throws {
        let machine = try MachineFonts.wide()
        defer { try? FileManager.default.removeItem(at: machine.directory) }
        let page = page("fonts-generic.html")
        let pinned = try PageHeightBinary.run([page])
        let pinnedOnWideMachine = try PageHeightBinary.run([page], environment: machine.environment)
        let system = try PageHeightBinary.run(["--fonts", "system", page])
        let systemOnWideMachine = try PageHeightBinary.run(["--fonts", "system", page], environment: machine.environment)
        let expected = "2424 px (settled at "
        #expect(pinned.status == 0 && pinned.stdout.hasPrefix(expected), "\(pinned.stdout)\(pinned.stderr)")
        #expect(pinnedOnWideMachine.status == 0 && pinnedOnWideMachine.stdout.hasPrefix(expected),
                "\(pinnedOnWideMachine.stdout)\(pinnedOnWideMachine.stderr)")
        // This machine has only the pinned packages, so its own fonts give the same height; the
        // wide face, once the machine maps serif and sans-serif to it, gives more lines.
        #expect(system.status == 0 && system.stdout.hasPrefix(expected), "\(system.stdout)\(system.stderr)")
        let moved = Int(systemOnWideMachine.stdout.prefix { $0 != " " }) ?? 0
        #expect(systemOnWideMachine.status == 0 && moved > 2424 + 100, "\(systemOnWideMachine.stdout)\(systemOnWideMachine.stderr)")
    }

    @Test func theReportRecordsTheFonts() throws {
        let result = try PageHeightBinary.run(["--json", page("static.html")])
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let options = try #require(report["options"] as? [String: Any])
        let choice = try #require(options["fonts"] as? [String: Any])
        #expect(choice["mode"] as? String == "pinned" && (choice["directories"] as? [String]) == [])
        let fonts = try #require(report["fonts"] as? [String: Any])
        #expect(fonts["mode"] as? String == "pinned")
        let packages = try #require(fonts["packages"] as? [[String: String]])
        #expect(packages.map { $0["name"] ?? "" }
            == ["fonts-dejavu-core", "fonts-dejavu-extra", "fonts-liberation2", "fonts-noto-mono", "fonts-noto-cjk"])
        #expect(packages.allSatisfy { !($0["version"] ?? "").isEmpty })
        #expect((fonts["digest"] as? String)?.count == 64)
        #expect((fonts["files"] as? Int ?? 0) > 0)
    }

    /// `--font-dir` makes a family no package has available: a copy of DejaVu Sans Mono renamed
    /// to "PageHeightTestMo" (its name table rewritten in place, same length), which
    /// `Pages/font-dir.html` asks for before serif.
    @Test func aFontDirectoryAddsItsFamilies() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-font-dir-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var font = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"))
        for (old, new) in [("DejaVu Sans Mono", "PageHeightTestMo")] {
            for encoding in [String.Encoding.ascii, .utf16BigEndian] {
                let from = old.data(using: encoding)!, to = new.data(using: encoding)!
                var count = 0
                while let range = font.range(of: from) {
                    font.replaceSubrange(range, with: to)
                    count += 1
                }
                #expect(count > 0, "the family name in \(encoding)")
            }
        }
        try font.write(to: directory.appendingPathComponent("PageHeightTestMo.ttf"))
        let page = page("font-dir.html")
        let without = try PageHeightBinary.run([page])
        let with = try PageHeightBinary.run(["--font-dir", directory.path, page])
        let withSystem = try PageHeightBinary.run(["--fonts", "system", "--font-dir", directory.path, page])
        #expect(without.status == 0 && without.stdout.hasPrefix("720 px (settled at "), "\(without.stdout)\(without.stderr)")
        #expect(with.status == 0 && with.stdout.hasPrefix("936 px (settled at "), "\(with.stdout)\(with.stderr)")
        #expect(withSystem.status == 0 && withSystem.stdout.hasPrefix("936 px (settled at "), "\(withSystem.stdout)\(withSystem.stderr)")
    }

    @Test func aBadFontDirectoryIsAUsageError() throws {
        for (arguments, message) in [
            (["--font-dir", "no/such/dir", page("static.html")], "Error: '--font-dir': no such directory: \(PageHeightBinary.root.path)/no/such/dir"),
            (["--font-dir", "Pages/static.html", page("static.html")], "Error: '--font-dir': not a directory: \(PageHeightBinary.root.path)/Pages/static.html"),
            (["check", "--font-dir", "no/such/dir", "suite.json"], "Error: '--font-dir': no such directory: \(PageHeightBinary.root.path)/no/such/dir"),
            (["--fonts", "everything", page("static.html")], "Error: unknown value 'everything' for '--fonts' (one of: pinned, system)"),
        ] {
            let result = try PageHeightBinary.run(arguments)
            #expect(result.status == 64 && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message + "\n"), "\(arguments): \(result.stderr)")
        }
    }
}
