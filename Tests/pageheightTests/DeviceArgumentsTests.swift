import Foundation
@testable import PageHeightCore
@testable import PageHeightRegression
@testable import PageHeightWebKit
@testable import pageheight
import Testing

/// `--device`, `--lang` and `--color-scheme` on the command line and in suites (issue 44).
@Suite struct DeviceArgumentsTests {
    @Test func aDeviceSetsTheViewportUnlessTheUserDid() throws {
        let ipad = try CommandLineArguments.parse(["--device", "ipad", "x"]).options
        #expect(ipad.device == .ipad && ipad.width == 810 && ipad.height == 1080)
        #expect(ipad.deviceProfile.engineScale == 2 && ipad.deviceProfile.touch)
        for order in [["--device", "ipad", "--width", "500"], ["--width", "500", "--device", "ipad"]] {
            let options = try CommandLineArguments.parse(order + ["x"]).options
            #expect(options.width == 500 && options.height == 1080, "\(order)")
        }
        // desktop is the default: nothing recorded, nothing changed.
        #expect(try CommandLineArguments.parse(["--device", "desktop", "x"]).options == MeasureOptions())
        #expect(DeviceProfile.android.engineScale == 3 && DeviceProfile.android.scale == 2.75)
    }

    @Test func languagesAndColorSchemeAreRead() throws {
        let options = try CommandLineArguments.parse(["--lang", "fr-FR, fr", "--color-scheme", "dark", "x"]).options
        #expect(options.languages == ["fr-FR", "fr"] && options.colorScheme == .dark)
        #expect(try CommandLineArguments.parse(["--color-scheme", "light", "x"]).options.colorScheme == nil)
        #expect(MeasuringOption.isLanguageTag("zh-Hant-TW") && !MeasuringOption.isLanguageTag("fr_FR")
                && !MeasuringOption.isLanguageTag("") && !MeasuringOption.isLanguageTag("en-"))
    }

    @Test func mistakesAreUsageErrors() {
        for (arguments, message) in [
            (["--device", "nokia"], "unknown device 'nokia' for '--device' (one of: desktop, iphone, ipad, android)"),
            (["--lang", "fr_FR"], "'--lang' takes a comma-separated list of language tags, e.g. fr-FR,fr; got 'fr_FR'"),
            (["--color-scheme", "blue"], "unknown color scheme 'blue' for '--color-scheme' (one of: light, dark)"),
        ] {
            #expect(throws: UsageError(message), "\(arguments)") { try CommandLineArguments.parse(arguments + ["x"]) }
        }
    }

    @Test func aSuiteTakesTheDeviceLanguagesAndScheme() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-device-suite")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "<!DOCTYPE html>".write(to: directory.appendingPathComponent("a.html"), atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("suite.json").path
        try #"{"pages": ["a.html"], "device": "android", "languages": ["de-DE"], "colorScheme": "dark"}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let suite = try RegressionSuite.load(file)
        #expect(suite.options.device == .android && suite.options.languages == ["de-DE"] && suite.options.colorScheme == .dark)
        #expect(suite.widths == [393] && suite.options.height == 851)
        try #"{"pages": ["a.html"], "device": "iphone", "widths": [320, 768], "height": 600}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let sized = try RegressionSuite.load(file)
        #expect(sized.widths == [320, 768] && sized.options.height == 600)
        try #"{"pages": ["a.html"], "device": "watch"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: SuiteError.self) { try RegressionSuite.load(file) }
    }

    @Test func theHooksGetWhatScriptsReadOfTheDevice() {
        #expect(ProbeScript.deviceLiteral(.desktop) == "null")
        #expect(ProbeScript.deviceLiteral(.iphone) == #"{scale:3.0,touchPoints:5,platform:"iPhone",screen:[390,844]}"#)
        #expect(ProbeScript.hooks(virtualClock: true, device: .android).contains(#"const DEVICE={scale:2.75,"#))
    }
}
