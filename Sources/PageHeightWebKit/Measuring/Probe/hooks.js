// The hooks (see ProbeScript.swift): run at document start in the page's own world, in every
// frame, as the body of a function whose prologue defines STATE_EVENT, CLOCK_EVENT and
// VIRTUAL_CLOCK.
if (window.__pageheightHooks) return;
Object.defineProperty(window, '__pageheightHooks', { value: true, writable: false, configurable: false });
const stringify = JSON.stringify.bind(JSON);
const now = performance.now.bind(performance);
const microtask = window.queueMicrotask.bind(window);
const dispatch = EventTarget.prototype.dispatchEvent;
const NativeCustomEvent = window.CustomEvent;
const nativeSetTimeout = window.setTimeout.bind(window);
const nativeClearTimeout = window.clearTimeout.bind(window);
const nativePostMessage = window.postMessage;
const readyState = Object.getOwnPropertyDescriptor(Document.prototype, 'readyState').get;
const isChild = window.parent !== window;
// This frame's time origin (epoch ms): times cross between frames on the epoch's scale.
const origin = performance.timeOrigin;

// What is outstanding, told to the probe once per turn of the event loop.
const timers = new Map();          // id -> due (performance.now() ms, plus the clock's offset)
let runningTimerDelay = null;      // delay of the timer callback that is running now
let requests = 0;
let queued = false;
let causes = [];
// The virtual clock's jumps so far (ms), and its earliest due timer (virtual ms, or null).
let offset = 0;
let nextDue = () => null;
// --- frames --------------------------------------------------------------------------------
// Every frame's timers and requests are the page's. A child frame tells its parent what it and
// its own children have outstanding by a tagged `postMessage` (FRAME_STATE; due times on the
// epoch's scale, the frame's timeOrigin plus its due time, so that a frame started later says
// the same moment), which the parent's hooks take before any listener of the page sees it and
// add to its own; the top frame tells the probe the whole page's. A message reaches a frame of
// any origin, which no script of the top frame's worlds can. A frame that is gone (removed,
// or its document replaced: it tells an empty state on `pagehide`, and a new document tells its
// own at its start) drops out. `frames` counts the descendant frames whose document has not
// finished loading: the virtual clock must not jump over their start (not pending work for the
// settle rule: a frame that never finishes does not hold the verdict).
const FRAME_STATE = '__pageheightFrameState';
const children = new Map();        // a child's window -> its last state (epoch ms)
const finite = (x) => typeof x === 'number' && isFinite(x);
function state(cause) {
  const s = { timers: [...timers.values()], requests: requests, frames: 0, cause: cause };
  let next = VIRTUAL_CLOCK ? nextDue() : null;
  for (const [source, child] of children) {
    if (source.closed) { children.delete(source); continue; }
    for (const at of child.timers) s.timers.push(at - origin);
    s.requests += child.requests;
    s.frames += child.frames + (child.loading ? 1 : 0);
    if (child.next !== null && (next === null || child.next - origin < next)) next = child.next - origin;
  }
  if (VIRTUAL_CLOCK) { s.offset = offset; s.next = next; }
  return s;
}
function tellParent(s) {
  const epoch = (t) => t + origin;
  const message = { timers: s.timers.map(epoch), requests: s.requests, frames: s.frames,
                    loading: readyState.call(document) !== 'complete',
                    next: s.next === null || s.next === undefined ? null : epoch(s.next), cause: s.cause };
  try { nativePostMessage.call(window.parent, { [FRAME_STATE]: message }, '*'); } catch (e) {}
}
function tell(cause) {
  if (cause && causes.indexOf(cause) < 0) causes.push(cause);
  if (queued) return;
  queued = true;
  microtask(() => {
    queued = false;
    const s = state(causes[0] || null);
    causes = [];
    if (isChild) tellParent(s);
    else dispatch.call(window, new NativeCustomEvent(STATE_EVENT, { detail: stringify(s) }));
  });
}
window.addEventListener('message', (e) => {
  const data = e.data;
  if (!data || typeof data !== 'object' || !data[FRAME_STATE]) return;
  const source = e.source;
  // From a child of this frame (or one that was, telling it is gone).
  let mine = false;
  try { mine = !!source && source !== window && (children.has(source) || source.parent === window); } catch (error) {}
  if (!mine) return;
  e.stopImmediatePropagation();
  const m = data[FRAME_STATE];
  const count = (x) => finite(x) ? Math.max(0, Math.min(x, 1000)) : 0;
  children.set(source, { timers: Array.isArray(m.timers) ? m.timers.filter(finite).slice(0, 1000) : [],
                         requests: count(m.requests), frames: count(m.frames), loading: m.loading === true,
                         next: finite(m.next) ? m.next : null });
  tell(typeof m.cause === 'string' ? m.cause : null);
}, true);
if (isChild) {
  window.addEventListener('load', () => tell(null));
  window.addEventListener('pagehide', () => {
    try {
      nativePostMessage.call(window.parent, { [FRAME_STATE]: { timers: [], requests: 0, frames: 0, loading: false, next: null } }, '*');
    } catch (e) {}
  });
  tell(null);
} else if (!VIRTUAL_CLOCK) {
  // The probe asks for the state now (gone frames dropped) before it reads pending work.
  window.addEventListener(CLOCK_EVENT, (e) => {
    e.stopImmediatePropagation();
    dispatch.call(window, new NativeCustomEvent(STATE_EVENT, { detail: stringify(state(null)) }));
  }, true);
}

