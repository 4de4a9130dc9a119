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
            self.jpeg = jpeg
            self.width = width
            self.height = height
        }
    }

    /// The PNG at `path` scaled by `scale` (at most 1) and encoded as JPEG; nil when it cannot
    /// be read.
    public static func thumbnail(ofPNG path: String, scale: Double, quality: Int = 60) -> Thumbnail? {
        guard let image = gdk_pixbuf_new_from_file(path, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(image)) }
        let width = max(1, Int((Double(gdk_pixbuf_get_width(image)) * min(scale, 1)).rounded()))
        let height = max(1, Int((Double(gdk_pixbuf_get_height(image)) * min(scale, 1)).rounded()))
        // Bilinear in GdkPixbuf averages every source pixel a target pixel covers: text shrinks
        // to grey, not to a sample of dots.
        guard let scaled = gdk_pixbuf_scale_simple(image, Int32(width), Int32(height), GDK_INTERP_BILINEAR) else { return nil }
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

    /// The bounding box of the pixels whose colour differs between the PNGs at `a` and `b`, laid
    /// over each other from the top left (a pixel only one of them has differs); `.some(nil)`
    /// when none differs, nil when either cannot be read.
    public static func changedRegion(_ a: String, _ b: String) -> Region?? {
        guard let first = gdk_pixbuf_new_from_file(a, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(first)) }
        guard let second = gdk_pixbuf_new_from_file(b, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(second)) }
        return .some(region(Pixels(first), Pixels(second)))
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
