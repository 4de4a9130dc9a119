/// The in-page probe, injected at document start into the top frame.
///
/// It reports every change of the measured metric to native code through the `pageheight`
/// script message handler, with its cause (read at the next animation frame, so it forces no
/// layout of its own), and what is still pending (document loading,
/// images, fonts, fetch/XHR, one-shot timers, finite animations). It exposes
/// `window.__pageheight.measure(all)` (the value, pending work, innerHeight, and with `all` every
/// metric) for native polls; the property is read-only so a page cannot replace it.
///
/// Messages and `measure()` results are JSON text: `{"value": Number, "cause": String,
/// "pending": {...}, "innerHeight": Number, "metrics": {...}}`; timer due times are seconds
/// from now.
enum ProbeScript {
    static let messageHandler = "pageheight"

    static func source(metric: HeightMetric) -> String {
        "(function(){const METRIC=\"\(metric.rawValue)\";\n" + body + "\n})();"
    }

    /// The expression native polls evaluate: the reading as JSON text.
    static let measureCall = "window.__pageheight ? window.__pageheight.measure(false) : 'null'"

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
const stringify = JSON.stringify.bind(JSON); // the page may replace JSON.stringify later
const now = () => performance.now();
const nativeSetTimeout = window.setTimeout.bind(window);
const nativeClearTimeout = window.clearTimeout.bind(window);
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
const timers = new Map();          // id -> due (performance.now() ms)
let runningTimerDelay = null;      // delay of the timer callback that is running now
let requests = 0;
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
      schedule('timer');
    }
  };
  id = nativeSetTimeout(wrapped, ms);
  if (!periodic) { timers.set(id, now() + ms); schedule(null); }
  return id;
};
window.clearTimeout = function(id) {
  if (timers.delete(id)) schedule(null);
  return nativeClearTimeout(id);
};
if (window.fetch) {
  const nativeFetch = window.fetch;
  window.fetch = function(...args) {
    requests++;
    schedule(null);
    let promise;
    let open = true;
    const done = () => { if (open) { open = false; requests--; schedule('fetch'); } };
    try { promise = nativeFetch.apply(this, args); } catch (e) { done(); throw e; }
    promise.then(done, done);
    return promise;
  };
}
if (window.XMLHttpRequest) {
  const nativeSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function(...args) {
    requests++;
    schedule(null);
    let open = true;
    const done = () => { if (open) { open = false; requests--; schedule('xhr'); } };
    this.addEventListener('loadend', done, { once: true });
    try { return nativeSend.apply(this, args); } catch (e) { done(); throw e; }
  };
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
  for (const at of timers.values()) due.push(Math.max(0, at - t) / 1000);
  return {
    document: document.readyState !== 'complete',
    images: images,
    fonts: !!(document.fonts && document.fonts.status === 'loading'),
    requests: requests,
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
  if (all) result.metrics = allMetrics();
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

Object.defineProperty(window, '__pageheight', {
  value: Object.freeze({ measure: measure, pending: pending }),
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
}
