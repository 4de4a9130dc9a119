/// The in-page probe: two scripts injected at document start into the top frame.
///
/// The probe itself runs in a script world of its own (`world`), which page scripts cannot
/// reach: only there is the `pageheight` message handler registered, and only there is
/// `window.__pageheight` defined. A page can therefore neither send the engine readings of its
/// own making nor flood its handler. The probe reports every change of the measured metric to
/// native code, with its cause (read at the next animation frame, so it forces no layout of its
/// own), and what is still pending (document loading, images, fonts, fetch/XHR, one-shot
/// timers, finite animations). It exposes `window.__pageheight.measure(all)` (the value, pending
/// work, innerHeight, and with `all` every metric) for native polls, evaluated in its world.
///
/// Timers and requests are the page's own calls, which only its world sees: `hooks` wraps
/// `setTimeout`, `clearTimeout`, `fetch` and `XMLHttpRequest` there and tells the probe what is
/// outstanding through a `pageheight-probe-state` event on `window` (DOM events reach every
/// world) whose detail is JSON text. A page could send that event itself: all it could do so is
/// claim pending work, which it could as well create, and the timeout bounds either.
///
/// Messages and `measure()` results are JSON text: `{"value": Number, "cause": String,
/// "pending": {...}, "innerHeight": Number, "metrics": {...}}`; timer due times are seconds
/// from now.
enum ProbeScript {
    static let messageHandler = "pageheight"
    /// The script world the probe runs in.
    static let world = "pageheight"
    /// The event the page world's hooks tell the probe by.
    static let stateEvent = "pageheight-probe-state"

    /// The probe, for the probe's own world.
    static func source(metric: HeightMetric) -> String {
        "(function(){const METRIC=\"\(metric.rawValue)\";const STATE_EVENT=\"\(stateEvent)\";\n" + body + "\n})();"
    }

    /// The hooks, for the page's world.
    static var hooks: String {
        "(function(){const STATE_EVENT=\"\(stateEvent)\";\n" + hooksBody + "\n})();"
    }

    /// The expression native polls evaluate: the reading as JSON text.
    static let measureCall = "window.__pageheight ? window.__pageheight.measure(false) : 'null'"

    /// Notes every element's height before fit mode changes the view's height.
    static let markViewCall = "window.__pageheight ? window.__pageheight.markView() : 'null'"

    /// The elements whose height changed with the view since `markViewCall`, as a JSON array.
    static func viewCulpritsCall(threshold: Double) -> String {
        "window.__pageheight ? window.__pageheight.viewCulprits(\(threshold)) : '[]'"
    }

    /// The same with every metric, for the report's side-by-side `metrics`.
    static let measureAllCall = "window.__pageheight ? window.__pageheight.measure(true) : 'null'"

    /// The probe's code (`Probe/probe.js`): the body of a function that expects `METRIC` and
    /// `STATE_EVENT` from the prologue `source(metric:)` puts before it.
    private static let body = String(decoding: PackageResources.probe_js, as: UTF8.self)

    /// The hooks' code (`Probe/hooks.js`): the body of a function that expects `STATE_EVENT`.
    private static let hooksBody = String(decoding: PackageResources.hooks_js, as: UTF8.self)
}