if (!VIRTUAL_CLOCK) {
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
} else {
  installVirtualClock();
}
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

// --- the virtual clock ---------------------------------------------------------------------
// The page's time is real time plus `offset`, the sum of the jumps the probe asked for: it never
// runs slower than real time, so a page that waits for `Date.now()` to pass a moment still ends.
// `Date.now()`, `new Date()`, `Date()`, `performance.now()` and the timestamps
// `requestAnimationFrame` callbacks receive all read it; `new Date(x)`, `Date.UTC`, `Date.parse`,
// `Date.prototype` and `instanceof Date` are the engine's own. `requestIdleCallback`, where the
// engine has it, is left alone: its callbacks read the clock through `performance.now()`, and its
// deadline is relative. Still real: `Event.timeStamp`, `document.timeline`, and workers' clocks
// (no user script runs in a worker).
//
// Timers (`setTimeout`, `setInterval`, their `clear*`, one id space) are kept here with a
// virtual due time; one native timer is armed for the earliest, and each due timer runs in a
// task of its own (so microtasks and rendering come between two of them, as in a browser), in
// due order, equal dues in creation order. As in the engine, a timer set from a timer nested more
// than five deep waits at least 4 ms.
//
// A jump: the probe dispatches CLOCK_EVENT on `window` with detail `{"to": virtual ms}` (DOM
// events reach every world). The listener, registered before any script of the page, moves the
// clock forward (never back), moves every running animation with a finite end forward by the
// same amount (CSS transitions and animations, Web Animations: seeking them gives the state
// they would have reached, so nothing waits for them in real time; infinite and reversed ones run
// on as they were), re-arms the native timer, and tells the probe the new state at once, before
// the probe's dispatch returns. Timers that became due run in the tasks that follow, each seeing
// the jumped time, as timers run late in a busy browser, never early; a driver that jumps to
// `next` one timer at a time has each see its own due time.
//
// Frames: the hooks run in every frame, and every frame's page time is the same: real time plus
// the one offset. A frame forwards each jump to its child frames by `postMessage` of its offset,
// tagged (`FRAME_TAG`), which a child's hooks take only from its parent, before any listener of
// the page sees it; a frame asks its parent for the offset when it starts. Both take a task: a
// child frame's scripts that run before that answer, or before a forwarded jump arrives, read a
// clock behind their parent's. A child's timers reach the probe through its parents (see
// "frames" above), so the driver jumps to them as to the top frame's; one that comes due runs
// once the forwarded jump has arrived, and the driver waits for that (the top frame's `next`
// stays due until the child told it ran).
//
// A page can dispatch CLOCK_EVENT, or post the tagged message to its own frames, itself: all it
// can do so is move its own clock forward, which it could as well do by waiting.
function installVirtualClock() {
  const FRAME_TAG = '__pageheightClockOffset';
  const FRAME_ASK = '__pageheightClockAsk';
  const NativeDate = window.Date;
  const nativeDateNow = NativeDate.now;
  const nativePerformanceNow = Performance.prototype.now;
  const nativeFrame = window.requestAnimationFrame;
  const virtualNow = () => now() + offset;
  const virtualEpoch = () => Math.floor(nativeDateNow.call(NativeDate) + offset);
  // Replacements are methods (`{ now() {...} }.now`), not function expressions: like the engine's
  // own, they have no `prototype` and cannot be called with `new`; their `length` is the engine's.
  const replace = (target, name, value) => {
    const d = Object.getOwnPropertyDescriptor(target, name) || { writable: true, enumerable: false, configurable: true };
    Object.defineProperty(target, name, { value: value, writable: d.writable !== false, enumerable: !!d.enumerable, configurable: true });
  };

  // --- Date and performance.now ---
  const VirtualDate = function Date(...args) {
    if (new.target === undefined) return new NativeDate(virtualEpoch()).toString();
    return Reflect.construct(NativeDate, args.length ? args : [virtualEpoch()], new.target);
  };
  for (const key of Reflect.ownKeys(NativeDate)) {
    if (key === 'prototype' || key === 'length' || key === 'name') continue;
    Object.defineProperty(VirtualDate, key, Object.getOwnPropertyDescriptor(NativeDate, key));
  }
  Object.defineProperty(VirtualDate, 'length', { value: NativeDate.length, configurable: true });
  Object.defineProperty(VirtualDate, 'prototype', { value: NativeDate.prototype, writable: false });
  replace(VirtualDate, 'now', { now() { return virtualEpoch(); } }.now);
  Object.defineProperty(NativeDate.prototype, 'constructor', { value: VirtualDate, writable: true, enumerable: false, configurable: true });
  replace(window, 'Date', VirtualDate);
  replace(Performance.prototype, 'now', { now() { return nativePerformanceNow.call(this) + offset; } }.now);
  if (nativeFrame) {
    replace(window, 'requestAnimationFrame', { requestAnimationFrame(callback) {
      if (typeof callback !== 'function') return nativeFrame.call(window, callback); // the engine's TypeError
      return nativeFrame.call(window, (t) => callback(t + offset));
    } }.requestAnimationFrame);
  }

  // --- timers ---
  const virtualTimers = new Map(); // id -> { id, due, order, handler, args, delay, repeat, nesting }
  let lastId = 0;
  let lastOrder = 0;
  let nesting = 0;                 // nesting level of the timer callback running now (0: none)
  let armed = null;                // { handle, due } of the native timer, or null
  let posted = false;              // a task is queued for a timer already due
  const channel = new MessageChannel();
  const postTask = channel.port2.postMessage.bind(channel.port2, null);
  channel.port1.onmessage = () => { posted = false; runDue(); };
  function earliest() {
    let first = null;
    for (const t of virtualTimers.values()) {
      if (!first || t.due < first.due || (t.due === first.due && t.order < first.order)) first = t;
    }
    return first;
  }
  nextDue = () => { const first = earliest(); return first ? first.due : null; };
  // While any timer is set, the native timer is armed or a task is posted: a new timer needs a
  // look only when it is due before the armed one.
  function arm(first = earliest()) {
    if (!first) return;
    const wait = first.due - virtualNow();
    if (wait <= 0) {
      if (!posted) { posted = true; postTask(); }
      return;
    }
    if (armed && armed.due <= first.due) return; // it fires first, and re-arms
    if (armed) nativeClearTimeout(armed.handle);
    armed = { handle: nativeSetTimeout(() => { armed = null; runDue(); }, Math.ceil(wait)), due: first.due };
  }
  function rearm() {
    if (armed) { nativeClearTimeout(armed.handle); armed = null; }
    arm();
  }
  function runDue() {
    const t = earliest();
    if (!t || t.due > virtualNow()) return arm();
    if (t.repeat === null) {
      virtualTimers.delete(t.id);
    } else {
      t.nesting++;
      t.due = virtualNow() + (t.nesting > 5 ? Math.max(t.repeat, 4) : t.repeat);
      t.order = ++lastOrder;
    }
    timers.delete(t.id);
    arm(); // the next due timer gets a task of its own, whatever this one does
    const outerNesting = nesting, outerDelay = runningTimerDelay;
    nesting = t.nesting;
    runningTimerDelay = t.repeat === null ? t.delay : null;
    try {
      if (typeof t.handler === 'function') t.handler.apply(window, t.args); else (0, eval)(String(t.handler));
    } finally {
      nesting = outerNesting;
      runningTimerDelay = outerDelay;
      tell('timer');
    }
  }
  function add(handler, delay, args, repeating) {
    const ms = Math.max(0, Number(delay) | 0); // the engine's conversion (WebIDL long): Infinity is 0
    const level = nesting + 1;
    const id = ++lastId;
    const t = { id: id, due: virtualNow() + (level > 5 ? Math.max(ms, 4) : ms), order: ++lastOrder, handler: handler,
                args: args, delay: ms, repeat: repeating ? ms : null, nesting: level };
    virtualTimers.set(id, t);
    // A timer that re-arms itself with the same delay is periodic, like setInterval: not pending.
    if (!repeating && !(runningTimerDelay !== null && runningTimerDelay === ms)) timers.set(id, t.due);
    if (!posted && !(armed && armed.due <= t.due)) arm(t);
    tell(null);
    return id;
  }
  function clear(id) {
    const key = Number(id);
    if (!virtualTimers.delete(key)) return;
    timers.delete(key);
    tell(null);
  }
  replace(window, 'setTimeout', { setTimeout(handler, ...rest) { return add(handler, rest[0], rest.slice(1), false); } }.setTimeout);
  replace(window, 'setInterval', { setInterval(handler, ...rest) { return add(handler, rest[0], rest.slice(1), true); } }.setInterval);
  replace(window, 'clearTimeout', { clearTimeout(id = 0) { clear(id); } }.clearTimeout);
  replace(window, 'clearInterval', { clearInterval(id = 0) { clear(id); } }.clearInterval);

  // --- jumps ---
  function advanceAnimations(delta) {
    if (!document.getAnimations) return;
    for (const a of document.getAnimations()) {
      try {
        if (a.playState !== 'running' || a.currentTime === null || !(a.playbackRate > 0)) continue;
        const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
        if (!timing || !isFinite(timing.endTime)) continue;
        a.currentTime = Math.min(Number(a.currentTime) + delta * a.playbackRate, timing.endTime);
      } catch (e) {}
    }
  }
  function forward() {
    for (let i = 0; i < window.frames.length; i++) {
      try { nativePostMessage.call(window.frames[i], { [FRAME_TAG]: offset }, '*'); } catch (e) {}
    }
  }
  function moveTo(newOffset) {
    const delta = newOffset - offset;
    if (!(delta > 0) || !isFinite(delta)) return false;
    offset = newOffset;
    advanceAnimations(delta);
    rearm();
    forward();
    return true;
  }
  window.addEventListener(CLOCK_EVENT, (e) => {
    e.stopImmediatePropagation();
    let request = null;
    try { request = JSON.parse(e.detail); } catch (error) {}
    if (request && typeof request.to === 'number' && isFinite(request.to)) moveTo(offset + (request.to - virtualNow()));
    // The probe reads the new state before its dispatch returns (without `to`: only that).
    dispatch.call(window, new NativeCustomEvent(STATE_EVENT, { detail: stringify(state(null)) }));
  }, true);
  window.addEventListener('message', (e) => {
    const data = e.data;
    if (!data || typeof data !== 'object') return;
    if (e.source === window.parent && e.source !== window && typeof data[FRAME_TAG] === 'number') {
      e.stopImmediatePropagation();
      moveTo(data[FRAME_TAG]);
    } else if (data[FRAME_ASK] === true && e.source && e.source !== window && e.source.parent === window) {
      e.stopImmediatePropagation();
      try { nativePostMessage.call(e.source, { [FRAME_TAG]: offset }, '*'); } catch (error) {}
    }
  }, true);
  if (window.parent !== window) {
    try { nativePostMessage.call(window.parent, { [FRAME_ASK]: true }, '*'); } catch (e) {}
  }
}
