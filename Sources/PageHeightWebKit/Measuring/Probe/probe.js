// The probe (see ProbeScript.swift): runs at document start in the script world `pageheight`,
// as the body of a function whose prologue defines METRIC, STATE_EVENT, CLOCK_EVENT and the caps on
// page-controlled text, TEXT_KEPT and URL_KEPT (PageText.swift).
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
// A string the page controls, cut to `limit` characters with a note that it was.
const kept = (text, limit) => text.length > limit ? text.slice(0, limit) + '… (' + (text.length - limit) + ' more characters cut)' : text;
// This world's own `performance.now()`: real time (the hooks' virtual clock replaces the page
// world's, which this world does not share).
const now = () => performance.now();
const nativeSetTimeout = window.setTimeout.bind(window);
// Reports are read in the next animation frame, where the engine lays out anyway: reading a
// height in a microtask after every mutation forced layouts the page never asked for, and
// script-heavy pages then ended at heights no browser shows them at.
const nativeFrame = window.requestAnimationFrame ? window.requestAnimationFrame.bind(window) : null;
const queue = (fn) => nativeFrame ? nativeFrame(fn) : nativeSetTimeout(fn, 16);

// --- metrics -----------------------------------------------------------------------------
// The lowest box a reader can see: content the engine lays out but does not show (a closed
// <details>'s, under content-visibility: hidden) is left out, as the body's scroll height does.
function lowestElement() {
  let lowest = 0;
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i++) {
    const r = all[i].getBoundingClientRect();
    if (!(r.width || r.height) || r.bottom <= lowest) continue;
    if (all[i].checkVisibility && !all[i].checkVisibility()) continue;
    lowest = r.bottom;
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
// The page's one-shot timers (due times, virtual ms: performance.now() plus the clock's offset)
// and requests in flight, every frame's (the hooks of each frame tell their parent), the child
// frames still loading, the virtual clock's offset (ms, 0 on the real clock) and its earliest due
// timer of any kind in any frame (virtual ms; null on the real clock, or with no timer), as the
// hooks in the page's world last told them.
// `animationFrames`: the top frame's animation frame callbacks waiting for a frame (virtual clock).
// `opened`: child frames whose document a script opened and has not closed (see hooks.js).
// `workers`: dedicated workers running, in any frame (see hooks.js).
// `calls`: calls of the engine's asynchronous work under way, in any frame (see hooks.js).
// `realTime`: the first way of keeping time the hooks do not move that the page uses now, in any
// frame (see hooks.js), or null.
let hooked = { timers: [], requests: 0, calls: 0, workers: 0, frames: 0, opened: 0, offset: 0, next: null, childNext: null, animationFrames: 0,
               realTime: null };
window.addEventListener(STATE_EVENT, (e) => {
  let state;
  try { state = JSON.parse(e.detail); } catch (error) { return; }
  if (!state || !Array.isArray(state.timers) || typeof state.requests !== 'number') return;
  const finite = (x) => typeof x === 'number' && isFinite(x);
  hooked = { timers: state.timers.filter(finite).sort((a, b) => a - b).slice(0, 1000),
             requests: Math.max(0, Math.min(state.requests, 1000)),
             calls: finite(state.calls) ? Math.max(0, Math.min(state.calls, 100000)) : 0,
             workers: finite(state.workers) ? Math.max(0, Math.min(state.workers, 1000)) : 0,
             frames: finite(state.frames) ? Math.max(0, Math.min(state.frames, 1000)) : 0,
             opened: finite(state.opened) ? Math.max(0, Math.min(state.opened, 1000)) : 0,
             offset: finite(state.offset) && state.offset > 0 ? state.offset : 0,
             next: finite(state.next) ? state.next : null,
             childNext: finite(state.childNext) ? state.childNext : null,
             animationFrames: finite(state.animationFrames) ? Math.floor(Math.max(0, Math.min(state.animationFrames, 1000000))) : 0,
             realTime: typeof state.realTime === 'string' ? kept(state.realTime, TEXT_KEPT) : null };
  // The page can send this event itself: its cause is capped like every string it controls.
  schedule(typeof state.cause === 'string' ? kept(state.cause, TEXT_KEPT) : null);
});
// The page's clock: its time now and its earliest due timer (virtual ms), and the jumps so far.
const virtualNow = () => now() + hooked.offset;
// `animationEnd`: when the first running finite animation of the document ends (virtual ms, as
// the last reading of pending work found it), or null: a jump stops there, so that its end event
// comes at its own time.
let animationEnd = null;
function clock() {
  return { now: virtualNow(), offset: hooked.offset, next: hooked.next, childNext: hooked.childNext,
           oneShot: hooked.timers.length ? hooked.timers[0] : null, animationFrames: hooked.animationFrames,
           animationEnd: animationEnd };
}
// Jumps the page's clock to `to` (virtual ms) if that is ahead; the hooks answer before the
// dispatch returns. Returns the clock after it, as JSON text. On the real clock nothing listens.
const dispatch = EventTarget.prototype.dispatchEvent;
const NativeCustomEvent = window.CustomEvent;
function advance(to, run) {
  if (typeof to === 'number' && isFinite(to) && to > virtualNow()) {
    dispatch.call(window, new NativeCustomEvent(CLOCK_EVENT, { detail: stringify(run === true ? { to: to, run: true } : { to: to }) }));
  }
  return stringify(clock());
}
// Moves the page's clock `ms` ahead (virtual clock; 0: not at all) and runs one animation frame
// there, at once; returns the reading after it (`measure(false)`), as JSON text.
function frame(ms) {
  const to = virtualNow() + (typeof ms === 'number' && isFinite(ms) && ms > 0 ? ms : 0);
  dispatch.call(window, new NativeCustomEvent(CLOCK_EVENT, { detail: stringify({ to: to, frame: true }) }));
  return measure(false);
}
// Asks the hooks for their state now, before a reading: what frames that are gone had
// outstanding is dropped there, which no other event of the page may prompt.
function refresh() {
  dispatch.call(window, new NativeCustomEvent(CLOCK_EVENT, { detail: '{}' }));
}
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
  let firstEnd = null;
  if (document.getAnimations) {
    for (const a of document.getAnimations()) {
      if (a.playState !== 'running') continue;
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      if (!timing || !isFinite(timing.endTime)) continue;
      animations++;
      const rate = a.playbackRate, at = a.currentTime;
      if (rate > 0 && typeof at === 'number' && isFinite(at)) {
        const left = Math.max(0, (timing.endTime - at) / rate);
        if (firstEnd === null || left < firstEnd) firstEnd = left;
      }
    }
  }
  animationEnd = firstEnd === null ? null : virtualNow() + firstEnd;
  const t = virtualNow();
  const due = [];
  for (const at of hooked.timers) due.push(Math.max(0, at - t) / 1000);
  return {
    // Parsed, and its load event held only by a frame a script opened and never closed: not
    // loading (the load event comes when that script closes it, if ever).
    document: document.readyState === 'loading' || (document.readyState === 'interactive' && hooked.opened === 0),
    images: images,
    fonts: fontsLoading(),
    requests: hooked.requests,
    calls: hooked.calls,
    workers: hooked.workers,
    realTime: hooked.realTime,
    frames: hooked.frames,
    timers: due,
    animations: animations,
  };
}
function pendingKey(p) {
  return [p.document, p.images, p.fonts, p.requests, p.calls, p.workers, p.realTime, p.frames, p.timers.length, p.animations].join();
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
  const message = { value: v, cause: cause, pending: p, innerHeight: window.innerHeight, clock: clock() };
  // The view's own documents (its initial empty one, the blank page between two pages) are
  // not the page: their late messages must not pass for the page's.
  const url = document.URL;
  if (url === 'about:blank' || url.startsWith('data:text/html,%3Ctitle%3Epageheight-blank-')) message.notThePage = true;
  post(stringify(message));
}
function schedule(cause) {
  if (cause && causes.length < 8 && causes.indexOf(cause) < 0) causes.push(cause);
  if (!scheduled) { scheduled = true; queue(report); }
}

