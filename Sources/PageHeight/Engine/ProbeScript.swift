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

    private static let body = #"""
if (window.__pageheight) return;
const handlers = window.webkit && window.webkit.messageHandlers;
const channel = handlers && handlers.pageheight;
if (!channel) return;
// A page starts with nothing stored, as on a first visit. The view's data store was cleared
// after its last page, but the web process keeps its own copy of an origin's storage, which
// that clear reaches only later: emptying it here, before any script of the page, is certain.
try { localStorage.clear(); } catch (e) {}
try { sessionStorage.clear(); } catch (e) {}
const post = channel.postMessage.bind(channel);
const stringify = JSON.stringify.bind(JSON);
const now = () => performance.now();
const nativeSetTimeout = window.setTimeout.bind(window);
// Reports are read in the next animation frame, where the engine lays out anyway: reading a
// height in a microtask after every mutation forced layouts the page never asked for, and
// script-heavy pages then ended at heights no browser shows them at.
const nativeFrame = window.requestAnimationFrame ? window.requestAnimationFrame.bind(window) : null;
const queue = (fn) => nativeFrame ? nativeFrame(fn) : nativeSetTimeout(fn, 16);

// --- metrics -----------------------------------------------------------------------------
function lowestElement() {
  let lowest = 0;
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i++) {
    const r = all[i].getBoundingClientRect();
    if ((r.width || r.height) && r.bottom > lowest) lowest = r.bottom;
  }
  return lowest + window.scrollY;
}
const metricFunctions = {
  'body-scroll': () => document.body ? document.body.scrollHeight : 0,
  'document-scroll': () => document.documentElement ? document.documentElement.scrollHeight : 0,
  'body-offset': () => document.body ? document.body.offsetHeight : 0,
  'document-offset': () => document.documentElement ? document.documentElement.offsetHeight : 0,
  'body-rect': () => document.body ? document.body.getBoundingClientRect().height : 0,
  'lowest-element': lowestElement,
};
function allMetrics() {
  const m = {};
  let max = 0;
  for (const name in metricFunctions) { m[name] = metricFunctions[name](); if (m[name] > max) max = m[name]; }
  m.max = max;
  return m;
}
function value() {
  if (METRIC === 'max') return allMetrics().max;
  return metricFunctions[METRIC]();
}

// --- pending work ------------------------------------------------------------------------
// The page's one-shot timers (due times, performance.now() ms) and requests in flight, as the
// hooks in the page's world last told them.
let hooked = { timers: [], requests: 0 };
window.addEventListener(STATE_EVENT, (e) => {
  let state;
  try { state = JSON.parse(e.detail); } catch (error) { return; }
  if (!state || !Array.isArray(state.timers) || typeof state.requests !== 'number') return;
  hooked = { timers: state.timers.filter((t) => typeof t === 'number' && isFinite(t)).sort((a, b) => a - b).slice(0, 1000),
             requests: Math.max(0, Math.min(state.requests, 1000)) };
  schedule(typeof state.cause === 'string' ? state.cause : null);
});
// Fonts load while `document.fonts.status` says so or a face does. Neither alone is to be
// trusted: WebKit can leave the set's status at "loading" for good once its faces failed, a
// face whose font-display period ran out reads "error" while its font still loads, and a page
// can redefine the set's status (the prototype's getters are read). The session decides how
// long "loading" counts, from the requests the engine sees in flight.
const faceStatus = (() => {
  const d = window.FontFace && Object.getOwnPropertyDescriptor(FontFace.prototype, 'status');
  return d && d.get ? (face) => d.get.call(face) : (face) => face.status;
})();
const setStatus = (() => {
  const d = window.FontFaceSet && Object.getOwnPropertyDescriptor(FontFaceSet.prototype, 'status');
  return d && d.get ? (set) => d.get.call(set) : (set) => set.status;
})();
const forEachFace = (() => {
  const f = window.FontFaceSet && FontFaceSet.prototype.forEach;
  return f ? (set, fn) => f.call(set, fn) : (set, fn) => set.forEach(fn);
})();
function fontsLoading() {
  if (!document.fonts) return false;
  if (setStatus(document.fonts) === 'loading') return true;
  let loading = false;
  forEachFace(document.fonts, (face) => { if (faceStatus(face) === 'loading') loading = true; });
  return loading;
}
function pending() {
  let images = 0;
  const list = document.images;
  for (let i = 0; i < list.length; i++) {
    const img = list[i];
    if (!img.complete && img.loading !== 'lazy' && (img.currentSrc || img.src)) images++;
  }
  let animations = 0;
  if (document.getAnimations) {
    for (const a of document.getAnimations()) {
      if (a.playState !== 'running') continue;
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      if (timing && isFinite(timing.endTime)) animations++;
    }
  }
  const t = now();
  const due = [];
  for (const at of hooked.timers) due.push(Math.max(0, at - t) / 1000);
  return {
    document: document.readyState !== 'complete',
    images: images,
    fonts: fontsLoading(),
    requests: hooked.requests,
    timers: due,
    animations: animations,
  };
}
function pendingKey(p) {
  return [p.document, p.images, p.fonts, p.requests, p.timers.length, p.animations].join();
}

