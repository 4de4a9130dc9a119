import PageHeightCore
import Testing

/// "Did you mean" for a misspelt option or suite key (issue 61.8).
struct NearestNameTests {
    @Test func aMisspeltNameGetsTheNearestKnownOne() {
        let options = MeasuringOption.allSwitches
        #expect(NearestName.suggestion(for: "--widht", among: options) == "--width")
        #expect(NearestName.suggestion(for: "--fontsize", among: options) == "--font-size")
        #expect(NearestName.suggestion(for: "--tiemout", among: options) == "--timeout")
        #expect(NearestName.suggestion(for: "--zzz", among: options) == nil)
        #expect(NearestName.suggestion(for: "--width", among: options) == nil, "a known name is no misspelling")
        #expect(NearestName.suggestion(for: "widht", among: ["widths", "height", "pages"]) == "widths")
        // Two as near: no guess.
        #expect(NearestName.suggestion(for: "ab", among: ["ac", "ad"]) == nil)
        #expect(UsageError.unknownOption("--widht", known: options).message == "unknown option '--widht' (did you mean '--width'?)")
    }
}
