import Foundation

/// One measurement of a regression suite: a page at one width, font size and zoom.
///
/// `page` is the page as the suite names it (a path relative to the suite file, or a URL), so
/// the same case has the same name on every machine.
public struct RegressionCase: Hashable, Sendable, Comparable, Codable {
    public var page: String
    /// Viewport width in CSS px.
    public var width: Int
    /// Default font size in CSS px.
    public var fontSize: Int
    public var zoom: Double

    public init(page: String, width: Int, fontSize: Int, zoom: Double) {
        (self.page, self.width, self.fontSize, self.zoom) = (page, width, fontSize, zoom)
    }

    /// How failure lines, JUnit and the HTML report name the case:
    /// `a.html (width 390, font 16, zoom 1)`.
    public var name: String {
        "\(page) (width \(width), font \(fontSize), zoom \(RegressionCase.format(zoom)))"
    }

    /// A file name for the case's snapshot: the page's path with every character that is not
    /// a letter, digit, `.`, `-` or `_` replaced by `_`, then the variant; unique per case.
    public var fileStem: String {
        let safe = String(page.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return (scalar.isASCII && (c.isLetter || c.isNumber || "-_".contains(c))) ? c : "_"
        })
        // Long URLs and deep relative paths keep their tail (the distinctive part) plus a hash.
        let tail = safe.count > 80 ? String(safe.suffix(80)) + "-" + RegressionCase.hash(page) : safe
        return "\(tail)-w\(width)-f\(fontSize)-z\(RegressionCase.format(zoom))"
    }

    public static func < (a: RegressionCase, b: RegressionCase) -> Bool {
        (a.page, a.width, a.fontSize, a.zoom) < (b.page, b.width, b.fontSize, b.zoom)
    }

    /// `1` for 1.0, `1.25` for 1.25.
    static func format(_ value: Double) -> String {
        value == value.rounded() ? Int(exactly: value).map(String.init) ?? String(value) : String(value)
    }

    /// FNV-1a, 32 bits, in hex: stable across runs and machines (unlike `Hasher`).
    static func hash(_ text: String) -> String {
        var value: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            value ^= UInt32(byte)
            value = value &* 16_777_619
        }
        return String(format: "%08x", value)
    }
}