// --- reporting ---------------------------------------------------------------------------
let lastValue = null;
let lastPending = '';
let scheduled = false;
let causes = [];
function report() {
  scheduled = false;
  const cause = causes.length ? causes[0] : 'pending';
  causes = [];
  let v, p;
  try { v = value(); p = pending(); } catch (e) { return; }
  const key = pendingKey(p);
  if (v === lastValue && key === lastPending) return;
  lastValue = v;
  lastPending = key;
  post(stringify({ value: v, cause: cause, pending: p, innerHeight: window.innerHeight }));
}
function schedule(cause) {
  if (cause && causes.indexOf(cause) < 0) causes.push(cause);
  if (!scheduled) { scheduled = true; queue(report); }
}

// A reading, as JSON text: a string crosses to native code far cheaper than an object, which
// WebKit rebuilds there field by field (about 1 ms a reading on a corpus page). All metrics only
// when asked (`all`): lowest-element visits every element's box.
function measure(all) {
  const started = now();
  const result = { value: value(), pending: pending(), innerHeight: window.innerHeight };
  if (all) {
    result.metrics = allMetrics();
    result.compatMode = document.compatMode;
    if (document.body) {
      const style = getComputedStyle(document.body);
      result.bodyMargins = [parseFloat(style.marginTop) || 0, parseFloat(style.marginBottom) || 0];
    }
  }
  result.layoutMs = now() - started;
  if (!loadStamps) loadStamps = readLoadStamps();
  if (loadStamps) Object.assign(result, loadStamps);
  return stringify(result);
}
// The load's stamps, milliseconds since the epoch in whole milliseconds (see
// ProbeReading.pageClockFloorMs); read once both are known, not on every poll.
let loadStamps = null;
function readLoadStamps() {
  if (!afterLoad) return null;
  const navigation = performance.getEntriesByType ? performance.getEntriesByType('navigation')[0] : null;
  let loadEventEnd;
  if (navigation && navigation.loadEventEnd > 0) loadEventEnd = performance.timeOrigin + navigation.loadEventEnd;
  else if (performance.timing && performance.timing.loadEventEnd > 0) loadEventEnd = performance.timing.loadEventEnd;
  else return null;
  return { loadEventEnd: loadEventEnd, loadWorkEnd: performance.timeOrigin + afterLoad.end, loadLayoutMs: afterLoad.layout };
}

// --- what follows the view ----------------------------------------------------------------
// Fit mode asks which elements make the content depend on the view: markView() notes every
// element's height, the engine changes the view's height, and viewCulprits() lists the
// innermost elements whose height changed with it, as a selector path and the share of the
// view they follow (`div.hero: 100vh`).
let viewMarks = null;
let markedView = 0;
function markView() {
  viewMarks = new Map();
  markedView = window.innerHeight;
  const all = document.getElementsByTagName('*');
  const n = Math.min(all.length, 20000);
  for (let i = 0; i < n; i++) viewMarks.set(all[i], all[i].getBoundingClientRect().height);
  return 'null';
}
function selectorPath(element) {
  const part = (e) => {
    const tag = e.tagName.toLowerCase();
    if (e.id) return tag + '#' + e.id;
    const classes = (typeof e.className === 'string' ? e.className : '').trim().split(/\s+/).filter(Boolean).slice(0, 2);
    return tag + (classes.length ? '.' + classes.join('.') : '');
  };
  const parts = [part(element)];
  let e = element.parentElement;
  while (!element.id && e && parts.length < 3 && e !== document.body && e !== document.documentElement) {
    parts.unshift(part(e));
    if (e.id) break;
    e = e.parentElement;
  }
  return parts.join(' > ');
}
function viewCulprits(threshold) {
  const marks = viewMarks;
  viewMarks = null;
  const change = window.innerHeight - markedView;
  if (!marks || Math.abs(change) < 1) return '[]';
  const changed = [];
  for (const [element, before] of marks) {
    if (!element.isConnected || changed.length >= 2000) continue;
    const after = element.getBoundingClientRect().height;
    if (Math.abs(after - before) > threshold) changed.push({ element: element, share: (after - before) / change });
  }
  const innermost = changed.filter((c) => !changed.some((o) => o.element !== c.element && c.element.contains(o.element)));
  const counts = new Map();
  for (const c of innermost) {
    const text = selectorPath(c.element) + ': ' + Math.round(c.share * 100) + 'vh';
    counts.set(text, (counts.get(text) || 0) + 1);
  }
  return stringify([...counts].slice(0, 10).map(([text, n]) => n > 1 ? text + ' (' + n + ' elements)' : text));
}

Object.defineProperty(window, '__pageheight', {
  value: Object.freeze({ measure: measure, pending: pending, markView: markView, viewCulprits: viewCulprits }),
  writable: false, configurable: false, enumerable: false,
});