// A reading, as JSON text: a string crosses to native code far cheaper than an object, which
// WebKit rebuilds there field by field, a cost on every reading. All metrics only
// when asked (`all`): lowest-element visits every element's box.
function measure(all) {
  refresh();
  const started = now();
  const result = { value: value(), pending: pending(), innerHeight: window.innerHeight, clock: clock() };
  if (all) {
    result.metrics = allMetrics();
    result.compatMode = document.compatMode;
    result.resourceErrors = resourceErrors;
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
    if (e.id) return tag + '#' + kept(String(e.id), TEXT_KEPT);
    const classes = (typeof e.className === 'string' ? e.className.slice(0, 4 * TEXT_KEPT) : '').trim().split(/\s+/)
      .filter(Boolean).slice(0, 2).map((c) => kept(c, TEXT_KEPT));
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
// The declaration that ties `element` to the view, as its style sheet says it (`min-height:
// 100vh`): its inline style first, then the rules that match it (the first 5000 rules, @media
// blocks included; sheets of other origins cannot be read). Null when none uses a view unit.
const VIEW_UNIT = /\d(\.\d+)?(s|d|l)?(vh|vmin|vmax)\b/;
const VIEW_PROPERTIES = ['height', 'min-height', 'max-height', 'flex-basis', 'padding-top', 'padding-bottom',
  'margin-top', 'margin-bottom', 'top', 'bottom', 'inset', 'block-size', 'min-block-size'];
function viewUnitDeclaration(element) {
  const inStyle = (style) => {
    for (const name of VIEW_PROPERTIES) {
      const value = style.getPropertyValue(name);
      if (value && VIEW_UNIT.test(value)) return name + ': ' + kept(value, TEXT_KEPT);
    }
    return null;
  };
  const own = element.style ? inStyle(element.style) : null;
  if (own) return own;
  let budget = 5000;
  const search = (rules) => {
    for (const rule of rules) {
      if (--budget < 0) return null;
      if (rule.cssRules && !rule.selectorText) {
        const inner = search(rule.cssRules);
        if (inner) return inner;
      } else if (rule.selectorText && rule.style) {
        let matches = false;
        try { matches = element.matches(rule.selectorText); } catch (e) { matches = false; }
        const found = matches ? inStyle(rule.style) : null;
        if (found) return found;
      }
    }
    return null;
  };
  for (const sheet of document.styleSheets) {
    let rules = null;
    try { rules = sheet.cssRules; } catch (e) { rules = null; }
    const found = rules ? search(rules) : null;
    if (found) return found;
  }
  return null;
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
    const share = Math.round(c.share * 100) + 'vh';
    const declared = viewUnitDeclaration(c.element);
    const text = selectorPath(c.element) + ': ' + share + (declared && declared !== 'height: ' + share ? ' (' + declared + ')' : '');
    counts.set(text, (counts.get(text) || 0) + 1);
  }
  return stringify([...counts].slice(0, 10).map(([text, n]) => n > 1 ? text + ' (' + n + ' elements)' : text));
}

// --- content beneath a fitted view --------------------------------------------------------
// Where the body is at least as tall as the view (quirks mode; `min-height: 100%`), content that
// shrinks after fit mode grew the view to it reads as tall as the view. contentBottom() tells
// where the content ends whatever the view: the lowest box of the body's elements (not those
// fixed to the viewport) and of the text directly in the body, plus the body's bottom padding,
// border and margin, in CSS px of the document; null past 50,000 elements.
function fixedToViewport(element) {
  for (let e = element; e && e !== document.body; e = e.parentElement) {
    if (getComputedStyle(e).position === 'fixed') return true;
  }
  return false;
}
function contentBottom() {
  const body = document.body;
  if (!body) return 'null';
  const all = body.getElementsByTagName('*');
  if (all.length > 50000) return 'null';
  const viewBottom = window.innerHeight - 1;
  let lowest = 0;
  for (let i = 0; i < all.length; i++) {
    const r = all[i].getBoundingClientRect();
    if (!(r.width || r.height) || r.bottom <= lowest) continue;
    if (r.bottom >= viewBottom && fixedToViewport(all[i])) continue;
    lowest = r.bottom;
  }
  const range = document.createRange();
  for (let node = body.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== Node.TEXT_NODE || !node.data.trim()) continue;
    range.selectNodeContents(node);
    lowest = Math.max(lowest, range.getBoundingClientRect().bottom);
  }
  const style = getComputedStyle(body);
  const below = (parseFloat(style.paddingBottom) || 0) + (parseFloat(style.borderBottomWidth) || 0)
    + (parseFloat(style.marginBottom) || 0);
  return stringify(lowest + window.scrollY + below);
}

