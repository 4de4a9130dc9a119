import Testing
@testable import PageHeightCore

/// Which face stood in for each family a page's text asks for (issue 58): the first family of a
/// list that the device's table names decides, a web font the page loaded decides before it, a
/// family the device lacks falls through, and a list of none the device has gets the standard one.
struct FontUseTests {
    @Test func theFirstFamilyTheDeviceHasDecides() {
        let seen = FontUse.Seen(lists: ["\"Helvetica Neue\", Arial, sans-serif", "Merriweather, Georgia, serif",
                                        "'Brand Sans', system-ui", "Comic Neue", "serif"],
                                webFonts: ["Brand Sans"])
        let uses = FontUse.uses(seen, device: .ios)
        #expect(uses == [FontUse(family: "Helvetica Neue", face: "Liberation Sans", deviceFace: "Helvetica Neue"),
                         FontUse(family: "Georgia", face: "P052", deviceFace: "Georgia"),
                         FontUse(family: "Brand Sans", face: "web font"),
                         FontUse(family: "serif", face: "Liberation Serif", deviceFace: "Times")])
        #expect(FontUse.uses(FontUse.Seen(lists: ["Comic Neue"], webFonts: []), device: .android)
            == [FontUse(family: "sans-serif", face: "Roboto")])
        #expect(FontUse.families(in: "\"A B\", 'C', d") == ["A B", "C", "d"])
    }
}
