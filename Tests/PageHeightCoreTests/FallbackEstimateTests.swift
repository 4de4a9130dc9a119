import PageHeightCore
import Testing

@Suite struct FallbackEstimateTests {
    @Test func plainTextDropsMarkupScriptsAndCollapsesWhitespace() {
        let text = PlainText(html: """
            <html><head><title>T</title><style>p{}</style></head>
            <body><script>var x = "<p>not text</p>";</script><!-- hidden -->
            <p>Hello   &amp; <b>world</b></p><p>Two&nbsp;words&mdash;here</p></body></html>
            """)
        #expect(text.text == "Hello & world Two wordsxhere", "an entity counts as one character")
        #expect(text.blocks == 2)
    }

    @Test func estimateFollowsTextLengthWidthAndFontSize() {
        let text = PlainText(html: "<p>" + String(repeating: "a", count: 480) + "</p>")
        // 390 px at 16 px: 48 characters a line -> 10 lines of 19.2 px, + 16 for the block, + 16.
        let estimate = FallbackEstimate(text: text, width: 390, fontSize: 16, reason: "JavaScript is off")
        #expect(estimate.height == 224)
        #expect(estimate.textLength == 480)
        let wider = FallbackEstimate(text: text, width: 780, fontSize: 16, reason: "")
        #expect(wider.height < estimate.height)
        let larger = FallbackEstimate(text: text, width: 390, fontSize: 20, reason: "")
        #expect(larger.height > estimate.height)
    }

    /// A read-it-later app capped its estimate at 3000 pt and cut off long articles.
    @Test func longArticlesAreNotCapped() {
        let article = String(repeating: "<p>" + String(repeating: "word ", count: 200) + "</p>", count: 40)
        let estimate = FallbackEstimate(text: PlainText(html: article), width: 390, fontSize: 16, reason: "")
        // 40,000 characters: 834 lines of 48 at 19.2 px, + 40 blocks of 16 px, + 16.
        #expect(estimate.height == 16_669)
    }
}
