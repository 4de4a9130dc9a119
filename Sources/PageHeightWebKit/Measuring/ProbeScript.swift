import Foundation
import PageHeightCore

/// The in-page probe: two scripts injected at document start, their code in `Probe/probe.js` and
/// `Probe/hooks.js` (compiled into the binary), each prefixed with a prologue of its parameters.
///
/// The probe itself runs in a script world of its own (`world`), in the top frame, which page
/// scripts cannot reach: only there is the `pageheight` message handler registered, and only
/// there is `window.__pageheight` defined. A page can therefore neither send the engine readings
/// of its own making nor flood its handler. The probe reports every change of the measured metric
/// to native code, with its cause (read at the next animation frame, so it forces no layout of its
/// own), and what is still pending (document loading, images, fonts, fetch/XHR, one-shot
/// timers, finite animations). It exposes `window.__pageheight.measure(all)` (the value, pending
/// work, innerHeight, the page's clock, and with `all` every metric) for native polls, evaluated
/// in its world, and `clock()` and `advance(to)` for the virtual clock.
///
/// Timers and requests are the page's own calls, which only its world sees: `hooks`, in every
/// frame, wraps `setTimeout`, `clearTimeout`, `fetch` and `XMLHttpRequest` there; a child
/// frame's hooks tell their parent frame's what they and their children have outstanding (a
/// tagged `postMessage`, which reaches a frame of any origin), and the top frame's tell the probe
/// the whole page's through a `pageheight-probe-state` event on `window` (DOM events reach every
/// world) whose detail is JSON text. The probe asks for that state afresh before each reading by
/// a `pageheight-clock` event without a time. A page could send that event itself: all it could do so is
/// claim pending work, which it could as well create, or misstate its own clock, which only
/// misleads the jumps of its own measurement; the timeout bounds either.
///
/// With the virtual clock (`hooks(virtualClock: true)`, in every frame) the hooks also replace
/// the page's view of time: real time plus the jumps the probe asked for through a
/// `pageheight-clock` event (see `hooks.js`). A page could send that event itself: all it could do
/// so is move its own clock forward, which it could as well do by waiting. The probe's own world
/// keeps the real `performance.now()`.
///
/// Messages and `measure()` results are JSON text: `{"value": Number, "cause": String,
/// "pending": {...}, "innerHeight": Number, "clock": {...}, "metrics": {...}}`; timer due times
/// are seconds from the page's now; the clock is `{"now": ms, "offset": ms, "next": ms or null}`
/// in the page's time (milliseconds on its `performance.now()` scale, jumps included), `next` the
/// earliest due timer of any kind (null on the real clock, or with none).
enum ProbeScript {
    static let messageHandler = "pageheight"
    /// The script world the probe runs in.
    static let world = "pageheight"
    /// The event the page world's hooks tell the probe by.
    static let stateEvent = "pageheight-probe-state"
    /// The event the probe asks the page world's virtual clock to jump by.
    static let clockEvent = "pageheight-clock"

    /// The probe, for the probe's own world.
    static func source(metric: HeightMetric) -> String {
        "(function(){const METRIC=\"\(metric.rawValue)\";const STATE_EVENT=\"\(stateEvent)\";"
            + "const CLOCK_EVENT=\"\(clockEvent)\";const TEXT_KEPT=\(PageText.kept);const URL_KEPT=\(PageText.urlKept);\n"
            + body + "\n})();"
    }

    /// The hooks, for the page's world of every frame: timers and requests on the real clock, the
    /// virtual clock as well on it.
    static func hooks(virtualClock: Bool, device: DeviceProfile = .desktop) -> String {
        "(function(){const STATE_EVENT=\"\(stateEvent)\";const CLOCK_EVENT=\"\(clockEvent)\";"
            + "const VIRTUAL_CLOCK=\(virtualClock);const DEVICE=\(deviceLiteral(device));\n" + hooksBody + "\n})();"
    }