// fontFamilies() names the font-family lists the page's text is set in (the computed value of
// each text's element: at most 32 lists, from at most 5000 texts) and the families its loaded web
// fonts give, so that the report can say which face stood in for each (`FontUse`).
function fontFamilies() {
  const lists = [];
  const body = document.body;
  if (body) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    for (let n = 0, node = walker.nextNode(); node && n < 5000 && lists.length < 32; n++, node = walker.nextNode()) {
      if (!node.data.trim() || !node.parentElement) continue;
      const family = getComputedStyle(node.parentElement).fontFamily;
      if (family && lists.indexOf(family) < 0) lists.push(family);
    }
  }
  const web = [];
  try {
    document.fonts.forEach((face) => {
      const family = face.family.replace(/^["']|["']$/g, '');
      if (face.status === 'loaded' && web.indexOf(family) < 0 && web.length < 32) web.push(family);
    });
  } catch (e) {}
  return stringify({ lists: lists, webFonts: web });
}

// --- steps (what the reader does after the first height) -------------------------------------
// clickTarget() finds where a tap on the first element a selector matches lands: its centre,
// scrolled into the viewport first when it is outside; and whether another element covers it
// there (the tap then goes to that one, as on the phone). clickSeen() tells whether a trusted
// click reached the document since clickTarget().
let clicks = 0;
window.addEventListener('click', (e) => { if (e.isTrusted) clicks++; }, true);
let clicksBefore = 0;
function clickTarget(selector) {
  let element;
  try { element = document.querySelector(selector); } catch (e) { return stringify({ error: 'not a valid CSS selector' }); }
  if (!element) return stringify({ error: 'no element matches the selector' });
  let box = element.getBoundingClientRect();
  if (box.width <= 0 || box.height <= 0) return stringify({ error: 'the element it matches has no box (hidden or empty): nothing to tap' });
  if (box.bottom <= 0 || box.top >= window.innerHeight || box.right <= 0 || box.left >= window.innerWidth) {
    element.scrollIntoView({ block: 'center', inline: 'center' });
    box = element.getBoundingClientRect();
  }
  const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
  const y = Math.min(Math.max(box.top + box.height / 2, 0), window.innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  clicksBefore = clicks;
  return stringify({ x: x, y: y, covered: hit && hit !== element && !element.contains(hit) ? selectorPath(hit) : null });
}
// renderingMark() asks for this world's next animation frame, which runs in the engine's next
// rendering update, after that update's resize, scroll and media-query steps; rendered(n) tells
// whether it has come since the mark n.
let renderings = 0;
function renderingMark() {
  const mark = renderings;
  if (nativeFrame) nativeFrame(() => { renderings++; }); else renderings++;
  return stringify(mark);
}
function scrollPage(y) {
  const root = document.scrollingElement || document.documentElement;
  window.scrollTo(0, y === 'bottom' ? (root ? root.scrollHeight : 0) : y);
  return stringify(window.scrollY);
}

Object.defineProperty(window, '__pageheight', {
  value: Object.freeze({ measure: measure, pending: pending, markView: markView, viewCulprits: viewCulprits,
                         contentBottom: contentBottom, fontFamilies: fontFamilies,
                         clock: () => stringify(clock()), advance: advance, frame: frame,
                         clickTarget: clickTarget, clickSeen: () => stringify(clicks > clicksBefore), scroll: scrollPage,
                         renderingMark: renderingMark, rendered: (mark) => stringify(renderings > mark),
                         dark: () => stringify(window.matchMedia('(prefers-color-scheme: dark)').matches) }),
  writable: false, configurable: false, enumerable: false,
});

// --- the engine's work right after the load event ----------------------------------------
// Once the load event has run, WebKit lays the page out (Document::implicitClose) before it
// tells native code that the load finished, a long pass on large pages. No event
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
// The URLs of elements whose resource failed (an image, a stylesheet, a script): also those the
// content filter stopped before any request was made, which the engine never reports.
const resourceErrors = [];
window.addEventListener('error', (e) => {
  const target = e.target;
  const url = target && target !== window ? (target.currentSrc || target.src || target.href) : null;
  const short = typeof url === 'string' ? kept(url, URL_KEPT) : null;
  if (short && resourceErrors.length < 50 && resourceErrors.indexOf(short) < 0) resourceErrors.push(short);
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
