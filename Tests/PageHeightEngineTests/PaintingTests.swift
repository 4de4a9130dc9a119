// PaintingTests.swift - a page's pixels are drawn only for a snapshot: otherwise its root element
// has opacity 0 (Pages/root-opacity.html reads it and says so in its height), and the same view
// switches back and forth from one page to the next.

import CWebKit
import Foundation
@testable import PageHeightCore
@testable import PageHeightWebKit
import Testing

@Suite(.serialized)
struct PaintingTests {
    static let page = PageSource.file(FixtureCase.pagesDirectory.appendingPathComponent("root-opacity.html").path)

    @Test func aPageIsDrawnOnlyForASnapshot() async throws {
        let engine = try PageHeightEngine.shared()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-drawn-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let undrawn = await engine.measure(Self.page)
        let drawn = await engine.measure(Self.page, snapshot: path)
        let undrawnAgain = await engine.measure(Self.page)
        #expect(undrawn.status == .ok && undrawn.height == 1200, "\(undrawn.status) \(undrawn.height ?? -1)")
        #expect(drawn.status == .ok && drawn.height == 600, "\(drawn.status) \(drawn.height ?? -1)")
        #expect(undrawnAgain.height == 1200, "the view kept drawing after the snapshot's page")
        // The snapshot shows the page: the box's colour at its top left.
        let pixel = try #require(Self.pixel(of: path, x: 10, y: 10))
        #expect(pixel == [0x3A, 0x6F, 0xC4], "\(pixel)")
    }

    static func pixel(of path: String, x: Int, y: Int) -> [UInt8]? {
        guard let pixbuf = gdk_pixbuf_new_from_file(path, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        guard let pixels = gdk_pixbuf_get_pixels(pixbuf) else { return nil }
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let start = y * stride + x * channels
        return (0..<3).map { pixels[start + $0] }
    }
}
