// PaintingTests.swift - a page's pixels are drawn only for a snapshot: otherwise its root element
// has opacity 0 (Pages/root-opacity.html reads it and says so in its height), and the same view
// switches back and forth from one page to the next.

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

    /// The RGB of one pixel of an image file, read through the report's own picture code.
    static func pixel(of path: String, x: Int, y: Int) -> [UInt8]? {
        guard let image = SnapshotPictures.Image(path: path) else { return nil }
        return withExtendedLifetime(image) {
            let pixels = SnapshotPictures.Pixels(image.pixbuf)
            let start = y * pixels.rowstride + x * pixels.channels
            return (0..<3).map { pixels.bytes[start + $0] }
        }
    }
}