    /// What the hooks emulate of `device` (see hooks.js, "the device"), as a JavaScript object
    /// literal; `null` for the desktop, which is the engine's own.
    static func deviceLiteral(_ device: DeviceProfile) -> String {
        guard device.name != .desktop else { return "null" }
        // The table's platforms are plain ASCII words (`DeviceProfile`): quoted as they are.
        let quoted = { (text: String) -> String in
            precondition(text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }, text)
            return "\"\(text)\""
        }
        let screen = device.screen.map { "[\($0.width),\($0.height)]" } ?? "null"
        return "{scale:\(device.scale),touchPoints:\(device.touchPoints),platform:\(device.platform.map(quoted) ?? "null"),"
            + "screen:\(screen)}"
    }

    // MARK: - Calls: each script the driver runs, with the type of its answer

    /// The page's clock (`PageClock`).
    static let clock = ProbeCall<PageClock>(probe: "clock()", decode: json)

    /// Jumps the page's virtual clock to `toMs` (the page's time, ms) if that is ahead; the clock
    /// after it. On the real clock it only reads the clock.
    static func advance(toMs: Double) -> ProbeCall<PageClock> {
        precondition(toMs.isFinite, "a jump to \(toMs)")
        return ProbeCall(probe: "advance(\(toMs))", decode: json)
    }

    /// Jumps the page's virtual clock `ms` ahead of its time now, in the same evaluation (no time
    /// passes between reading the clock and jumping); the clock after it. With `run`, the page's
    /// own timers due by then run on the way, each at its own time (a run, hooks.js).
    static func advance(byMs ms: Double, run: Bool = false) -> ProbeCall<PageClock> {
        precondition(ms.isFinite, "a jump by \(ms)")
        return ProbeCall(probe: "advance(JSON.parse(window.__pageheight.clock()).now + \(ms)\(run ? ", true" : ""))", decode: json)
    }

    /// Moves the page's virtual clock `ms` ahead of its time now (0: not at all) and runs one
    /// animation frame there, in the same evaluation; the reading after it, as `measure` gives it.
    static func frame(ms: Double) -> ProbeCall<ProbeReading> {
        precondition(ms.isFinite && ms >= 0, "a frame \(ms) ms ahead")
        return ProbeCall(probe: "frame(\(ms))", decode: json)
    }

    /// The reading native polls take.
    static let measure = ProbeCall<ProbeReading>(probe: "measure(false)", decode: json)

    /// The same with every metric, for the report's side-by-side `metrics`.
    static let measureAll = ProbeCall<ProbeReading>(probe: "measure(true)", decode: json)

    /// Notes every element's height before fit mode changes the view's height.
    static let markView = ProbeCall<Bool>(probe: "markView()", decode: { _ in true })

    /// The elements whose height changed with the view since `markView`.
    static func viewCulprits(threshold: Double) -> ProbeCall<[String]> {
        ProbeCall(probe: "viewCulprits(\(threshold))", decode: json)
    }

    /// Where the content ends whatever the view's height (CSS px of the document).
    static let contentBottom = ProbeCall<Double>(probe: "contentBottom()", decode: { Double($0) })

    /// The font-family lists the page's text is set in, and its loaded web fonts' families.
    static let fontFamilies = ProbeCall<FontUse.Seen>(probe: "fontFamilies()", decode: json)

    /// Where a tap on the first element a selector matches lands (CSS px of the viewport), or why not.
    struct ClickTarget: Decodable, Sendable { var x: Double?; var y: Double?; var covered: String?; var error: String? }

    static func clickTarget(_ selector: String) -> ProbeCall<ClickTarget> {
        ProbeCall(probe: "clickTarget(\(literal(selector)))", decode: json)
    }

    /// Whether a trusted click reached the document since `clickTarget`.
    static let clickSeen = ProbeCall<Bool>(probe: "clickSeen()", decode: { $0 == "true" })

    /// Scrolls the page to `y` CSS px, or to its bottom (nil); the position it reached, as the page gives it.
    static func scroll(to y: Double?) -> ProbeCall<String> {
        ProbeCall(probe: "scroll(\(y.map { "\($0)" } ?? "'bottom'"))", decode: { $0 })
    }

    /// Asks for the page's next rendering update; the mark to give `rendered`.
    static let renderingMark = ProbeCall<Int>(probe: "renderingMark()", decode: { Int($0) })

    /// Whether the rendering update asked for at `mark` has come (true too without the probe: nothing to wait for).
    static func rendered(since mark: Int) -> ProbeCall<Bool> {
        ProbeCall(probe: "rendered(\(mark))", missing: "true", decode: { $0 != "false" })
    }

    /// The viewport's size in CSS px.
    static let viewport = ProbeCall<[Double]>(script: "JSON.stringify([window.innerWidth, window.innerHeight])",
                                               decode: { json($0).flatMap { (size: [Double]) in size.count == 2 ? size : nil } })

    /// Whether `prefers-color-scheme: dark` matches.
    static let dark = ProbeCall<Bool>(probe: "dark()", decode: { $0 == "true" ? true : $0 == "false" ? false : nil })

    private static func json<T: Decodable>(_ text: String) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// `text` as a JavaScript string literal.
    private static func literal(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }

    /// The probe's code (`Probe/probe.js`): the body of a function that expects `METRIC`,
    /// `STATE_EVENT` and `CLOCK_EVENT` from the prologue `source(metric:)` puts before it.
    private static let body = String(decoding: PackageResources.probe_js, as: UTF8.self)

    /// The hooks' code (`Probe/hooks.js`): the body of a function that expects `STATE_EVENT`,
    /// `CLOCK_EVENT` and `VIRTUAL_CLOCK` from the prologue `hooks(virtualClock:)` puts before it.
    private static let hooksBody = String(decoding: PackageResources.hooks_js, as: UTF8.self)
}

/// A script the driver runs in the probe's world, and how its answer (JSON or plain text) is
/// read: nil when the page gave no usable answer (the probe missing, a value of another shape).
struct ProbeCall<Answer>: Sendable {
    let script: String
    let decode: @Sendable (String) -> Answer?

    init(script: String, decode: @escaping @Sendable (String) -> Answer?) {
        (self.script, self.decode) = (script, decode)
    }

    /// A call of the probe's `window.__pageheight.<call>`, answered by `missing` when the page has
    /// no probe (it replaced or blocked it).
    init(probe call: String, missing: String = "null", decode: @escaping @Sendable (String) -> Answer?) {
        self.init(script: "window.__pageheight ? window.__pageheight.\(call) : '\(missing)'", decode: decode)
    }
}
