// BoundarySpellingTests.swift - issue 62 (BND-NUL, BND-CHARS, BND-FIFO): a page reaches no file
// outside its directory through a symbolic link, whatever bytes the link's name holds and however
// the page spells it, and entries that are not files (FIFOs) are refused at once.

import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

@Suite(.serialized)
struct BoundarySpellingTests {
    /// A link `r<byte>` to a directory outside the page's, for every byte 0x01-0x7f but `/`, and a
    /// link `evil.js` to a script outside: the page loads a script through each link in every
    /// spelling (the byte as itself, escaped upper and lower case, the `r` escaped too, a NUL
    /// after the name), 1000 px for each that runs; `inside.js` (a file of the directory) must
    /// run (100 px). 400 + 100 px when nothing outside is reached.
    @Test func noLinkNameSpellingLeavesThePagesDirectory() async throws {
        let base = try HostilePageTests.temporaryDirectory("spellings")
        defer { try? FileManager.default.removeItem(at: base) }
        let page = base.appendingPathComponent("page", isDirectory: true), outside = base.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try "grow();".write(to: outside.appendingPathComponent("g.js"), atomically: true, encoding: .utf8)
        try "document.getElementById('inside').style.height = '100px';"
            .write(to: page.appendingPathComponent("inside.js"), atomically: true, encoding: .utf8)
        for byte in UInt8(1)...UInt8(0x7f) where byte != 0x2f {
            let name = page.path + "/r" + String(UnicodeScalar(byte))
            #expect(symlink("../outside", name) == 0, "link r\\x\(String(byte, radix: 16)): errno \(errno)")
        }
        #expect(symlink("../outside/g.js", page.path + "/evil.js") == 0)
        #expect(symlink("/", page.path + "/r$root") == 0)
        let html = """
            <!DOCTYPE html><html><head><style>html, body { margin: 0 } div { margin: 0 }</style></head>
            <body><div style="height:400px"></div><div id="inside"></div><div id="reached"></div>
            <script>
              var reached = 0;
              function grow() { reached += 1; document.getElementById('reached').style.height = (1000 * reached) + 'px'; }
              var sources = ['inside.js', 'evil.js%00', 'evil.js%00.png', 'evil.js%2500', 'ev%69l.js%00', 'r%24root/etc/passwd',
                             'r$root%00', 'r%24root%2fetc%2fpasswd'];
              for (var byte = 1; byte < 128; byte++) {
                if (byte === 0x2f) continue;
                var hex = (byte < 16 ? '0' : '') + byte.toString(16);
                sources.push('r' + String.fromCharCode(byte) + '/g.js', 'r%' + hex.toUpperCase() + '/g.js',
                             'r%' + hex + '/g.js', '%72%' + hex + '/g.js', 'r%' + hex + '%2fg.js', 'r%' + hex + '//g.js');
              }
              sources.forEach(function (src) {
                var script = document.createElement('script');
                if (src.indexOf('passwd') >= 0) script.onload = grow;
                script.src = src;
                document.head.appendChild(script);
              });
            </script></body></html>
            """
        try html.write(to: page.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        var options = MeasureOptions()
        options.timeout = 10
        let report = try await PageHeightEngine.shared().measure(.file(page.appendingPathComponent("page.html").path), options: options)
        let reached = report.height.map { Int((($0 - 500) / 1000).rounded()) } ?? -1
        #expect(report.status == .ok && report.height == 500,
                "\(report.status.rawValue) \(report.height ?? -1): \(reached) scripts from outside ran, or inside.js did not")
    }

    /// BND-FIFO: FIFOs in the page's directory, used as images, are refused at once (no reader
    /// is ever opened on them), and the page beside it measures as alone.
    @Test func fifosInThePagesDirectoryAreRefused() async throws {
        let page = try HostilePageTests.temporaryDirectory("fifos")
        defer { try? FileManager.default.removeItem(at: page) }
        var images = ""
        for index in 0..<60 {
            #expect(mkfifo(page.path + "/f\(index).png", 0o644) == 0)
            images += "<img src=\"f\(index).png\" width=10 height=10>"
        }
        #expect(mkfifo(page.path + "/style.css", 0o644) == 0)
        try """
            <!DOCTYPE html><html><head><link rel="stylesheet" href="style.css"><style>html, body { margin: 0 }</style></head>
            <body><div style="height:300px"></div>\(images)</body></html>
            """.write(to: page.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        var options = MeasureOptions()
        options.timeout = 10
        let started = Date()
        let report = try await PageHeightEngine.shared().measure(.file(page.appendingPathComponent("page.html").path), options: options)
        #expect(report.status == .ok, "\(report.status.rawValue): \(report.message ?? "")")
        #expect(Date().timeIntervalSince(started) < 5, "the FIFOs held the page")
        for index in 0..<60 {
            // O_WRONLY | O_NONBLOCK on a FIFO with no reader fails with ENXIO: nobody opened it.
            let descriptor = open(page.path + "/f\(index).png", O_WRONLY | O_NONBLOCK)
            #expect(descriptor < 0 && errno == ENXIO, "f\(index).png was opened for reading")
            if descriptor >= 0 { close(descriptor) }
        }
        let neighbour = try await PageHeightEngine.shared().measure(.file(HardeningTests.staticPage), options: options)
        #expect(neighbour.status == .ok)
    }
}
