import CWebKit
import Foundation

/// Snapshot PNGs made fit for a report, with GdkPixbuf: two compared pixel by pixel at full
/// resolution, and each scaled down to a JPEG thumbnail that a report inlines.
public enum SnapshotPictures {
    /// Pixels `left..<right` × `top..<bottom`.
    public struct Region: Sendable, Equatable {
        public var left: Int, top: Int, right: Int, bottom: Int

        public init(left: Int, top: Int, right: Int, bottom: Int) {
            (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
        }
    }

    public struct Thumbnail: Sendable, Equatable {
        public var jpeg: Data
        public var width: Int
        public var height: Int

        public init(jpeg: Data, width: Int, height: Int) {
            (self.jpeg, self.width, self.height) = (jpeg, width, height)
        }
    }

    /// A decoded image file (any format GdkPixbuf reads): decoded once, then compared and
    /// scaled as often as needed.
    public final class Image {
        let pixbuf: OpaquePointer
        public var width: Int { Int(gdk_pixbuf_get_width(pixbuf)) }
        public var height: Int { Int(gdk_pixbuf_get_height(pixbuf)) }

        /// nil when the file cannot be read as an image.
        public init?(path: String) {
            guard let pixbuf = gdk_pixbuf_new_from_file(path, nil) else { return nil }
            self.pixbuf = pixbuf
        }

        deinit { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }

        /// The image scaled by `scale` (at most 1) and encoded as JPEG.
        public func thumbnail(scale: Double, quality: Int = 60) -> Thumbnail? {
            let width = max(1, Int((Double(self.width) * min(scale, 1)).rounded()))
            let height = max(1, Int((Double(self.height) * min(scale, 1)).rounded()))
            // Bilinear in GdkPixbuf averages every source pixel a target pixel covers: text
            // shrinks to grey, not to a sample of dots.
            guard let scaled = gdk_pixbuf_scale_simple(pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(scaled)) }
            var buffer: UnsafeMutablePointer<gchar>?
            var size: gsize = 0
            let saved = "quality".withCString { key in
                "\(quality)".withCString { value in
                    var keys: [UnsafeMutablePointer<gchar>?] = [UnsafeMutablePointer(mutating: key), nil]
                    var values: [UnsafeMutablePointer<gchar>?] = [UnsafeMutablePointer(mutating: value), nil]
                    return gdk_pixbuf_save_to_bufferv(scaled, &buffer, &size, "jpeg", &keys, &values, nil)
                }
            }
            guard saved != 0, let buffer else { return nil }
            defer { g_free(buffer) }
            return Thumbnail(jpeg: Data(bytes: buffer, count: Int(size)), width: width, height: height)
        }

        /// One signature a row (FNV-1a of its RGB samples): equal rows, equal signatures; what
        /// `RowAlignment` lines two snapshots up by.
        public func rowSignatures() -> [UInt64] {
            withExtendedLifetime(self) {
                let pixels = Pixels(pixbuf)
                return (0..<pixels.height).map { y in
                    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                    let row = pixels.bytes + y * pixels.rowstride
                    for x in 0..<pixels.width {
                        for channel in 0..<3 {
                            hash = (hash ^ UInt64(row[x * pixels.channels + channel])) &* 0x100_0000_01b3
                        }
                    }
                    return hash
                }
            }
        }

        /// The bounding box of the pixels whose colour differs from `other`'s, the two laid over
        /// each other from the top left (a pixel only one of them has differs); nil when none
        /// differs.
        public func changedRegion(_ other: Image) -> Region? {
            withExtendedLifetime((self, other)) { SnapshotPictures.region(Pixels(pixbuf), Pixels(other.pixbuf)) }
        }
    }

    /// An image's RGB bytes as GdkPixbuf holds them (8 bits a sample).
    struct Pixels {
        let width: Int, height: Int, rowstride: Int, channels: Int
        let bytes: UnsafePointer<UInt8>

        init(_ image: OpaquePointer) {
            width = Int(gdk_pixbuf_get_width(image))
            height = Int(gdk_pixbuf_get_height(image))
            rowstride = Int(gdk_pixbuf_get_rowstride(image))
            channels = Int(gdk_pixbuf_get_n_channels(image))
            bytes = gdk_pixbuf_read_pixels(image)
        }

        func same(_ other: Pixels, x: Int, y: Int) -> Bool {
            let i = y * rowstride + x * channels, j = y * other.rowstride + x * other.channels
            return bytes[i] == other.bytes[j] && bytes[i + 1] == other.bytes[j + 1] && bytes[i + 2] == other.bytes[j + 2]
        }
    }

    static func region(_ a: Pixels, _ b: Pixels) -> Region? {
        let width = max(a.width, b.width), height = max(a.height, b.height)
        let common = (width: min(a.width, b.width), height: min(a.height, b.height))
        let rowBytes = a.width * a.channels
        var found: Region?
        for y in 0..<height {
            var first = -1, last = -1
            if y >= common.height {
                (first, last) = (0, width - 1)
            } else if a.width == b.width, a.channels == b.channels,
                      memcmp(a.bytes + y * a.rowstride, b.bytes + y * b.rowstride, rowBytes) == 0 {
                continue
            } else {
                for x in 0..<width where x >= common.width || !a.same(b, x: x, y: y) {
                    if first < 0 { first = x }
                    last = x
                }
            }
            guard first >= 0 else { continue }
            if var box = found {
                box.left = min(box.left, first)
                box.right = max(box.right, last + 1)
                box.bottom = y + 1
                found = box
            } else {
                found = Region(left: first, top: y, right: last + 1, bottom: y + 1)
            }
        }
        return found
    }
}
