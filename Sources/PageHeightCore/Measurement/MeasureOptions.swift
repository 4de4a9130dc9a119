/// Which height the page is measured by.
///
/// `body-scroll` is what reader apps read (`document.body.scrollHeight`); `max` is the
/// largest of all, as Playwright's full-page size.
public enum HeightMetric: String, CaseIterable, Codable, Sendable {
    case bodyScroll = "body-scroll"
    case documentScroll = "document-scroll"
    case bodyOffset = "body-offset"
    case documentOffset = "document-offset"
    case bodyRect = "body-rect"
    case lowestElement = "lowest-element"
    case max
}

/// When a measurement may stop.
public enum StopRule: String, CaseIterable, Codable, Sendable {
    /// The default: through the reader app's whole growing-delay schedule (its last poll), then
    /// until settled, so that what the app's polls would see (a periodic timer's lines, a late
    /// change) is seen.
    case schedule
    /// As soon as nothing is pending and nothing moved for the quiet window, before the
    /// schedule's end if so: the earliest stop. A periodic timer is not pending work, so what it
    /// adds later is not seen.
    case quiet
    /// The quick rule of a hand-written script: load finished, fonts ready, images done, then
    /// one measurement (timers, requests and animations are not waited for; no quiet window).
    case quick

    /// `settled` is the name `quiet` had while it was the default: suites, scripts and recorded
    /// reports that name it keep the rule they were made with.
    public init?(rawValue: String) {
        switch rawValue {
        case "schedule": self = .schedule
        case "quiet", "settled": self = .quiet
        case "quick": self = .quick
        default: return nil
        }
    }
}

/// How `--offline` stops a request for the network.
public enum OfflineMode: String, CaseIterable, Codable, Sendable {
    /// The request goes out to a port that refuses it at once, and fails as on a machine
    /// without network: a broken image keeps its alt-text box, a script gets its `error` event
    /// a moment later. When that moment comes differs from run to run, so a page whose scripts
    /// race with their failing requests can end at another height.
    case refuse
    /// WebKit's content blocker stops the request in the web process before it is sent, at the
    /// same point of the page's work every run: pages repeat, but a blocked image collapses
    /// (no alt-text box) and a page's fallback code sees its scripts blocked, not failed.
    case block
}

/// Every setting that changes a measurement's result. All lengths are CSS px, times seconds.
public struct MeasureOptions: Codable, Sendable, Equatable {
    /// Viewport width in CSS px.
    public var width: Int = 390
    /// Initial viewport height in CSS px (fit mode changes it afterwards).
    public var height: Int = 844
    /// Default font size in CSS px.
    public var fontSize: Int = 16
    /// Page zoom; the viewport keeps `width` CSS px, so the view is `width * zoom` device px wide.
    public var zoom: Double = 1.0
    public var metric: HeightMetric = .bodyScroll
    public var until: StopRule = .schedule
    /// How long nothing may move (and nothing be pending) before the height counts as settled.
    public var quiet: Double = 0.5
    /// Cap on the whole measurement, from the start of the load.
    public var timeout: Double = 15
    /// Moves of this many px or less are ignored, as the reader app does.
    public var threshold: Double = 5
    public var schedule: GrowingDelaySchedule = .readerApp
    /// Fit mode: every adopted height becomes the view's height, as in the reader app.
    public var fit: Bool = true
    public var javascript: Bool = true
    /// Refuse at once every request that is not for a local file or loopback (it fails as on a
    /// machine without network).
    public var offline: Bool = false
    /// How requests for the network are stopped when `offline`: blocked by default, the mode that
    /// repeats.
    public var offlineMode: OfflineMode = .block
    /// Hosts (`name` or `name:port`) the page may load from although they are on loopback or a
    /// private network (`--allow-host`); nil for none.
    public var allowedHosts: [String]?
    /// Header fields and cookies the page's requests carry (`--request-header`, `--cookie`,
    /// `--cookies`); nil for none. Encoded without their values.
    public var requests: PageRequests?
    /// The device the page sees (`--device`: user agent, scale, touch, screen); nil: desktop.
    public var device: DeviceProfile.Name?
    /// The languages the page is asked for, most wanted first (`--lang`): `Accept-Language` and
    /// `navigator.language`; nil: `defaultLanguages`.
    public var languages: [String]?
    /// The languages of a page that names none: fixed, so that the machine's locale never changes
    /// a result (WebKit would take them from `LANG`, and a `C` locale gives `navigator.language` "C").
    public static let defaultLanguages = ["en-US"]
    /// `prefers-color-scheme` (`--color-scheme`); nil: light.
    public var colorScheme: ColorScheme?
    /// Native views above and below the web view in the same scroll view.
    public var header: Double = 0
    public var footer: Double = 0
    /// The page's clock: virtual by default, since it gives `--clock real --until schedule`'s
    /// answer on the whole corpus (BENCHMARKS.md) without waiting for the page's timers.
    public var clock: PageClockMode = .virtual
    /// The fonts pages are rendered with: the engine's, set when it starts (a measurement that
    /// asks for others is a `load-error`); recorded here so a report says how it was made. Nil
    /// in reports written before pageheight recorded its fonts.
    public var fonts: FontChoice? = FontChoice()
    /// What the reader does once the page has its height (`--then`), in order; each is applied in
    /// the same view and measured until its own verdict. Nil: none.
    public var steps: [PageStep]?

    public init() {}

    /// The profile of `device`.
    public var deviceProfile: DeviceProfile { DeviceProfile.named(device ?? .desktop) }

    /// Throws when the view's width or height, one of `widths` (a suite's), or one a step sets is
    /// larger at the device's scale than the engine renders (`DeviceProfile.largestSide` device
    /// pixels a side). `widthName` names the widths in the message (`--width`, `'widths'`).
    public func checkViewSize(widths: [Int]? = nil, widthName: String = "--width") throws(UsageError) {
        let profile = deviceProfile
        let largest = profile.largestSideInCSSPixels
        var sides = (widths ?? [width]).map { ("'\(widthName) \($0)'", $0) } + [("'--height \(height)'", height)]
        for step in steps ?? [] {
            switch step {
            case .width(let px), .height(let px): sides.append(("'--then \(step)'", px))
            case .size(let width, let height): sides += [("'--then \(step)'", width), ("'--then \(step)'", height)]
            default: continue
            }
        }
        for (what, px) in sides where px > largest {
            throw UsageError("\(what) with --device \(profile.name.rawValue) (scale \(profile.engineScale)): a side of the view is at most "
                + "\(largest) CSS px there, \(DeviceProfile.largestSide) device pixels, the most the engine renders")
        }
    }

    /// Gives the viewport `device`'s size, but for the sides the user set (`--width`, `--height`).
    public mutating func takeDeviceViewport(keepingWidth: Bool, keepingHeight: Bool) {
        guard let device else { return }
        let profile = DeviceProfile.named(device)
        if !keepingWidth { width = profile.width }
        if !keepingHeight { height = profile.height }
    }
}

/// `prefers-color-scheme`, as the page's style sheets and scripts see it.
public enum ColorScheme: String, CaseIterable, Codable, Sendable {
    case light, dark
}

