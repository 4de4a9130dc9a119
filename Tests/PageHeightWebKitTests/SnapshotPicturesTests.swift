import Foundation
import Testing
import PageHeightWebKit

/// The report's pictures from real PNG files: the pixels that changed, found at full
/// resolution, and the thumbnails.
struct SnapshotPicturesTests {
    /// A PNG file of `width`×`height` RGB pixels from `color` (zlib "stored" blocks: no
    /// compression library needed).
    static func png(width: Int, height: Int, color: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Data {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { let (r, g, b) = color(x, y); raw += [r, g, b] }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            zlib.append(offset + count == raw.count ? 1 : 0)
            zlib += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += bigEndian(b << 16 | a)
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in typed {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return bigEndian(UInt32(body.count)) + typed + bigEndian(~crc)
        }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", []))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }

    func file(_ name: String, _ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-pictures-\(getpid())-\(name).png").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theChangedRegionIsTheBoxAroundEveryDifferingPixelAndRowsOnlyOneImageHas() throws {
        let page = { (x: Int, y: Int) -> (UInt8, UInt8, UInt8) in (UInt8(x % 256), UInt8(y % 256), 200) }
        let base = try file("base", Self.png(width: 120, height: 80, color: page))
        let same = try file("same", Self.png(width: 120, height: 80, color: page))
        let spot = try file("spot", Self.png(width: 120, height: 80) { x, y in
            (20..<30).contains(x) && (30..<35).contains(y) ? (255, 0, 0) : page(x, y)
        })
        let longer = try file("longer", Self.png(width: 120, height: 95, color: page))
        let wider = try file("wider", Self.png(width: 130, height: 80, color: page))
        defer { for path in [base, same, spot, longer, wider] { try? FileManager.default.removeItem(atPath: path) } }

        func image(_ path: String) throws -> SnapshotPictures.Image { try #require(SnapshotPictures.Image(path: path)) }
        #expect(try image(base).changedRegion(image(same)) == nil, "no pixel differs")
        #expect(try image(base).changedRegion(image(spot)) == SnapshotPictures.Region(left: 20, top: 30, right: 30, bottom: 35))
        #expect(try image(longer).changedRegion(image(base)) == SnapshotPictures.Region(left: 0, top: 80, right: 120, bottom: 95))
        #expect(try image(base).changedRegion(image(wider)) == SnapshotPictures.Region(left: 120, top: 0, right: 130, bottom: 80))
        #expect(SnapshotPictures.Image(path: base + ".none") == nil, "a file that cannot be read")
    }

    @Test func aThumbnailIsAJPEGAtTheScaleAskedAndNeverLarger() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Pages/regression/block-390x600.png").path
        let image = try #require(SnapshotPictures.Image(path: fixture))
        #expect(image.width == 390 && image.height == 600)
        let half = try #require(image.thumbnail(scale: 0.5))
        #expect(half.width == 195 && half.height == 300)
        #expect(half.jpeg.prefix(3) == Data([0xFF, 0xD8, 0xFF]), "a JPEG")
        let whole = try #require(image.thumbnail(scale: 3))
        #expect(whole.width == 390 && whole.height == 600)
    }
}
