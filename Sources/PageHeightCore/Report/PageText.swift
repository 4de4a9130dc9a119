import Foundation

/// Caps on the strings and lists a page controls (the causes its events claim, its URLs, its
/// element ids in a culprit's selector, the targets of its navigations), applied where each
/// enters pageheight, so that neither this process nor a report grows with what a page sends.
/// A cut text ends with a note of how much was cut. Pure.
package enum PageText {
    /// Characters kept of a cause or a selector part.
    package static let kept = 200
    /// Characters kept of a URL (bytes, where the engine reads one: `RequestLedger`).
    package static let urlKept = 2048
    /// Entries kept of a list a page can lengthen (its stopped navigations).
    package static let listKept = 20

    /// `text` safe to print on a terminal: control characters but newline and tab (ESC, which
    /// starts escape and OSC sequences, among them), C1 controls, DEL and the bidirectional
    /// overrides, which a page's ids and URLs may carry, become visible escapes (`\u{1B}`).
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnprintable) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnprintable(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// JSON text with every character `printable` would change written as a JSON escape
    /// (`\u009b`): the same value to a JSON reader, and nothing a terminal acts on when the JSON is
    /// printed (the form `printable` gives, `\u{9B}`, is not valid JSON). An encoder escapes the
    /// C0 controls itself but leaves C1 controls, DEL and the bidirectional overrides as they
    /// are; in valid JSON they can only stand inside strings, where the escape means the same.
    package static func printableJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: isUnprintable) else { return json }
        var out = ""
        for scalar in json.unicodeScalars {
            if isUnprintable(scalar) {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text`, or its first `limit` characters and a note of the rest.
    package static func capped(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit, text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.count - limit) more characters cut)"
    }

    /// The first `limit` bytes of a C string, without reading past them (a page can make one
    /// megabytes long), as Swift text (a sequence cut at the end is repaired).
    package static func prefix(_ pointer: UnsafePointer<CChar>, bytes limit: Int) -> String {
        let length = strnlen(pointer, limit + 1)
        let kept = UnsafeRawBufferPointer(start: pointer, count: min(length, limit))
        let text = String(decoding: kept, as: UTF8.self)
        return length > limit ? text + "… (cut at \(limit) bytes)" : text
    }
}
