import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

/// Measuring as the phone sees the page (issue 44): `--device`, `--lang`, `--color-scheme`, through
/// the real engine. `Pages/device/environment.html` writes what it sees into its height
/// (10000 + 8192 × devicePixelRatio + one bit per property, listed in the page); the loopback
/// server's /by-device answers a 600 px mobile document to a phone's user agent and a 2400 px
/// desktop one otherwise, /by-language 700 px to French and 500 px otherwise.
@Suite(.serialized)
struct DeviceProfileTests {
    static let environment = "Pages/device/environment.html"

    /// The bits of `environment.html`'s height.
    struct Seen: Equatable, CustomStringConvertible {
        var scale: Double
        var flags: Set<String>
        static let names = ["ontouchstart", "maxTouchPoints", "hover: none", "pointer: coarse", "iPhone", "Android", "iPad",
                            "small screen", "fr", "dark", "any-pointer: coarse"]
        init(scale: Double, _ flags: [String]) { (self.scale, self.flags) = (scale, Set(flags)) }
        var description: String { "scale \(scale): \(flags.sorted())" }
    }

    func heights(_ output: String) -> [Double] {
        output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["height"] as? Double
        }
    }

    static let touch = ["ontouchstart", "maxTouchPoints", "hover: none", "pointer: coarse", "any-pointer: coarse"]

    /// Each profile, in a process of its own (the scale is the process's): what the page's
    /// scripts see, and which document a server that reads the user agent sends.
    @Test(arguments: [
        ("desktop", Seen(scale: 1, []), 2400.0),
        ("iphone", Seen(scale: 3, touch + ["iPhone", "small screen"]), 600),
        ("ipad", Seen(scale: 2, touch + ["iPad"]), 600),
        ("android", Seen(scale: 2.75, touch + ["Android", "small screen"]), 600),
    ])
    func everyProfileSeesItsDevice(device: String, seen: Seen, served: Double) throws {
        let server = try #require(HostilePageTests.server)
        let byDevice = server.url(for: "by-device").absoluteString
        let run = try PageHeightBinary.run(["--json", "--device", device, Self.environment, byDevice])
        let measured = heights(run.stdout)
        #expect(measured.count == 2, "\(run.stderr.suffix(400))")
        guard measured.count == 2 else { return }
        // The flags are the low 11 bits, the scale the rest.
        let bits = Int(measured[0]) - 10000
        let got = Seen(scale: Double(bits & ~0x7FF) / 8192, Seen.names.indices.filter { bits & 0x7FF & (1 << $0) != 0 }.map { Seen.names[$0] })
        #expect(got.scale == seen.scale && got.flags == seen.flags, "\(device): saw \(got), wanted \(seen)")
        #expect(measured[1] == served, "\(device): the server sent the \(measured[1] == 600 ? "mobile" : "desktop") document")
        // The report records the device and the viewport it gave.
        let report = try #require(run.stdout.split(separator: "\n").first.flatMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let options = try #require(report["options"] as? [String: Any])
        #expect((options["device"] as? String) == (device == "desktop" ? nil : device))
    }

    /// A profile on the real clock too, and `--width` / `--height` still set the viewport
    /// whichever side of `--device` they are given.
    @Test func theRealClockAndExplicitSizesAgree() throws {
        for arguments in [["--device", "iphone", "--width", "600", "--clock", "real", "--until", "quiet"],
                          ["--width", "600", "--device", "iphone", "--height", "500"]] {
            let run = try PageHeightBinary.run(["--json"] + arguments + [Self.environment])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
                                      "\(run.stderr.suffix(300))")
            let options = try #require(report["options"] as? [String: Any])
            #expect(options["width"] as? Int == 600)
            #expect(options["height"] as? Int == (arguments.contains("--height") ? 500 : 844))
            // iPhone: scale 3, touch, iPhone, but the screen stays the iPhone's (390 px) at any viewport.
            #expect(report["height"] as? Double == Double(10000 + 3 * 8192 + 1183), "\(arguments)")
        }
    }

    /// The languages are the process's (a web process keeps those it started with): asked for
    /// in the request and seen by scripts; in a process that asks for others, a page that wants
    /// them is a load-error that says so.
    @Test func theLanguagesReachTheServerAndTheScripts() async throws {
        let server = try #require(HostilePageTests.server)
        let byLanguage = server.url(for: "by-language").absoluteString
        let french = try PageHeightBinary.run(["--json", "--lang", "fr-FR,fr", byLanguage, Self.environment])
        #expect(heights(french.stdout) == [700, 18192 + 256], "\(french.stderr.suffix(300))")
        let plain = try PageHeightBinary.run(["--json", byLanguage, Self.environment])
        #expect(heights(plain.stdout) == [500, 18192], "\(plain.stderr.suffix(300))")
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["--lang", "fr", "x"]).options
        let report = await engine.measure(.url(byLanguage), options: options)
        #expect(report.status == .loadError && report.message?.contains("languages fr") == true, "\(report.message ?? "")")
    }

    /// The color scheme is one setting of the process that every view follows live: each page
    /// gets its own, whatever the page before had, also when pages of both schemes run at once.
    @Test func eachPageGetsItsColorScheme() async throws {
        let engine = try PageHeightEngine.shared()
        let page = PageSource.file(FileManager.default.currentDirectoryPath + "/" + Self.environment)
        let dark = try CommandLineArguments.parse(["--color-scheme", "dark", "--until", "quiet", "x"]).options
        let plain = try CommandLineArguments.parse(["--until", "quiet", "x"]).options
        for _ in 1...2 {
            #expect(await engine.measure(page, options: dark).height == 18192 + 512)
            #expect(await engine.measure(page, options: plain).height == 18192)
        }
        let together = await withTaskGroup(of: (Bool, Double?).self) { group in
            for index in 0..<6 {
                group.addTask { (index % 2 == 0, await engine.measure(page, options: index % 2 == 0 ? dark : plain).height) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for (isDark, height) in together { #expect(height == (isDark ? 18704 : 18192)) }
    }

    /// The scale is the process's: a page whose device needs another one is a load-error that
    /// says so, and the engine goes on.
    @Test func aDeviceOfAnotherScaleIsALoadError() async throws {
        let engine = try PageHeightEngine.shared()
        let page = PageSource.file(FileManager.default.currentDirectoryPath + "/" + Self.environment)
        let iphone = try CommandLineArguments.parse(["--device", "iphone", "x"]).options
        let report = await engine.measure(page, options: iphone)
        #expect(report.status == .loadError && report.message?.contains("scale 3") == true, "\(report.message ?? "")")
        #expect(await engine.measure(page, options: MeasureOptions()).height == 18192)
    }
}
