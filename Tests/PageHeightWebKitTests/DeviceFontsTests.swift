import Foundation
import PageHeightTestSupport
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

/// A device's font families and its touch answers in style sheets (issue 58), through the built
/// binary: a device's families are its process's font configuration, as its scale is. The pages
/// in `Pages/device/` declare their heights (`pageheight-case`), worked out in each page from the
/// faces' advances and the queries that hold.
@Suite(.serialized)
struct DeviceFontsTests {
    static let pages = FixtureCase.pagesDirectory.appendingPathComponent("device", isDirectory: true)

    static func cases(_ names: [String]) throws -> [FixtureCase] {
        try names.flatMap { name in
            let page = pages.appendingPathComponent(name)
            return try FixtureCase.cases(page: page, html: String(contentsOf: page, encoding: .utf8))
        }
    }

    /// The heights of a run's reports: one pretty-printed report, or one per line.
    static func heights(_ run: PageHeightBinary.Run) -> [Double] {
        if let one = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["height"] as? Double {
            return [one]
        }
        return run.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["height"] as? Double
        }
    }

    /// Each family a page names resolves to its stand-in under each profile, and the desktop's
    /// to the pinned set's faces as before; the touch queries hold in style sheets under a touch
    /// profile and not on the desktop.
    @Test(arguments: try cases(["families-ios.html", "families-android.html", "touch-media.html"]))
    func aDevicePageMeasuresItsDeclaredHeight(_ fixture: FixtureCase) throws {
        let run = try PageHeightBinary.run(["--json"] + fixture.arguments + [fixture.page.path])
        let measured = Self.heights(run)
        #expect(measured == [Double(fixture.height ?? -1)], "\(fixture): \(run.stderr.suffix(300))")
    }

    /// Issue 58's measure: an article in `serif` under `--device iphone` is within 4% of the same
    /// article in a face with Times' widths, and in `sans-serif` within 4% of one with Helvetica's;
    /// the desktop's DejaVu is further off than that, so the test tells the two apart.
    @Test func theGenericFamiliesTakeTheIPhonesWidths() throws {
        func height(_ page: String, _ arguments: [String] = []) throws -> Double {
            let run = try PageHeightBinary.run(["--json"] + arguments + [Self.pages.appendingPathComponent(page).path])
            return try #require(Self.heights(run).first, "\(page): \(run.stderr.suffix(300))")
        }
        for (generic, face) in [("serif", "liberation-serif"), ("sans-serif", "liberation-sans")] {
            let phone = try height("article-\(generic).html", ["--device", "iphone"])
            let reference = try height("article-\(face).html")
            let desktop = try height("article-\(generic).html")
            #expect(abs(phone - reference) / reference <= 0.04, "\(generic): \(phone) px against \(reference) px")
            #expect(abs(desktop - reference) / reference > 0.04, "\(generic) on the desktop: \(desktop) px")
        }
    }

    /// The report names the face that stood in for each family the page's text used: the
    /// article in `serif` under the iPhone's profile is Liberation Serif for Times; the desktop's
    /// report names none (its faces are the pinned set's own).
    @Test func theReportSaysWhichFaceStoodIn() throws {
        let page = Self.pages.appendingPathComponent("article-serif.html").path
        let phone = try PageHeightBinary.run(["--json", "--device", "iphone", page])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(phone.stdout.utf8)) as? [String: Any])
        let faces = report["faces"] as? [[String: String]]
        #expect(faces == [["family": "serif", "face": "Liberation Serif", "deviceFace": "Times"]], "\(faces ?? [])")
        let desktop = try PageHeightBinary.run(["--json", page])
        #expect(!desktop.stdout.contains("\"faces\""), "\(desktop.stdout.prefix(200))")
    }

    /// The baseline records the device's families; the desktop's record is as it was (no key).
    @Test func theFontSetNamesTheDevicesFamilies() throws {
        let run = try PageHeightBinary.run(["--json", "--device", "android", Self.pages.appendingPathComponent("families-android.html").path])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let fonts = try #require(report["fonts"] as? [String: Any])
        #expect(fonts["families"] as? String == "android")
        let packages = (fonts["packages"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(packages == PinnedFonts.packages + DeviceFonts.android.packages)
        let desktop = try PageHeightEngine.shared().fontSet
        #expect(desktop.families == nil && desktop.packages.map(\.name) == PinnedFonts.packages)
    }
}