// --- the engine's work right after the load event ----------------------------------------
// Once the load event has run, WebKit lays the page out (Document::implicitClose) before it
// tells native code that the load finished, which took 80-110 ms on some corpus pages. No event
// marks the end of that pass, so the probe runs it itself in the first pageshow event (after
// every load listener, right before WebKit's own pass, which then has nothing left to do) and
// times it: that is the engine's work, not pageheight's.
let afterLoad = null;
window.addEventListener('pageshow', () => {
  if (afterLoad) return;
  const started = now();
  try { if (document.documentElement) void document.documentElement.scrollHeight; } catch (e) {}
  const end = now();
  afterLoad = { end: end, layout: end - started };
});

// --- observing ---------------------------------------------------------------------------
const resizeObserver = new ResizeObserver(() => schedule('resize-observer'));
let observedBody = null;
function observeTree() {
  if (document.documentElement) resizeObserver.observe(document.documentElement);
  if (document.body && document.body !== observedBody) { observedBody = document.body; resizeObserver.observe(document.body); }
}
const mutationObserver = new MutationObserver(() => { observeTree(); schedule('mutation'); });
mutationObserver.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
observeTree();
window.addEventListener('load', (e) => {
  const target = e.target;
  if (target && target.tagName === 'IMG') schedule('image-load');
  else if (target === document || target === window) schedule('load');
  else schedule('resource-load');
}, true);
window.addEventListener('error', (e) => {
  const target = e.target;
  schedule(target && target.tagName === 'IMG' ? 'image-error' : 'resource-error');
}, true);
document.addEventListener('readystatechange', () => schedule('ready-state'));
document.addEventListener('DOMContentLoaded', () => { observeTree(); schedule('dom-content-loaded'); });
window.addEventListener('resize', () => schedule('viewport-resize'));
for (const type of ['transitionend', 'transitioncancel']) window.addEventListener(type, () => schedule('transition-end'), true);
for (const type of ['animationend', 'animationcancel']) window.addEventListener(type, () => schedule('animation-end'), true);
for (const type of ['transitionstart', 'animationstart']) window.addEventListener(type, () => schedule(null), true);
if (document.fonts) {
  document.fonts.addEventListener('loading', () => schedule(null));
  document.fonts.addEventListener('loadingdone', () => schedule('font-load'));
  document.fonts.addEventListener('loadingerror', () => schedule('font-error'));
}
"""#

    private static let hooksBody = #"""
if (window.__pageheightHooks) return;
Object.defineProperty(window, '__pageheightHooks', { value: true, writable: false, configurable: false });
const stringify = JSON.stringify.bind(JSON);
const now = performance.now.bind(performance);
const microtask = window.queueMicrotask.bind(window);
const dispatch = EventTarget.prototype.dispatchEvent;
const NativeCustomEvent = window.CustomEvent;
const nativeSetTimeout = window.setTimeout.bind(window);
const nativeClearTimeout = window.clearTimeout.bind(window);

// What is outstanding, told to the probe once per turn of the event loop.
const timers = new Map();          // id -> due (performance.now() ms)
let runningTimerDelay = null;      // delay of the timer callback that is running now
let requests = 0;
let queued = false;
let causes = [];
function tell(cause) {
  if (cause && causes.indexOf(cause) < 0) causes.push(cause);
  if (queued) return;
  queued = true;
  microtask(() => {
    queued = false;
    const detail = stringify({ timers: [...timers.values()], requests: requests, cause: causes[0] || null });
    causes = [];
    dispatch.call(window, new NativeCustomEvent(STATE_EVENT, { detail: detail }));
  });
}
window.setTimeout = function(handler, delay, ...args) {
  const ms = Math.max(0, Number(delay) || 0);
  // A timer that re-arms itself with the same delay is periodic, like setInterval: not pending.
  const periodic = runningTimerDelay !== null && runningTimerDelay === ms;
  let id;
  const wrapped = function() {
    timers.delete(id);
    const outer = runningTimerDelay;
    runningTimerDelay = ms;
    try {
      if (typeof handler === 'function') handler.apply(this, args); else (0, eval)(String(handler));
    } finally {
      runningTimerDelay = outer;
      tell('timer');
    }
  };
  id = nativeSetTimeout(wrapped, ms);
  if (!periodic) { timers.set(id, now() + ms); tell(null); }
  return id;
};
window.clearTimeout = function(id) {
  if (timers.delete(id)) tell(null);
  return nativeClearTimeout(id);
};
if (window.fetch) {
  const nativeFetch = window.fetch;
  window.fetch = function(...args) {
    requests++;
    tell(null);
    let promise;
    let open = true;
    const done = () => { if (open) { open = false; requests--; tell('fetch'); } };
    try { promise = nativeFetch.apply(this, args); } catch (e) { done(); throw e; }
    promise.then(done, done);
    return promise;
  };
}
if (window.XMLHttpRequest) {
  const nativeSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function(...args) {
    requests++;
    tell(null);
    let open = true;
    const done = () => { if (open) { open = false; requests--; tell('xhr'); } };
    this.addEventListener('loadend', done, { once: true });
    try { return nativeSend.apply(this, args); } catch (e) { done(); throw e; }
  };
}
"""#
}
