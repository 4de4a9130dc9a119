import Foundation

/// The reader app's last resort: a height estimated from the length of the page's plain text.
///
/// Lines are the characters at an average glyph width of half the font size, 1.2 font sizes
/// high, plus one font size of margin per block (paragraph, heading, list item) and the
/// body's 8 px margins. It is an estimate, labelled as one, and never capped: a cap (a
/// read-it-later app used 3000 pt) cuts off long articles.
public struct FallbackEstimate: Codable, Sendable, Equatable {
    /// Estimated content height, CSS px.
    public var height: Double
    /// Characters of plain text (whitespace collapsed).
    public var textLength: Int
    /// Blocks counted (paragraphs, headings, list items, line breaks).
    public var blocks: Int
    public var width: Int
    public var fontSize: Int
    /// Why the page's JavaScript height could not be used.
    public var reason: String
    public var method = "text length: ceil(chars * fontSize/2 / width) lines of 1.2 * fontSize, + fontSize per block, + 16"

    public init(text: PlainText, width: Int, fontSize: Int, reason: String) {
        let size = Double(max(fontSize, 1))
        let charactersPerLine = max(1, (Double(max(width, 1)) / (size / 2)).rounded(.down))
        let lines = (Double(text.characters) / charactersPerLine).rounded(.up)
        self.height = (lines * size * 1.2 + Double(text.blocks) * size + 16).rounded()
        self.textLength = text.characters
        self.blocks = text.blocks
        self.width = width
        self.fontSize = fontSize
        self.reason = reason
    }
}

/// The visible text of an HTML document, reduced to what the estimate needs.
public struct PlainText: Sendable, Equatable {
    /// Characters after collapsing whitespace.
    public var characters: Int
    /// Block boundaries: closing paragraphs, headings, list items, divs, and `<br>`.
    public var blocks: Int
    public var text: String

    /// Extracts the text: drops head, script, style, template, comments and tags, decodes
    /// the common entities, collapses whitespace.
    public init(html: String) {
        var body = html
        for element in ["head", "script", "style", "template", "noscript", "svg"] {
            body = body.replacingOccurrences(
                of: "<\(element)\\b[^>]*>.*?</\(element)\\s*>", with: " ",
                options: [.regularExpression, .caseInsensitive])
        }
        body = body.replacingOccurrences(of: "<!--.*?-->", with: " ", options: .regularExpression)
        let blockPattern = "</(p|h[1-6]|li|div|blockquote|pre|tr)\\s*>|<br\\b[^>]*>"
        let blocks = (try? NSRegularExpression(pattern: blockPattern, options: .caseInsensitive))?
            .numberOfMatches(in: body, range: NSRange(body.startIndex..., in: body)) ?? 0
        body = body.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        body = Self.decodeEntities(body)
        let words = body.split(whereSeparator: { $0.isWhitespace })
        let collapsed = words.joined(separator: " ")
        self.text = collapsed
        self.characters = collapsed.count
        self.blocks = blocks
    }

    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named = ["&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'", "&apos;": "'", "&nbsp;": " "]
        var result = text
        for (entity, character) in named { result = result.replacingOccurrences(of: entity, with: character) }
        // Any other entity (&mdash;, &#8212;, &#x2014;) is one character.
        return result.replacingOccurrences(of: "&#?[A-Za-z0-9]{1,10};", with: "x", options: .regularExpression)
    }
}
