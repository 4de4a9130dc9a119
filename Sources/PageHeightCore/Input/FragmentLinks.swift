import Foundation

/// Makes an article fragment's relative links absolute, against the fragment's own directory,
/// so that the fragment can sit in a template whose base URL is the template's directory.
///
/// Rewritten: `src`, `href`, `poster`, `background`, `data`, `srcset` and `imagesrcset` of every
/// tag, `url(…)` in `style` attributes and in `<style>` elements, and `@import "…"`. Left alone:
/// URLs with a scheme, `//host/…`, `/absolute`, `#fragment` and `?query`. A relative value gets
/// the directory's URL in front (`../img/a.png` → `file:///site/articles/../img/a.png`; WebKit
/// removes the dot segments), so entities and the rest of the text stay as written. Pure.
enum FragmentLinks {
    private static let urlAttributes: Set<String> = ["src", "href", "poster", "background", "data"]
    private static let srcsetAttributes: Set<String> = ["srcset", "imagesrcset"]

    /// `html` with its relative links resolved against `directory` (a URL ending in `/`).
    static func absolute(_ html: String, directory: String) -> String {
        precondition(directory.hasSuffix("/"), "a directory URL ends in /")
        let text = Array(html)
        var out = ""
        out.reserveCapacity(html.utf8.count + 256)
        var index = 0
        while index < text.count {
            guard text[index] == "<", index + 1 < text.count, text[index + 1].isLetter else {
                out.append(text[index])
                index += 1
                continue
            }
            let end = tagEnd(text, from: index)
            let tag = String(text[index..<end])
            out += rewriteTag(tag, directory: directory)
            index = end
            if tagName(tag) == "style", let close = find("</style", in: text, from: index) {
                out += rewriteCSS(String(text[index..<close]), directory: directory)
                index = close
            }
        }
        return out
    }

    /// The index after the tag's `>` (quotes respected), or the end of the text.
    private static func tagEnd(_ text: [Character], from start: Int) -> Int {
        var quote: Character?
        var index = start + 1
        while index < text.count {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return index + 1
            }
            index += 1
        }
        return text.count
    }

    private static func tagName(_ tag: String) -> String {
        String(tag.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "-" }).lowercased()
    }

    private static func find(_ needle: String, in text: [Character], from start: Int) -> Int? {
        let pattern = Array(needle)
        guard text.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= text.count {
            if zip(text[index..<index + pattern.count], pattern).allSatisfy({ $0.lowercased() == $1.lowercased() }) { return index }
            index += 1
        }
        return nil
    }

    /// One tag with its URL attributes rewritten.
    private static func rewriteTag(_ tag: String, directory: String) -> String {
        let text = Array(tag)
        var out = ""
        var index = 0
        // The tag name.
        while index < text.count, !text[index].isWhitespace, text[index] != ">", text[index] != "/" || index == 0 {
            out.append(text[index])
            index += 1
        }
        while index < text.count {
            let character = text[index]
            guard character.isLetter else {
                out.append(character)
                index += 1
                continue
            }
            var name = ""
            while index < text.count, !text[index].isWhitespace, !"=>/".contains(text[index]) {
                name.append(text[index])
                index += 1
            }
            out += name
            var look = index
            while look < text.count, text[look].isWhitespace { look += 1 }
            guard look < text.count, text[look] == "=" else { continue }
            out += String(text[index...look])
            index = look + 1
            while index < text.count, text[index].isWhitespace {
                out.append(text[index])
                index += 1
            }
            guard index < text.count else { break }
            var value = ""
            var quote: Character?
            if text[index] == "\"" || text[index] == "'" {
                quote = text[index]
                index += 1
                while index < text.count, text[index] != quote { value.append(text[index]); index += 1 }
                index += 1
            } else {
                while index < text.count, !text[index].isWhitespace, text[index] != ">" { value.append(text[index]); index += 1 }
            }
            let lower = name.lowercased()
            if urlAttributes.contains(lower) {
                value = resolve(value, directory: directory)
            } else if srcsetAttributes.contains(lower) {
                value = resolveSrcset(value, directory: directory)
            } else if lower == "style" {
                value = rewriteCSS(value, directory: directory)
            }
            if let quote { out.append(quote) }
            out += value
            if let quote, index <= text.count { out.append(quote) }
        }
        return out
    }

    /// `value` against `directory` when it is relative.
    static func resolve(_ value: String, directory: String) -> String {
        let leading = value.prefix { $0.isWhitespace }
        let url = value.dropFirst(leading.count)
        guard let first = url.first, !"#/?{".contains(first), PageSource.schemeOf(String(url)) == nil else { return value }
        return leading + directory + url
    }

    /// A `srcset`: candidates `URL [descriptor]` separated by commas.
    private static func resolveSrcset(_ value: String, directory: String) -> String {
        let text = Array(value)
        var out = ""
        var index = 0
        while index < text.count {
            while index < text.count, text[index].isWhitespace || text[index] == "," { out.append(text[index]); index += 1 }
            var url = ""
            while index < text.count, !text[index].isWhitespace { url.append(text[index]); index += 1 }
            // A URL ends at whitespace; a comma right after it ends the candidate.
            var trailing = ""
            while url.hasSuffix(",") { trailing.append(url.removeLast()) }
            out += (url.isEmpty ? "" : resolve(url, directory: directory)) + trailing
            guard trailing.isEmpty else { continue }
            while index < text.count, text[index] != "," { out.append(text[index]); index += 1 }
        }
        return out
    }

    /// CSS with `url(…)` and `@import "…"` resolved.
    private static func rewriteCSS(_ css: String, directory: String) -> String {
        var out = ""
        var rest = Substring(css)
        while let match = rest.firstRange(of: #/(?i)url\(\s*(["']?)|@import\s+(["'])/#) {
            out += rest[..<match.upperBound]
            rest = rest[match.upperBound...]
            let matched = css[match]
            let closing: Character = matched.hasSuffix("\"") ? "\"" : matched.hasSuffix("'") ? "'" : ")"
            let end = rest.firstIndex(of: closing) ?? rest.endIndex
            var value = String(rest[..<end])
            let trailingSpace = closing == ")" ? String(value.reversed().prefix { $0.isWhitespace }.reversed()) : ""
            value = String(value.dropLast(trailingSpace.count))
            out += resolve(value, directory: directory) + trailingSpace
            rest = rest[end...]
        }
        return out + rest
    }
}
