/// What a page can observe about the device it runs on: `--device NAME`.
///
/// The values are public device descriptors, not memory. Unless a comment says otherwise they are
/// Playwright's (`packages/playwright-core/src/server/deviceDescriptorsSource.json` in
/// microsoft/playwright: `userAgent`, `viewport`, `screen`, `deviceScaleFactor`, `hasTouch`,
/// `isMobile`), the list Playwright and Puppeteer users emulate devices with.
///
/// Which of them the engine itself takes and which only the page's scripts see is the table in
/// docs/devices.md: the user agent, the viewport, the scale and the font families
/// (`DeviceFonts`) are the engine's; touch, hover, pointer, the screen and `navigator.platform`
/// are what scripts read and what hover and pointer conditions in style sheets answer (the hooks).
public struct DeviceProfile: Sendable, Equatable {
    public enum Name: String, CaseIterable, Codable, Sendable {
        case desktop, iphone, ipad, android
    }

    public let name: Name
    /// Sent in every request's `User-Agent` and read by `navigator.userAgent`; nil: the engine's own.
    public let userAgent: String?
    /// The viewport in CSS px, unless `--width` / `--height` say otherwise.
    public let width: Int
    public let height: Int
    /// `devicePixelRatio`. The engine renders at whole scales only (GDK's scale factor): it renders
    /// at `engineScale`, and scripts read this.
    public let scale: Double
    /// `screen.width` and `screen.height` in CSS px; nil: the display's.
    public let screen: (width: Int, height: Int)?
    /// `navigator.maxTouchPoints`; above 0, the device has touch: `ontouchstart` is there, and
    /// `(hover: none)`, `(pointer: coarse)` and their `any-` forms hold for scripts and in the
    /// style sheets the page can read.
    public let touchPoints: Int
    /// `navigator.platform`; nil: the engine's own.
    public let platform: String?

    /// The whole scale the engine renders at: `scale` rounded up.
    public var engineScale: Int { Int(scale.rounded(.up)) }

    /// The most device pixels a side of the view may have: what `--width` allows at scale 1.
    /// A larger view at a device's scale (`--device iphone --then width=100000`: 300,000 device
    /// pixels) made the web process crash or stall.
    public static let largestSide = 100_000

    /// The widest or tallest view in CSS px at this device's scale.
    public var largestSideInCSSPixels: Int { Self.largestSide / engineScale }
    public var touch: Bool { touchPoints > 0 }

    public static func == (a: DeviceProfile, b: DeviceProfile) -> Bool { a.name == b.name }

    public static func named(_ name: Name) -> DeviceProfile {
        switch name {
        case .desktop: desktop
        case .iphone: iphone
        case .ipad: ipad
        case .android: android
        }
    }

    /// Today's behaviour: WebKitGTK's own user agent and platform, scale 1, no touch, a mouse;
    /// the viewport is pageheight's default (the reader app's web view on a phone).
    public static let desktop = DeviceProfile(
        name: .desktop, userAgent: nil, width: 390, height: 844, scale: 1, screen: nil, touchPoints: 0, platform: nil)

    /// Safari on a current iPhone: Playwright's "iPhone 13" (user agent, screen 390×844, scale 3,
    /// touch). Viewport: the whole screen, 390×844 (a reader app's web view has no Safari bars;
    /// Playwright's 664 px is Safari's visible area). `navigator.platform` "iPhone" (MDN,
    /// Navigator.platform; fingerprintjs's platform source). `maxTouchPoints` 5: what Safari on
    /// iOS reports, as issue 44 names it (Playwright's list has only `hasTouch`).
    public static let iphone = DeviceProfile(
        name: .iphone,
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            + "Version/16.4 Mobile/15E148 Safari/604.1",
        width: 390, height: 844, scale: 3, screen: (390, 844), touchPoints: 5, platform: "iPhone")

    /// Safari on an iPad: Playwright's "iPad (gen 7)" (user agent, viewport 810×1080, scale 2,
    /// touch); its screen is its viewport. `navigator.platform` "iPad" for that user agent (MDN).
    public static let ipad = DeviceProfile(
        name: .ipad,
        userAgent: "Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            + "Version/16.4 Mobile/15E148 Safari/604.1",
        width: 810, height: 1080, scale: 2, screen: (810, 1080), touchPoints: 5, platform: "iPad")

    /// Chrome's WebView on a Pixel-class phone: Playwright's "Pixel 5" (viewport 393×727, screen
    /// 393×851, scale 2.75, touch), its user agent in the WebView form Chrome documents ("; wv"
    /// after the model, "Version/4.0" before Chrome: developer.chrome.com, "User-Agent strings",
    /// WebView). Viewport height: the screen's, as for the iPhone. `navigator.platform`
    /// "Linux armv81" (MDN's example for ARM Linux, what Chrome on Android reports).
    public static let android = DeviceProfile(
        name: .android,
        userAgent: "Mozilla/5.0 (Linux; Android 11; Pixel 5; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 "
            + "Chrome/113.0.5672.53 Mobile Safari/537.36",
        width: 393, height: 851, scale: 2.75, screen: (393, 851), touchPoints: 5, platform: "Linux armv81")
}
