/// Text put into HTML (the regression report, tune's charts).
package enum HTMLText {
    /// `text` with the characters HTML gives a meaning escaped, for element content and quoted attributes.
    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// A whole HTML document: `title` (escaped here), a style sheet, the body's parts and an
    /// optional script at its end.
    package static func document(title: String, style: String, body: [String], script: String? = nil) -> String {
        let end = script.map { "<script>\n\($0)\n</script>\n" } ?? ""
        return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(escape(title))</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        \(body.joined(separator: "\n"))
        \(end)</body>
        </html>

        """
    }
}
