// The hooks (see ProbeScript.swift): run at document start in the page's own world, in every
// frame, as the body of a function whose prologue defines STATE_EVENT, CLOCK_EVENT,
// VIRTUAL_CLOCK and DEVICE. They tell the probe what the page has outstanding (timers, requests,
// frames), and on the virtual clock they own the page's time: a reader app's rules take seconds
// of page time, which the virtual clock lets pass at the speed of layout instead of waiting for
// them (why and how: "the virtual clock", below).
//
// --- what the page can change ----------------------------------------------------------------
// The hooks share the page's world: every global, prototype and method they call after document
// start is the page's to replace (`document.getAnimations`, `Function.prototype.call`, a Map's
// iterator, `JSON.parse`). So every engine function they use later is captured here, before any
// script of the page runs, and called through the captured `Reflect.apply`; arrays are walked by
// index and Maps by their captured `forEach` (for...of and spreading go through iterators the page
// can replace); the state is written as JSON by hand (`JSON.stringify` reads a `toJSON` the page
// can add to `Object.prototype`). What runs the page's code (a timer's callback, an animation
// frame's) catches what it throws, and a jump is made of steps that each go on whatever the one
// before threw: the clock moves, timers are re-armed, frames are told.
//
// What the page can see of the hooks, as far as the engine allows: the replaced functions keep
// the engine's names, `length`s, property flags and `toString()` text (`Function.prototype.toString`
// is replaced too, and answers with the engine's text for them and for itself), and no global is
// added. Still visible: the event names and tagged `postMessage` names below to a page that
// dispatches or posts them itself, that a replaced function is not the one a fresh frame of another
// world has (`===` across frames), stack traces through the hooks, and the clock's own behaviour
// (time that jumps; `Event.timeStamp` and `document.timeline` stay real). A user script runs in the
// page's world or in a world of its own, and only the page's world sees the page's calls: the
// hooks cannot hide in another.
const apply = Reflect.apply;
const construct = Reflect.construct;
const defineProperty = Object.defineProperty;
const describe = Object.getOwnPropertyDescriptor;
const isArray = Array.isArray;
const isFiniteNumber = Number.isFinite;
const mathMax = Math.max, mathMin = Math.min, mathCeil = Math.ceil, mathFloor = Math.floor;
const parseJSON = JSON.parse;
const quote = JSON.stringify;       // only ever given a string (no toJSON is read for one)
const NativeMap = Map;
const mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapHas = Map.prototype.has;
const mapDelete = Map.prototype.delete, mapForEach = Map.prototype.forEach, mapClear = Map.prototype.clear;
const mapSize = describe(Map.prototype, 'size').get;
const NativeWeakMap = WeakMap;
const weakGet = WeakMap.prototype.get, weakSet = WeakMap.prototype.set, weakHas = WeakMap.prototype.has;
const nativeToString = Function.prototype.toString;
const nativeEval = window.eval;
const nativeString = String;
const NativeNumber = Number;
const performanceNow = Performance.prototype.now;
const now = () => apply(performanceNow, performance, []);
const microtask = window.queueMicrotask.bind(window);
const addListener = EventTarget.prototype.addEventListener;
const listen = (target, type, listener, options) => apply(addListener, target, [type, listener, options]);
const dispatchEvent = EventTarget.prototype.dispatchEvent;
const dispatch = (target, event) => apply(dispatchEvent, target, [event]);
const stopImmediate = Event.prototype.stopImmediatePropagation;
const stop = (event) => apply(stopImmediate, event, []);
const getter = (proto, name) => { const d = proto && describe(proto, name); return d && d.get ? d.get : null; };
const read = (get, target, name) => get ? apply(get, target, []) : target[name];
const eventDetail = getter(CustomEvent.prototype, 'detail');
const messageData = getter(MessageEvent.prototype, 'data');
const messageSource = getter(MessageEvent.prototype, 'source');
const NativeCustomEvent = window.CustomEvent;
const nativeSetTimeout = window.setTimeout.bind(window);
const nativeClearTimeout = window.clearTimeout.bind(window);
const nativePostMessage = window.postMessage;
const postTo = (target, message) => { try { apply(nativePostMessage, target, [message, '*']); } catch (e) {} };
const reportError = typeof window.reportError === 'function' ? window.reportError.bind(window)
  : (error) => nativeSetTimeout(() => { throw error; }, 0);
const readyState = describe(Document.prototype, 'readyState').get;
const windowLength = getter(window, 'length') || getter(Window.prototype, 'length');
const parentWindow = window.parent;
const isChild = parentWindow !== window;
// This frame's time origin (epoch ms): times cross between frames on the epoch's scale.
const origin = performance.timeOrigin;
const finite = (x) => typeof x === 'number' && isFiniteNumber(x);
const push = (list, x) => { list[list.length] = x; };
const mapValues = (map) => { const list = []; apply(mapForEach, map, [(v) => push(list, v)]); return list; };
const stringSlice = String.prototype.slice;
const stringSplit = String.prototype.split;
const arraySplice = Array.prototype.splice, arrayShift = Array.prototype.shift;
const arrayOf = (args, from) => { const list = []; for (let i = from; i < args.length; i++) push(list, args[i]); return list; };

// --- the engine's text for replaced functions -----------------------------------------------
// `Function.prototype.toString` answers with the engine's own text for every function the hooks
// put in the page's place (and for itself). Its one extra: asked with `INSTALLED` as argument
// about one of the hooks' functions, it says so, which is how a second run of the hooks on a
// window that already has them (a frame's initial document replaced by its first one keeps the
// window) finds them; the page cannot read that text (no source of the hooks is visible to it).
const INSTALLED = '__pageheightHooks-5d1c2a4e9b7f4e08a3c6';
const nativeText = new NativeWeakMap();
{
  let present = false;
  try { present = apply(nativeToString, window.setTimeout, [INSTALLED]) === INSTALLED; } catch (e) {}
  if (present) return;
}
function disguise(replacement, original) {
  let text;
  try { text = apply(nativeToString, original, []); } catch (e) { return replacement; }
  apply(weakSet, nativeText, [replacement, text]);
  return replacement;
}
// Makes `replacement` stand in for the engine's constructor `native`: the same own keys (but
// its name, length and prototype), the same length, the same prototype object, whose
// `constructor` then names the replacement, and the same parent (`EventTarget` for `Worker`).
function standIn(replacement, native) {
  const keys = Reflect.ownKeys(native);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === 'prototype' || key === 'length' || key === 'name') continue;
    defineProperty(replacement, key, describe(native, key));
  }
  defineProperty(replacement, 'length', { value: native.length, configurable: true });
  defineProperty(replacement, 'prototype', { value: native.prototype, writable: false });
  Object.setPrototypeOf(replacement, Object.getPrototypeOf(native));
  defineProperty(native.prototype, 'constructor', { value: replacement, writable: true, enumerable: false, configurable: true });
}
{
  const toString = { toString() {
    if (apply(weakHas, nativeText, [this])) {
      return arguments[0] === INSTALLED ? INSTALLED : apply(weakGet, nativeText, [this]);
    }
    return apply(nativeToString, this, []);
  } }.toString;
  replace(Function.prototype, 'toString', disguise(toString, nativeToString));
}
// Puts `value` in `target[name]` with the flags the engine's own property had.
function replace(target, name, value) {
  const d = describe(target, name) || { writable: true, enumerable: false, configurable: true };
  defineProperty(target, name, { value: value, writable: d.writable !== false, enumerable: !!d.enumerable, configurable: true });
}

// A binary min-heap in an array, ordered by `before(a, b)`: timers in their due order at a cost
// that grows with the log of their number (a page may set a hundred thousand).
function heapPush(heap, entry, before) {
  let i = heap.length;
  heap[i] = entry;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i], heap[parent])) break;
    const x = heap[i]; heap[i] = heap[parent]; heap[parent] = x;
    i = parent;
  }
}
function heapPop(heap, before) {
  const top = heap[0], last = heap[heap.length - 1];
  heap.length = heap.length - 1;
  if (heap.length) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1, right = left + 1;
      let least = i;
      if (left < heap.length && before(heap[left], heap[least])) least = left;
      if (right < heap.length && before(heap[right], heap[least])) least = right;
      if (least === i) break;
      const x = heap[i]; heap[i] = heap[least]; heap[least] = x;
      i = least;
    }
  }
  return top;
}

// What is outstanding, told to the probe once per turn of the event loop.
const timers = new NativeMap();    // id -> due (performance.now() ms, plus the clock's offset)
// The pending timers' dues in order, `{id, due}`; an entry whose timer is gone or due at
// another time is dropped when it comes to the top.
const pendingDues = [];
const dueFirst = (a, b) => a.due < b.due;
function pend(id, due) {
  apply(mapSet, timers, [id, due]);
  heapPush(pendingDues, { id: id, due: due }, dueFirst);
}
const liveDue = (entry) => apply(mapGet, timers, [entry.id]) === entry.due;
// The earliest `limit` pending dues: the state tells no more (the probe keeps as many), and
// looking costs the log of their number, not their number.
const TIMERS_TOLD = 64;
function earliestPending(limit) {
  while (pendingDues.length && !liveDue(pendingDues[0])) heapPop(pendingDues, dueFirst);
  const found = [];
  if (!pendingDues.length) return found;
  const seen = [0];                // heap indexes to look at, best first
  const atFirst = (a, b) => pendingDues[a].due < pendingDues[b].due;
  while (seen.length && found.length < limit) {
    const i = heapPop(seen, atFirst);
    if (liveDue(pendingDues[i])) push(found, pendingDues[i].due);
    if (2 * i + 1 < pendingDues.length) heapPush(seen, 2 * i + 1, atFirst);
    if (2 * i + 2 < pendingDues.length) heapPush(seen, 2 * i + 2, atFirst);
  }
  return found;
}
let runningTimerDelay = null;      // delay of the timer callback that is running now
let requests = 0;
let workers = 0;                   // dedicated workers started and not ended (see "workers")
let queued = false;
let causes = [];
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
// settle rule: a frame that never finishes does not hold the verdict). A document a script opened
// (`document.open()`, or a `write` to a finished document) and has not closed is not loading: it
// waits for nothing but that script (what it writes that loads is a request like any other).
// `opened` counts those: the load event of every document above them waits for their close, so a
// top document that is interactive with one of them below is not loading either (the probe).
const FRAME_STATE = '__pageheightFrameState';
const children = new NativeMap();  // a child's window -> its last state (epoch ms)
function state(cause) {
  const s = { timers: earliestPending(TIMERS_TOLD), requests: requests, calls: callsUnderWay, workers: workers, frames: 0, opened: 0, cause: cause,
              realTime: heldBy() };
  let next = VIRTUAL_CLOCK ? nextDue() : null;
  let childNext = null;
  const gone = [];
  apply(mapForEach, children, [(child, source) => {
    let closed = true;
    try { closed = source.closed; } catch (e) {}
    if (closed) { push(gone, source); return; }
    for (let i = 0; i < child.timers.length; i++) push(s.timers, child.timers[i] - origin);
    s.requests += child.requests;
    s.calls += child.calls;
    s.workers += child.workers;
    if (s.realTime === null && child.realTime !== null) s.realTime = child.realTime;
    s.frames += child.frames + (child.loading ? 1 : 0);
    s.opened += child.opened;
    if (child.next !== null && (next === null || child.next - origin < next)) next = child.next - origin;
    if (child.next !== null && (childNext === null || child.next - origin < childNext)) childNext = child.next - origin;
  }]);
  for (let i = 0; i < gone.length; i++) apply(mapDelete, children, [gone[i]]);
  if (VIRTUAL_CLOCK) { s.offset = clock.offset; s.next = next; s.childNext = childNext; s.animationFrames = framesWaiting(); }
  return s;
}
// The state as JSON text, written by hand: numbers and one string.
function encode(s) {
  const number = (x) => finite(x) ? '' + x : 'null';
  let timerList = '';
  for (let i = 0; i < s.timers.length; i++) timerList += (i ? ',' : '') + number(s.timers[i]);
  let text = '{"timers":[' + timerList + '],"requests":' + number(s.requests) + ',"calls":' + number(s.calls)
    + ',"workers":' + number(s.workers)
    + ',"frames":' + number(s.frames)
    + ',"opened":' + number(s.opened)
    + ',"cause":' + (typeof s.cause === 'string' ? quote(s.cause) : 'null')
    + ',"realTime":' + (typeof s.realTime === 'string' ? quote(s.realTime) : 'null');
  if (VIRTUAL_CLOCK) {
    text += ',"offset":' + number(s.offset) + ',"next":' + number(s.next) + ',"childNext":' + number(s.childNext)
      + ',"animationFrames":' + number(s.animationFrames);
  }
  return text + '}';
}
function tellProbe(s) {
  try { dispatch(window, new NativeCustomEvent(STATE_EVENT, { detail: encode(s) })); } catch (e) {}
}
function tellParent(s) {
  const epoch = [];
  for (let i = 0; i < s.timers.length; i++) push(epoch, s.timers[i] + origin);
  let loading = false;
  try { loading = apply(readyState, document, []) !== 'complete'; } catch (e) {}
  const opened = loading && scriptOpened ? 1 : 0;
  const message = { timers: epoch, requests: s.requests, calls: s.calls, workers: s.workers, frames: s.frames, opened: s.opened + opened, loading: loading && !opened,
                    next: s.next === null || s.next === undefined ? null : s.next + origin, cause: s.cause, realTime: s.realTime };
  postTo(parentWindow, { [FRAME_STATE]: message });
}
function tell(cause) {
  if (typeof cause === 'string') {
    let known = false;
    for (let i = 0; i < causes.length; i++) if (causes[i] === cause) known = true;
    if (!known) push(causes, cause);
  }
  if (queued) return;
  queued = true;
  microtask(() => {
    queued = false;
    const s = state(causes.length ? causes[0] : null);
    causes = [];
    if (isChild) tellParent(s); else tellProbe(s);
  });
}
listen(window, 'message', (e) => {
  let data, source;
  try { data = read(messageData, e, 'data'); source = read(messageSource, e, 'source'); } catch (error) { return; }
  if (!data || typeof data !== 'object' || !data[FRAME_STATE]) return;
  // From a child of this frame (or one that was, telling it is gone).
  let mine = false;
  try { mine = !!source && source !== window && (apply(mapHas, children, [source]) || source.parent === window); } catch (error) {}
  if (!mine) return;
  stop(e);
  const m = data[FRAME_STATE];
  const count = (x) => finite(x) ? mathMax(0, mathMin(x, 1000)) : 0;
  const due = [];
  if (isArray(m.timers)) for (let i = 0; i < m.timers.length && due.length < 1000; i++) if (finite(m.timers[i])) push(due, m.timers[i]);
  apply(mapSet, children, [source, { timers: due, requests: count(m.requests), calls: count(m.calls), workers: count(m.workers), frames: count(m.frames),
                                     opened: count(m.opened),
                                     realTime: typeof m.realTime === 'string' ? apply(stringSlice, m.realTime, [0, 200]) : null,
                                     loading: m.loading === true,
                                     next: finite(m.next) ? m.next : null }]);
  tell(typeof m.cause === 'string' ? m.cause : null);
}, true);
// Whether a script opened this frame's document (see "frames"): `open`, or a `write` or `writeln`
// to a finished document, which opens it. Told at once: the parent stops counting it as loading.
let scriptOpened = false;
{
  const proto = Document.prototype;
  const markOpen = (target, implicit) => {
    if (target !== document) return;
    let state = 'complete';
    try { state = apply(readyState, document, []); } catch (e) {}
    if (!implicit || state === 'complete') { scriptOpened = true; microtask(() => tell(null)); }
  };
  const nativeOpen = proto.open, nativeWrite = proto.write, nativeWriteln = proto.writeln;
  if (typeof nativeOpen === 'function') {
    replace(proto, 'open', disguise({ open() { markOpen(this, false); return apply(nativeOpen, this, arguments); } }.open, nativeOpen));
  }
  if (typeof nativeWrite === 'function') {
    replace(proto, 'write', disguise({ write(...text) { markOpen(this, true); return apply(nativeWrite, this, text); } }.write, nativeWrite));
  }
  if (typeof nativeWriteln === 'function') {
    replace(proto, 'writeln', disguise({ writeln(...text) { markOpen(this, true); return apply(nativeWriteln, this, text); } }.writeln,
                                       nativeWriteln));
  }
}
if (isChild) {
  listen(window, 'load', () => tell(null));
  listen(window, 'pagehide', () => {
    postTo(parentWindow, { [FRAME_STATE]: { timers: [], requests: 0, workers: 0, frames: 0, opened: 0, loading: false, next: null,
                                            realTime: null } });
  });
  tell(null);
} else if (!VIRTUAL_CLOCK) {
  // The probe asks for the state now (gone frames dropped) before it reads pending work.
  listen(window, CLOCK_EVENT, (e) => {
    stop(e);
    tellProbe(state(null));
  }, true);
}

// --- the virtual clock ---------------------------------------------------------------------
// Why it exists: the rules measure a page on a reader app's schedule, over seconds of page time
// (polls up to 5.3 s after the load, a page's timers that change it at 10 s, a quiet window after
// the last change). Waited for in real time, every page would take as long as its slowest timer.
// On the virtual clock nothing waits for idle time: whenever the page is idle, the driver jumps
// its clock to its next timer or to the rules' next step, so the same rules run on the page's own
// time, at the speed of layout, and the page cannot tell.
//
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
// Animation frames (`requestAnimationFrame`, `cancelAnimationFrame`, their `webkit` names) are
// kept here too, in request order. A frame runs every callback requested before it, with the
// frame's time (virtual ms), each on its own (what one throws is reported and the next runs). The
// engine's frames run them in real time; and the driver can step the clock frame by frame (a
// jump with `frame`: the clock moves, then a frame runs at once, in the jump's dispatch), as
// Chromium's virtual time with frame control does. While the driver steps, the engine's own
// frames hold the callbacks (`FRAME_HOLD` ms of real time after each step), so a frame-counted
// animation gets one frame per step, and none between.
//
// A jump: the probe dispatches CLOCK_EVENT on `window` with detail `{"to": virtual ms}` (DOM
// events reach every world), and `"frame": true` for a frame after it. The listener, registered
// before any script of the page, moves the clock forward (never back), moves every running
// animation by the same amount times its rate (CSS transitions and animations, Web Animations,
// infinite ones too: seeking them gives the state they would have reached, so nothing waits for
// them in real time, and an infinite one that changes the height reads at a poll as it would in
// real time; forward to its end at most, backward to its start), re-arms the native timer, runs the
// frame, and tells the probe the new state at once, before the probe's dispatch returns. Timers
// that became due run in the tasks that follow, each seeing the jumped time, as timers run late in
// a busy browser, never early; a driver that jumps to `next` one timer at a time has each see its
// own due time. A jump with `"run": true` (a run) does that here, without a round trip per timer:
// the clock goes to the earliest due timer, the timer runs in its task, the clock goes to the
// next one due by `to`, and so on, then to `to`; while it goes on `next` is due (not after `now`),
// and the probe hears of it when it ends and when a tick sets or clears a one-shot timer, not
// after every periodic tick.
// The driver runs so only over this frame's periodic timers (a child frame's timers and a pending
// one-shot timer each get a jump of their own).
//
// Frames: the hooks run in every frame, and every frame's page time is the same: real time plus
// the one offset. A frame forwards each jump to its child frames by `postMessage` of its offset,
// tagged (`FRAME_TAG`), which a child's hooks take only from its parent, before any listener of
// the page sees it; a frame asks its parent for the offset when it starts. Both take a task: a
// child frame's scripts that run before that answer, or before a forwarded jump arrives, read a
// clock behind their parent's. A child's timers reach the probe through its parents (see
// "frames" above), so the driver jumps to them as to the top frame's; one that comes due runs
// once the forwarded jump has arrived, and the driver waits for that (the top frame's `next`
// stays due until the child told it ran). A child frame's animation frames are the engine's.
//
// A page can dispatch CLOCK_EVENT, or post the tagged message to its own frames, itself: all it
// can do so is move its own clock forward, which it could as well do by waiting, or run its own
// animation frames early.
//
// In code: `clock` below is the clock's whole state; `installVirtualClock` puts its parts in the
// page's place in order: Date and performance.now (`installVirtualDate`), animation frames
// (`installAnimationFrames`), timers (`installTimers`), then the jumps (`listenForJumps`), which
// move the clock (`moveTo`), seek the animations (`advanceAnimations`) and forward the offset to
// the child frames (`forwardToFrames`). The real clock's hooks read `clock.offset` (0 there).
const FRAME_TAG = '__pageheightClockOffset';
const FRAME_ASK = '__pageheightClockAsk';
// Long enough that a busy machine's round trip between two of the driver's steps does not let
// an engine frame in (a frame-counted animation would then count one more, differently each run).
const FRAME_HOLD = 500;
// A task for a timer already due: a message this window posts to itself, taken before any
// listener of the page sees it (the clock's message listener, `listenForJumps`). Not a
// MessageChannel's: WebKit carries those through the UI process, a round trip per timer that a
// loop of 4 ms ticks pays on every one.
const TASK_TAG = '__pageheightTimerTask';
const clock = {
  offset: 0,                       // the jumps so far (ms): the page's time is real time plus this
  // Animation frames.
  frames: new NativeMap(),         // id -> callback, in request order
  lastFrameId: 0,
  engineFrameRequested: false,     // a frame of the engine's is requested
  steppedAt: -Infinity,            // real ms of the driver's last frame step
  // Timers.
  timers: new NativeMap(),         // id -> { id, due, order, handler, args, delay, repeat, nesting }
  // The timers in due order (equal dues in creation order), `{t, due, order}`: an entry whose
  // timer was cleared, or re-armed since (a periodic one), is dropped when it comes to the top.
  queue: [],
  lastId: 0,
  lastOrder: 0,
  nesting: 0,                      // nesting level of the timer callback running now (0: none)
  armed: null,                     // { handle, due } of the native timer, or null
  posted: false,                   // a task is queued for a timer already due
  runUntil: null,                  // virtual ms, while a run goes on (`startRun`)
  // Animations: each outermost <svg>'s own clock (SMIL), a live list made when the clock is installed.
  svgRoots: [],
};
const virtualNow = () => now() + clock.offset;
const nativeFrame = window.requestAnimationFrame;
const nativeCancelFrame = window.cancelAnimationFrame;
const getAnimations = Document.prototype.getAnimations;
const animationProto = window.Animation ? Animation.prototype : null;
const animationPlayState = getter(animationProto, 'playState');
const animationRate = getter(animationProto, 'playbackRate');
const animationEffect = getter(animationProto, 'effect');
const animationTime = animationProto ? describe(animationProto, 'currentTime') : null;
const computedTiming = window.AnimationEffect ? AnimationEffect.prototype.getComputedTiming : null;
const svgProto = window.SVGSVGElement ? SVGSVGElement.prototype : null;
const svgTime = svgProto && svgProto.getCurrentTime, svgSetTime = svgProto && svgProto.setCurrentTime;
const svgPaused = svgProto && svgProto.animationsPaused, svgOwner = svgProto ? getter(SVGElement.prototype, 'ownerSVGElement') : null;

function installVirtualClock() {
  installVirtualDate();
  installAnimationFrames();
  installTimers();
  clock.svgRoots = (() => { try { return apply(Document.prototype.getElementsByTagNameNS, document, ['http://www.w3.org/2000/svg', 'svg']); } catch (e) { return []; } })();
  listenForJumps();
  if (isChild) postTo(parentWindow, { [FRAME_ASK]: true });
}

// --- Date and performance.now ---
// Replacements are methods (`{ now() {...} }.now`), not function expressions: like the engine's
// own, they have no `prototype` and cannot be called with `new`; their `length` is the engine's.
function installVirtualDate() {
  const NativeDate = window.Date;
  const nativeDateNow = NativeDate.now;
  const dateText = NativeDate.prototype.toString;
  const nativePerformanceNow = Performance.prototype.now;
  // The date is read off the same clock as the timers: the wall clock's reading against this
  // frame's monotonic clock, taken once, then the monotonic clock. Read off the wall clock each
  // time, a date taken before a timer and one taken in it could be less apart than the timer's
  // delay (the two clocks drift apart, each is rounded its own way), and a page that checks how
  // long its timer took decided differently from run to run.
  const dateOrigin = apply(nativeDateNow, NativeDate, []) - now();
  const virtualEpoch = () => mathFloor(dateOrigin + virtualNow());
  const VirtualDate = function Date() {
    if (new.target === undefined) return apply(dateText, construct(NativeDate, [virtualEpoch()]), []);
    return construct(NativeDate, arguments.length ? arrayOf(arguments, 0) : [virtualEpoch()], new.target);
  };
  standIn(VirtualDate, NativeDate);
  replace(VirtualDate, 'now', disguise({ now() { return virtualEpoch(); } }.now, nativeDateNow));
  replace(window, 'Date', disguise(VirtualDate, NativeDate));
  replace(Performance.prototype, 'now', disguise({ now() { return apply(nativePerformanceNow, this, []) + clock.offset; } }.now,
                                                 nativePerformanceNow));
}

// --- animation frames ---
function framesWaiting() { return apply(mapSize, clock.frames, []); }
function runFrame(time) {
  const callbacks = mapValues(clock.frames);
  apply(mapClear, clock.frames, []);
  for (let i = 0; i < callbacks.length; i++) {
    try { apply(callbacks[i], window, [time]); } catch (error) { try { reportError(error); } catch (e) {} }
  }
}
function engineFrame(t) {
  clock.engineFrameRequested = false;
  if (!framesWaiting()) { childFrames(); return; }
  if (now() - clock.steppedAt < FRAME_HOLD) return requestEngineFrame();
  runFrame(t + clock.offset);
  childFrames();
}
// A child frame's animation frames are the engine's, on the real clock (the probe steps the top
// frame's only): while a child frame has callbacks waiting for a frame, the whole page's clock
// is real (a loop that counts frames in an embed ends at its real time, as in a browser).
let childFramesHeld = false;
function childFrames() {
  if (!isChild || !VIRTUAL_CLOCK) return;
  const waiting = framesWaiting() > 0;
  if (waiting === childFramesHeld) return;
  childFramesHeld = waiting;
  hold('animation frames in a child frame (their time is real)', waiting ? 1 : -1);
}
function requestEngineFrame() {
  if (clock.engineFrameRequested || !nativeFrame) return;
  clock.engineFrameRequested = true;
  try { apply(nativeFrame, window, [engineFrame]); } catch (e) { clock.engineFrameRequested = false; }
}
function installAnimationFrames() {
  if (!nativeFrame) return;
  // One function per name (each has its own name and text), as the engine's.
  const request = (callback) => {
    if (typeof callback !== 'function') return apply(nativeFrame, window, [callback]); // the engine's TypeError
    const id = ++clock.lastFrameId;
    apply(mapSet, clock.frames, [id, callback]);
    requestEngineFrame();
    childFrames();
    return id;
  };
  const cancel = (id) => { apply(mapDelete, clock.frames, [NativeNumber(id)]); childFrames(); };
  replace(window, 'requestAnimationFrame',
          disguise({ requestAnimationFrame(callback) { return request(callback); } }.requestAnimationFrame, nativeFrame));
  if (nativeCancelFrame) {
    replace(window, 'cancelAnimationFrame',
            disguise({ cancelAnimationFrame(id) { cancel(id); } }.cancelAnimationFrame, nativeCancelFrame));
  }
  if (typeof window.webkitRequestAnimationFrame === 'function') {
    replace(window, 'webkitRequestAnimationFrame', disguise({ webkitRequestAnimationFrame(callback) { return request(callback); } }
      .webkitRequestAnimationFrame, window.webkitRequestAnimationFrame));
  }
  if (typeof window.webkitCancelAnimationFrame === 'function') {
    replace(window, 'webkitCancelAnimationFrame', disguise({ webkitCancelAnimationFrame(id) { cancel(id); } }
      .webkitCancelAnimationFrame, window.webkitCancelAnimationFrame));
  }
}

// --- timers ---
const postTask = () => postTo(window, { [TASK_TAG]: true });
const runsFirst = (a, b) => a.due < b.due || (a.due === b.due && a.order < b.order);
function enqueue(t) { heapPush(clock.queue, { t: t, due: t.due, order: t.order }, runsFirst); }
function earliest() {
  while (clock.queue.length) {
    const top = clock.queue[0];
    if (apply(mapGet, clock.timers, [top.t.id]) === top.t && top.due === top.t.due && top.order === top.t.order) return top.t;
    heapPop(clock.queue, runsFirst);
  }
  return null;
}
// The earliest due timer (virtual ms), or null.
function nextDue() { const first = earliest(); return first ? first.due : null; }
// While any timer is set, the native timer is armed or a task is posted: a new timer needs a
// look only when it is due before the armed one.
function arm(first = earliest()) {
  if (!first) return;
  const wait = first.due - virtualNow();
  if (wait <= 0) {
    if (!clock.posted) { clock.posted = true; postTask(); }
    return;
  }
  if (clock.armed && clock.armed.due <= first.due) return; // it fires first, and re-arms
  if (clock.armed) nativeClearTimeout(clock.armed.handle);
  clock.armed = { handle: nativeSetTimeout(() => { clock.armed = null; runDue(); }, mathCeil(wait)), due: first.due };
}
function rearm() {
  if (clock.armed) { nativeClearTimeout(clock.armed.handle); clock.armed = null; }
  arm();
}
function runDue() {
  const t = earliest();
  if (!t || t.due > virtualNow()) {
    if (clock.runUntil !== null) {
      continueRun();
      if (clock.runUntil === null) tell(null); // the run ended here: the probe learns its state
    }
    return arm();
  }
  if (t.repeat === null) {
    apply(mapDelete, clock.timers, [t.id]);
  } else {
    t.nesting++;
    t.due = virtualNow() + (t.nesting > 5 ? mathMax(t.repeat, 4) : t.repeat);
    t.order = ++clock.lastOrder;
    enqueue(t);
  }
  const oneShot = apply(mapDelete, timers, [t.id]);
  arm(); // the next due timer gets a task of its own, whatever this one does
  const outerNesting = clock.nesting, outerDelay = runningTimerDelay;
  clock.nesting = t.nesting;
  runningTimerDelay = t.repeat === null ? t.delay : null;
  try {
    runHandler(t.handler, t.args);
  } finally {
    clock.nesting = outerNesting;
    runningTimerDelay = outerDelay;
    if (clock.runUntil !== null) continueRun();
    // In a run the probe learns the state at its end: a periodic tick in the middle changes no
    // pending work (a one-shot timer it sets or clears tells).
    if (clock.runUntil === null || oneShot) tell('timer');
  }
}
// A run (a jump with `run`): the clock goes to each timer due by `clock.runUntil` in turn, each
// running in its own task at its own due time, then to `clock.runUntil`.
function startRun(to) {
  const first = earliest();
  if (first && first.due <= to) {
    clock.runUntil = to;
    if (!moveTo(clock.offset + (first.due - virtualNow()))) arm();
  } else {
    moveTo(clock.offset + (to - virtualNow()));
  }
}
function continueRun() {
  const first = earliest();
  if (first && first.due <= clock.runUntil) {
    if (first.due > virtualNow()) moveTo(clock.offset + (first.due - virtualNow()));
    return;
  }
  const to = clock.runUntil;
  clock.runUntil = null;
  if (to > virtualNow()) moveTo(clock.offset + (to - virtualNow()));
}
// `pending` false: a timer the settle rule does not wait for (an `AbortSignal.timeout`'s).
function addTimer(handler, delay, args, repeating, pending = true) {
  const ms = mathMax(0, NativeNumber(delay) | 0); // the engine's conversion (WebIDL long): Infinity is 0
  const level = clock.nesting + 1;
  const id = ++clock.lastId;
  const t = { id: id, due: virtualNow() + (level > 5 ? mathMax(ms, 4) : ms), order: ++clock.lastOrder, handler: handler,
              args: args, delay: ms, repeat: repeating ? ms : null, nesting: level };
  apply(mapSet, clock.timers, [id, t]);
  enqueue(t);
  // A timer that re-arms itself with the same delay is periodic, like setInterval: not pending.
  const oneShot = pending && !repeating && !(runningTimerDelay !== null && runningTimerDelay === ms);
  if (oneShot) pend(id, t.due);
  if (!clock.posted && !(clock.armed && clock.armed.due <= t.due)) arm(t);
  if (clock.runUntil === null || oneShot) tell(null);
  return id;
}
function clearTimer(id) {
  const key = NativeNumber(id);
  if (!apply(mapDelete, clock.timers, [key])) return;
  apply(mapDelete, timers, [key]);
  tell(null);
}
function installTimers() {
  replace(window, 'setTimeout', disguise({ setTimeout(handler) { return addTimer(handler, arguments[1], arrayOf(arguments, 2), false); } }.setTimeout,
                                         window.setTimeout));
  replace(window, 'setInterval', disguise({ setInterval(handler) { return addTimer(handler, arguments[1], arrayOf(arguments, 2), true); } }.setInterval,
                                          window.setInterval));
  replace(window, 'clearTimeout', disguise({ clearTimeout(id = 0) { clearTimer(id); } }.clearTimeout, window.clearTimeout));
  replace(window, 'clearInterval', disguise({ clearInterval(id = 0) { clearTimer(id); } }.clearInterval, window.clearInterval));
  // `AbortSignal.timeout(ms)`: a signal that one of these timers aborts, so that the clock moves
  // it as it moves `setTimeout` (the engine's runs on the real clock). Bad input gets the
  // engine's own error: the native function checks it first (its own signal is left to lapse).
  if (window.AbortSignal && typeof AbortSignal.timeout === 'function' && typeof window.AbortController === 'function') {
    const nativeTimeout = AbortSignal.timeout;
    const NativeController = window.AbortController;
    const abort = AbortController.prototype.abort;
    const signalOf = getter(AbortController.prototype, 'signal');
    const NativeDOMException = window.DOMException;
    replace(AbortSignal, 'timeout', disguise({ timeout(ms) {
      apply(nativeTimeout, AbortSignal, [ms]);
      const controller = construct(NativeController, []);
      addTimer(() => apply(abort, controller, [construct(NativeDOMException, ['The operation timed out.', 'TimeoutError'])]),
               ms, [], false, false);
      return read(signalOf, controller, 'signal');
    } }.timeout, nativeTimeout));
  }
}

// --- animations ---
// SVG animations (SMIL) run on each outermost <svg>'s own clock: moved with the page's.
function advanceSVG(delta) {
  if (!svgSetTime) return;
  const roots = clock.svgRoots;
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i];
    try {
      if (read(svgOwner, root, 'ownerSVGElement') || apply(svgPaused, root, [])) continue;
      apply(svgSetTime, root, [apply(svgTime, root, []) + delta / 1000]);
    } catch (e) {}
  }
}
function advanceAnimations(delta) {
  try { advanceSVG(delta); } catch (e) {}
  if (!getAnimations) return;
  const list = apply(getAnimations, document, []);
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    try {
      const rate = read(animationRate, a, 'playbackRate');
      if (read(animationPlayState, a, 'playState') !== 'running' || !(rate > 0 || rate < 0)) continue;
      const at = animationTime ? apply(animationTime.get, a, []) : a.currentTime;
      const e = read(animationEffect, a, 'effect');
      if (at === null || !e || !computedTiming) continue;
      const end = apply(computedTiming, e, []).endTime;
      // Forward to its end at most (none for an infinite one), backward to its start.
      const moved = NativeNumber(at) + delta * rate;
      const to = rate > 0 ? (isFiniteNumber(end) ? mathMin(moved, end) : moved) : mathMax(moved, 0);
      if (animationTime) apply(animationTime.set, a, [to]); else a.currentTime = to;
    } catch (e) {}
  }
}

// --- frame forwarding ---
function forwardToFrames() {
  const count = read(windowLength, window, 'length');
  for (let i = 0; i < count; i++) {
    try { postTo(window[i], { [FRAME_TAG]: clock.offset }); } catch (e) {}
  }
}

// --- jumps ---
// Each step goes on whatever the one before threw: the clock has moved, so the timers must be
// re-armed and the child frames told.
function moveTo(newOffset) {
  const delta = newOffset - clock.offset;
  if (!(delta > 0) || !isFiniteNumber(delta)) return false;
  clock.offset = newOffset;
  try { advanceAnimations(delta); } catch (e) {}
  try { rearm(); } catch (e) {}
  try { forwardToFrames(); } catch (e) {}
  return true;
}
// The probe's jumps (CLOCK_EVENT), and the messages of the clock: a due timer's task, the
// parent's offset, a child's question for it.
function listenForJumps() {
  listen(window, CLOCK_EVENT, (e) => {
    stop(e);
    let request = null;
    try { request = parseJSON(read(eventDetail, e, 'detail')); } catch (error) {}
    try {
      if (request && typeof request.to === 'number' && isFiniteNumber(request.to)) {
        if (request.run === true) startRun(request.to); else moveTo(clock.offset + (request.to - virtualNow()));
      }
      if (request && request.frame === true && framesWaiting()) { clock.steppedAt = now(); runFrame(virtualNow()); }
    } finally {
      // The probe reads the new state before its dispatch returns (without `to`: only that).
      tellProbe(state(null));
    }
  }, true);
  listen(window, 'message', (e) => {
    let data, source;
    try { data = read(messageData, e, 'data'); source = read(messageSource, e, 'source'); } catch (error) { return; }
    if (!data || typeof data !== 'object') return;
    if (source === window && data[TASK_TAG] === true) {
      stop(e);
      clock.posted = false;
      runDue();
    } else if (source === parentWindow && source !== window && typeof data[FRAME_TAG] === 'number') {
      stop(e);
      moveTo(data[FRAME_TAG]);
    } else if (data[FRAME_ASK] === true && source && source !== window) {
      let mine = false;
      try { mine = source.parent === window; } catch (error) {}
      if (!mine) return;
      stop(e);
      postTo(source, { [FRAME_TAG]: clock.offset });
    }
  }, true);
}

// Runs a timer's handler as the engine would: a function with the given arguments, or text as
// a script in the global scope.
function runHandler(handler, args) {
  if (typeof handler === 'function') apply(handler, window, args); else apply(nativeEval, window, [nativeString(handler)]);
}

if (!VIRTUAL_CLOCK) {
  replace(window, 'setTimeout', disguise({ setTimeout(handler) {
    const ms = mathMax(0, NativeNumber(arguments[1]) || 0);
    const args = arrayOf(arguments, 2);
    // A timer that re-arms itself with the same delay is periodic, like setInterval: not pending.
    const periodic = runningTimerDelay !== null && runningTimerDelay === ms;
    let id;
    const wrapped = function() {
      apply(mapDelete, timers, [id]);
      const outer = runningTimerDelay;
      runningTimerDelay = ms;
      try {
        runHandler(handler, args);
      } finally {
        runningTimerDelay = outer;
        tell('timer');
      }
    };
    id = nativeSetTimeout(wrapped, ms);
    if (!periodic) { pend(id, now() + ms); tell(null); }
    return id;
  } }.setTimeout, window.setTimeout));
  replace(window, 'clearTimeout', disguise({ clearTimeout() {
    const id = arguments[0];
    if (apply(mapDelete, timers, [id])) tell(null);
    return nativeClearTimeout(id);
  } }.clearTimeout, window.clearTimeout));
} else {
  installVirtualClock();
}
if (DEVICE) installDevice(DEVICE);
if (window.fetch) {
  const nativeFetch = window.fetch;
  const then = Promise.prototype.then;
  replace(window, 'fetch', disguise({ fetch(input) {
    requests++;
    tell(null);
    let promise;
    let open = true;
    const done = () => { if (open) { open = false; requests--; tell('fetch'); } };
    try { promise = apply(nativeFetch, this, arrayOf(arguments, 0)); } catch (e) { done(); throw e; }
    try { apply(then, promise, [done, done]); } catch (e) { done(); }
    return promise;
  } }.fetch, nativeFetch));
}
if (window.XMLHttpRequest) {
  const nativeSend = XMLHttpRequest.prototype.send;
  replace(XMLHttpRequest.prototype, 'send', disguise({ send() {
    requests++;
    tell(null);
    let open = true;
    const done = () => { if (open) { open = false; requests--; tell('xhr'); } };
    try { listen(this, 'loadend', done, { once: true }); } catch (e) { done(); }
    try { return apply(nativeSend, this, arrayOf(arguments, 0)); } catch (e) { done(); throw e; }
  } }.send, nativeSend));
}
// --- workers -------------------------------------------------------------------------------
// A dedicated worker runs on a clock of its own, the real one (no user script runs in a worker),
// and what it posts can change the page at any moment: while one is running, the virtual clock
// does not jump (its time passes at real speed, as on the phone). Not pending work: a worker
// that never posts does not hold the verdict. A worker counts from its construction until
// `terminate()` or its script fails to load (an `error` event that is not a script error of a
// running worker, an `ErrorEvent`); one that closes itself counts until the page ends.
if (typeof window.Worker === 'function') {
  const NativeWorker = window.Worker;
  const NativeErrorEvent = window.ErrorEvent;
  const nativeTerminate = NativeWorker.prototype.terminate;
  const ends = new NativeWeakMap(); // a running worker -> what ends its count
  const VirtualWorker = function Worker() {
    // Called without `new`: the engine's own TypeError.
    if (new.target === undefined) return apply(NativeWorker, this, arrayOf(arguments, 0));
    const worker = construct(NativeWorker, arrayOf(arguments, 0), new.target);
    let running = true;
    const end = () => { if (running) { running = false; workers--; tell('worker'); } };
    apply(weakSet, ends, [worker, end]);
    listen(worker, 'error', (e) => { if (!(NativeErrorEvent && e instanceof NativeErrorEvent)) end(); });
    workers++;
    tell(null);
    return worker;
  };
  standIn(VirtualWorker, NativeWorker);
  replace(window, 'Worker', disguise(VirtualWorker, NativeWorker));
  if (typeof nativeTerminate === 'function') {
    replace(NativeWorker.prototype, 'terminate', disguise({ terminate() {
      const end = apply(weakGet, ends, [this]);
      if (end) end();
      return apply(nativeTerminate, this, arrayOf(arguments, 0));
    } }.terminate, nativeTerminate));
  }
}

// --- time the hooks do not move ------------------------------------------------------------
// The virtual clock may jump only over time the hooks move: their timers and animation frames,
// the document's animations (seeked by each jump, SVG's too), and the requests and workers they
// count. A page can keep time in other ways, whose clock is real and can change the page at any
// moment: while one is in use the clock does not jump (its time passes at real speed), and the
// state names the first (`realTime`) for the log and the report. Not pending work: none of them
// holds the verdict. Counted from construction until the page closes it (a socket, an event
// source, a channel, a peer connection, an audio context), or for good (a shared worker, a
// service worker's control), or while a message is in flight (a MessageChannel's); looked at when the state is told (media playing, `<marquee>`,
// an animation the document does not list, `Atomics.waitAsync` waiting).
const holders = new NativeMap();   // reason -> how many hold the clock now
function hold(reason, delta) {
  const count = (apply(mapGet, holders, [reason]) || 0) + delta;
  if (count > 0) apply(mapSet, holders, [reason, count]); else apply(mapDelete, holders, [reason]);
  tell(null);
}
// Wraps the constructor `name` of `window` so that each object it makes holds the clock under
// `reason` until `ended(object, end)` calls `end` (for good when it never does).
function holdWhileOpen(name, reason, ended) {
  const Native = window[name];
  if (typeof Native !== 'function') return;
  const Held = { [name]: function () {
    if (new.target === undefined) return apply(Native, this, arrayOf(arguments, 0));
    const object = construct(Native, arrayOf(arguments, 0), new.target);
    let open = true;
    hold(reason, 1);
    try { ended(object, () => { if (open) { open = false; hold(reason, -1); } }); } catch (e) {}
    return object;
  } }[name];
  standIn(Held, Native);
  replace(window, name, disguise(Held, Native));
}
// Ends a count when `methodName` of `proto` is called (a close).
function endOnCall(proto, methodName, ends) {
  const native = proto && proto[methodName];
  if (typeof native !== 'function') return;
  replace(proto, methodName, disguise({ [methodName]() {
    const end = apply(weakGet, ends, [this]);
    if (end) end();
    return apply(native, this, arrayOf(arguments, 0));
  } }[methodName], native));
}
if (VIRTUAL_CLOCK) {
  const closes = new NativeWeakMap();
  const onClose = (event) => (object, end) => { apply(weakSet, closes, [object, end]); listen(object, event, end); };
  holdWhileOpen('SharedWorker', 'a SharedWorker (its clock is real)', () => {});
  holdWhileOpen('WebSocket', 'an open WebSocket', onClose('close'));
  endOnCall(window.WebSocket && WebSocket.prototype, 'close', closes);
  holdWhileOpen('EventSource', 'an open EventSource', (source, end) => {
    apply(weakSet, closes, [source, end]);
    listen(source, 'error', () => { try { if (source.readyState === 2) end(); } catch (e) {} });
  });
  endOnCall(window.EventSource && EventSource.prototype, 'close', closes);
  holdWhileOpen('BroadcastChannel', 'an open BroadcastChannel', (channel, end) => apply(weakSet, closes, [channel, end]));
  endOnCall(window.BroadcastChannel && BroadcastChannel.prototype, 'close', closes);
  holdWhileOpen('RTCPeerConnection', 'an RTCPeerConnection', (connection, end) => apply(weakSet, closes, [connection, end]));
  endOnCall(window.RTCPeerConnection && RTCPeerConnection.prototype, 'close', closes);
  for (const name of ['AudioContext', 'webkitAudioContext']) {
    holdWhileOpen(name, 'an AudioContext', (context, end) => apply(weakSet, closes, [context, end]));
    endOnCall(window[name] && window[name].prototype, 'close', closes);
  }
  // Atomics.waitAsync: its promise settles on the real clock.
  if (typeof Atomics === 'object' && typeof Atomics.waitAsync === 'function') {
    const nativeWaitAsync = Atomics.waitAsync;
    const promiseThen = Promise.prototype.then;
    replace(Atomics, 'waitAsync', disguise({ waitAsync() {
      const result = apply(nativeWaitAsync, Atomics, arrayOf(arguments, 0));
      if (result && result.async === true) {
        hold('Atomics.waitAsync waiting', 1);
        const done = () => hold('Atomics.waitAsync waiting', -1);
        try { apply(promiseThen, result.value, [done, done]); } catch (e) {}
      }
      return result;
    } }.waitAsync, nativeWaitAsync));
  }
}
// Calls of the engine's asynchronous work under way, in this frame: work the settle rule waits
// for (like requests: its end can change the page) for its first CALL_WAITED_MS of real time
// (a call that never settles, such as a permission nobody answers, does not hold the verdict
// for ever), and time the virtual clock does not move (it holds the clock until it ends).
// Counted on both clocks.
const CALL_WAITED_MS = 5000;
let callsUnderWay = 0;
const busy = (reason) => {
  callsUnderWay++;
  hold(reason, 1);
  let counted = true, done = false;
  const uncount = () => { if (counted) { counted = false; callsUnderWay--; tell(null); } };
  nativeSetTimeout(uncount, CALL_WAITED_MS);
  return () => {
    if (done) return;
    done = true;
    nativeSetTimeout(() => { uncount(); hold(reason, -1); }, 0);
  };
};
// A MessageChannel's messages: WebKit carries each through the UI process, a round trip of
// real time that a loop of messages between the two ports adds up. A message to a port of a
// channel made here is a call under way until that port receives it (let go in a later task,
// so that a handler posting the next one keeps it) or for a second of real time (a port never
// started, or handed to another context).
if (typeof window.MessageChannel === 'function' && window.MessagePort) {
  const NativeChannel = window.MessageChannel;
  const portOne = getter(NativeChannel.prototype, 'port1'), portTwo = getter(NativeChannel.prototype, 'port2');
  const partners = new NativeWeakMap();  // port -> the other port of its channel
  const inFlight = new NativeWeakMap();  // port -> the ends of the messages posted to it, in order
  const received = (port) => () => {
    const ends = apply(weakGet, inFlight, [port]);
    if (ends && ends.length) apply(arrayShift, ends, [])();
  };
  const Channel = { MessageChannel: function () {
    if (new.target === undefined) return apply(NativeChannel, this, arrayOf(arguments, 0));
    const channel = construct(NativeChannel, arrayOf(arguments, 0), new.target);
    try {
      const one = read(portOne, channel, 'port1'), two = read(portTwo, channel, 'port2');
      apply(weakSet, partners, [one, two]);
      apply(weakSet, partners, [two, one]);
      apply(weakSet, inFlight, [one, []]);
      apply(weakSet, inFlight, [two, []]);
      listen(one, 'message', received(one), true);
      listen(two, 'message', received(two), true);
    } catch (e) {}
    return channel;
  } }.MessageChannel;
  standIn(Channel, NativeChannel);
  replace(window, 'MessageChannel', disguise(Channel, NativeChannel));
  const nativePortPost = MessagePort.prototype.postMessage;
  replace(MessagePort.prototype, 'postMessage', disguise({ postMessage() {
    const result = apply(nativePortPost, this, arrayOf(arguments, 0));
    const to = apply(weakGet, partners, [this]);
    const ends = to && apply(weakGet, inFlight, [to]);
    if (ends && ends.length < 100000) {
      const end = busy('a MessageChannel message in flight');
      push(ends, end);
      nativeSetTimeout(end, 1000);
    }
    return result;
  } }.postMessage, nativePortPost));
}
// A history navigation (`back`, `forward`, `go`) goes through the UI process and ends with
// `popstate` or `hashchange` (or a new document): a call under way until then, or for a second
// of real time (nothing to go back to).
if (window.History) {
  const navigations = [];
  const arrived = () => { const ends = apply(arraySplice, navigations, [0, navigations.length]); for (let i = 0; i < ends.length; i++) ends[i](); };
  listen(window, 'popstate', arrived, true);
  listen(window, 'hashchange', arrived, true);
  for (const key of ['back', 'forward', 'go']) {
    const native = History.prototype[key];
    if (typeof native !== 'function') continue;
    replace(History.prototype, key, disguise({ [key]() {
      const result = apply(native, this, arrayOf(arguments, 0));
      if (navigations.length < 1000) {
        const end = busy('a history navigation under way');
        push(navigations, end);
        nativeSetTimeout(end, 1000);
      }
      return result;
    } }[key], native));
  }
}
// The engine's asynchronous work (storage, crypto, encoding, body reads, decodes, locks,
// service workers, ...) takes real time, in this process's threads or another process, and
// its result can change the page at any moment: while a call of it is under way the clock is
// real. The methods below are every method of the engine's interfaces that returns a promise
// (`PROMISE_METHODS`: interface and method; `ProbeScriptTests` finds them in the engine, as
// the methods that answer a call on an object of another interface with a rejected promise,
// and checks this list against them), less those whose promise waits on the page itself
// (`whenDefined`), is this probe's channel, or loads fonts (the fonts rule waits for those, and
// gives up after 5 s); and the ones that take a callback or fire events:
// `toBlob`, IndexedDB's requests and transactions, `FileReader` (service workers are off).
// Each is let go a task after it ends, so that a chain (a handler that starts the next) keeps
// the clock held.
{
  const PROMISE_METHODS = 'AudioContext.close AudioContext.resume AudioContext.suspend AudioDecoder.flush AudioEncoder.flush '
    + 'BaseAudioContext.decodeAudioData Blob.arrayBuffer Blob.bytes Blob.text CSSStyleSheet.replace Cache.add Cache.addAll '
    + 'Cache.delete Cache.keys Cache.match Cache.matchAll Cache.put CacheStorage.delete CacheStorage.has CacheStorage.keys '
    + 'CacheStorage.match CacheStorage.open Clipboard.read Clipboard.readText Clipboard.write Clipboard.writeText '
    + 'ClipboardItem.getType CookieStore.delete CookieStore.get CookieStore.getAll CookieStore.set '
    + 'Document.exitFullscreen Document.hasStorageAccess Document.requestStorageAccess Element.requestFullscreen '
    + 'GPUBuffer.mapAsync GPUQueue.onSubmittedWorkDone HTMLImageElement.decode HTMLMediaElement.play '
    + 'IDBFactory.databases LockManager.query LockManager.request MediaCapabilities.decodingInfo '
    + 'MediaCapabilities.encodingInfo MediaDevices.enumerateDevices MediaDevices.getDisplayMedia MediaDevices.getUserMedia '
    + 'MediaSession.callActionHandler MediaStreamTrack.applyConstraints NavigationPreloadManager.disable '
    + 'NavigationPreloadManager.enable NavigationPreloadManager.getState NavigationPreloadManager.setHeaderValue '
    + 'OfflineAudioContext.resume OfflineAudioContext.startRendering OfflineAudioContext.suspend '
    + 'OffscreenCanvas.convertToBlob Permissions.query ReadableStream.cancel ReadableStream.pipeTo '
    + 'ReadableStreamDefaultReader.cancel ReadableStreamDefaultReader.read Request.arrayBuffer Request.blob Request.bytes '
    + 'Request.formData Request.json Request.text Response.arrayBuffer Response.blob Response.bytes Response.formData '
    + 'Response.json Response.text SVGImageElement.decode SubtleCrypto.decrypt SubtleCrypto.deriveBits SubtleCrypto.deriveKey SubtleCrypto.digest SubtleCrypto.encrypt '
    + 'SubtleCrypto.exportKey SubtleCrypto.generateKey SubtleCrypto.importKey SubtleCrypto.sign SubtleCrypto.unwrapKey '
    + 'SubtleCrypto.verify SubtleCrypto.wrapKey VideoDecoder.flush VideoEncoder.flush VideoFrame.copyTo WakeLock.request '
    + 'WakeLockSentinel.release Worklet.addModule WritableStream.abort WritableStream.close WritableStreamDefaultWriter.abort '
    + 'WritableStreamDefaultWriter.close WritableStreamDefaultWriter.write';
  const NativePromise = Promise;
  const promiseThen = Promise.prototype.then;
  // Wraps `holder[key]` (a method) so that each call holds the clock under `reason` until
  // `ended(result, end, self)` calls `end`; a call that throws holds nothing.
  const holdEachCall = (holder, key, reason, ended) => {
    const native = holder && holder[key];
    if (typeof native !== 'function') return;
    replace(holder, key, disguise({ [key]() {
      const result = apply(native, this, arrayOf(arguments, 0));
      const end = busy(reason);
      try { ended(result, end, this); } catch (e) { end(); }
      return result;
    } }[key], native));
  };
  const untilSettled = (result, end) => {
    if (result instanceof NativePromise) apply(promiseThen, result, [end, end]); else end();
  };
  // Ends every call waiting on `target` at its next event of `names` (one listener a target:
  // a cursor's request fires again for each step).
  const waiting = new NativeWeakMap();  // target -> the ends waiting for its next event
  const untilEvent = (names) => (target, end) => {
    if (!target || typeof target !== 'object') { end(); return; }
    let ends = apply(weakGet, waiting, [target]);
    if (!ends) {
      ends = [];
      apply(weakSet, waiting, [target, ends]);
      const fire = () => { const now = apply(arraySplice, ends, [0, ends.length]); for (let i = 0; i < now.length; i++) now[i](); };
      for (let i = 0; i < names.length; i++) listen(target, names[i], fire, true);
    }
    push(ends, end);
  };
  const methods = apply(stringSplit, PROMISE_METHODS, [' ']);
  for (let i = 0; i < methods.length; i++) {
    const [name, key] = apply(stringSplit, methods[i], ['.']);
    const Interface = window[name];
    if (typeof Interface === 'function' && Interface.prototype) {
      holdEachCall(Interface.prototype, key, 'a ' + name + '.' + key + ' call under way', untilSettled);
    }
  }
  holdEachCall(window, 'createImageBitmap', 'a createImageBitmap call under way', untilSettled);
  if (typeof WebAssembly === 'object') {
    for (const key of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {
      holdEachCall(WebAssembly, key, 'a WebAssembly.' + key + ' call under way', untilSettled);
    }
  }
  if (window.HTMLCanvasElement && typeof HTMLCanvasElement.prototype.toBlob === 'function') {
    const nativeToBlob = HTMLCanvasElement.prototype.toBlob;
    replace(HTMLCanvasElement.prototype, 'toBlob', disguise({ toBlob() {
      const args = arrayOf(arguments, 0);
      const callback = args[0];
      if (typeof callback !== 'function') return apply(nativeToBlob, this, args);
      const end = busy('a canvas toBlob call under way');
      args[0] = function () { end(); return apply(callback, this, arrayOf(arguments, 0)); };
      try { return apply(nativeToBlob, this, args); } catch (e) { end(); throw e; }
    } }.toBlob, nativeToBlob));
  }
  const requestEnds = untilEvent(['success', 'error']);
  const requestReason = 'an IndexedDB request under way';
  for (const [name, keys] of [
    ['IDBFactory', ['open', 'deleteDatabase']],
    ['IDBObjectStore', ['add', 'put', 'get', 'getAll', 'getKey', 'getAllKeys', 'delete', 'clear', 'count', 'openCursor', 'openKeyCursor']],
    ['IDBIndex', ['get', 'getAll', 'getKey', 'getAllKeys', 'count', 'openCursor', 'openKeyCursor']],
  ]) {
    const Interface = window[name];
    for (let i = 0; Interface && i < keys.length; i++) holdEachCall(Interface.prototype, keys[i], requestReason, requestEnds);
  }
  if (window.IDBCursor) {
    const cursorRequest = getter(IDBCursor.prototype, 'request');
    for (const key of ['continue', 'advance', 'continuePrimaryKey']) {
      holdEachCall(IDBCursor.prototype, key, requestReason, (result, end, cursor) => requestEnds(read(cursorRequest, cursor, 'request'), end));
    }
  }
  if (window.IDBDatabase) {
    holdEachCall(IDBDatabase.prototype, 'transaction', 'an IndexedDB transaction under way', untilEvent(['complete', 'abort', 'error']));
  }
  if (window.FileReader) {
    const loadEnd = untilEvent(['loadend']);
    for (const key of ['readAsArrayBuffer', 'readAsBinaryString', 'readAsDataURL', 'readAsText']) {
      holdEachCall(FileReader.prototype, key, 'a FileReader read under way', (result, end, reader) => loadEnd(reader, end));
    }
  }
}
// Animations made with `new Animation(...)`: one whose effect has no target, or a target out of
// the document, is not among the document's animations, which a jump seeks; while one runs the
// clock is real.
const made = [];
if (VIRTUAL_CLOCK && typeof window.Animation === 'function') {
  const NativeAnimation = window.Animation;
  const MadeAnimation = { Animation: function () {
    if (new.target === undefined) return apply(NativeAnimation, this, arrayOf(arguments, 0));
    const animation = construct(NativeAnimation, arrayOf(arguments, 0), new.target);
    if (made.length < 1000) push(made, animation);
    return animation;
  } }.Animation;
  standIn(MadeAnimation, NativeAnimation);
  replace(window, 'Animation', disguise(MadeAnimation, NativeAnimation));
}
const effectTarget = window.KeyframeEffect ? getter(KeyframeEffect.prototype, 'target') : null;
const connected = getter(Node.prototype, 'isConnected');
const mediaPaused = window.HTMLMediaElement ? getter(HTMLMediaElement.prototype, 'paused') : null;
const mediaEnded = window.HTMLMediaElement ? getter(HTMLMediaElement.prototype, 'ended') : null;
const byTag = Document.prototype.getElementsByTagName;
const liveByTag = (tag) => { try { return apply(byTag, document, [tag]); } catch (e) { return []; } };
const marquees = liveByTag('marquee'), videos = liveByTag('video'), audios = liveByTag('audio');
const serviceWorkers = window.navigator && navigator.serviceWorker ? navigator.serviceWorker : null;
const controller = window.ServiceWorkerContainer ? getter(ServiceWorkerContainer.prototype, 'controller') : null;
function playing(list) {
  for (let i = 0; i < list.length; i++) {
    try { if (!read(mediaPaused, list[i], 'paused') && !read(mediaEnded, list[i], 'ended')) return true; } catch (e) {}
  }
  return false;
}
function heldBy() {
  if (!VIRTUAL_CLOCK) return null;
  let first = null;
  apply(mapForEach, holders, [(count, reason) => { if (first === null) first = reason; }]);
  if (first !== null) return first;
  if (marquees.length) return 'a <marquee> scrolling';
  if (playing(videos) || playing(audios)) return 'media playing';
  for (let i = 0; i < made.length; i++) {
    try {
      const state = read(animationPlayState, made[i], 'playState');
      if (state !== 'running') continue;
      const effect = read(animationEffect, made[i], 'effect');
      const target = effect ? read(effectTarget, effect, 'target') : null;
      if (!target || !read(connected, target, 'isConnected')) return 'an animation the document does not list';
    } catch (e) {}
  }
  try { if (serviceWorkers && read(controller, serviceWorkers, 'controller')) return 'a service worker controls the page'; } catch (e) {}
  return null;
}

// --- view transitions ----------------------------------------------------------------------
// The engine's own view transitions are off (`PageView.applySettings` says why). A page's
// `document.startViewTransition` runs as a browser runs a transition it skips (a hidden
// document's): nothing is captured or animated, the update callback runs (in a microtask, before
// the next task, so no reading can fall between the call and the change it asks for),
// `updateCallbackDone` and `finished` settle with it, and `ready` rejects with an AbortError that
// is marked handled. Accepts the callback or `{ update, types }`.
if (typeof Document.prototype.startViewTransition !== 'function') {
  const NativePromise = Promise;
  const NativeSet = Set;
  const NativeDOMException = DOMException;
  const NativeTypeError = TypeError;
  const promiseThen = Promise.prototype.then;
  const ignore = () => {};
  const fulfilled = () => undefined;
  const startViewTransition = { startViewTransition(argument = undefined) {
    const options = argument !== null && typeof argument === 'object';
    const update = options ? argument.update : argument;
    if (update !== undefined && update !== null && typeof update !== 'function') {
      throw new NativeTypeError("Argument 1 ('callbackOptions') to Document.startViewTransition must be a function or an object");
    }
    const types = new NativeSet(options && argument.types !== undefined && argument.types !== null ? argument.types : []);
    let settle;
    const called = new NativePromise((resolve, reject) => { settle = { resolve, reject }; });
    microtask(() => {
      try { settle.resolve(typeof update === 'function' ? apply(update, undefined, []) : undefined); } catch (e) { settle.reject(e); }
    });
    const updateCallbackDone = apply(promiseThen, called, [fulfilled]);
    const ready = apply(promiseThen, NativePromise.resolve(), [() => {
      throw new NativeDOMException('The view transition was skipped: pageheight runs no view transitions', 'AbortError');
    }]);
    apply(promiseThen, ready, [undefined, ignore]);
    const finished = apply(promiseThen, updateCallbackDone, [fulfilled]);
    return { updateCallbackDone, ready, finished, types, skipTransition() {} };
  } }.startViewTransition;
  apply(weakSet, nativeText, [startViewTransition, 'function startViewTransition() {\n    [native code]\n}']);
  defineProperty(Document.prototype, 'startViewTransition',
                 { value: startViewTransition, writable: true, enumerable: true, configurable: true });
}

// --- the device (`--device`) ---
// DEVICE (null for the desktop) is what scripts read of a phone or tablet that the engine does not
// answer itself: `devicePixelRatio` (exact; the engine renders at the whole scale above it),
// `navigator.maxTouchPoints` and `platform`, `screen`'s size, the `ontouchstart` family of handler
// properties, and `matchMedia` for the hover and pointer features (a touch device: `hover: none`,
// `pointer: coarse`, and the same for `any-hover` and `any-pointer`). The engine's own media
// queries (those of style sheets) still answer as the desktop: no script can change that.
function installDevice(device) {
  const getterOf = (name, value) => describe({ get [name]() { return value; } }, name).get;
  // Replaces the getter of `name` on `target` (where the engine has it) by one that gives `value`.
  const fix = (target, name, value) => {
    const d = target && describe(target, name);
    if (!d || !d.get) return;
    defineProperty(target, name, { get: disguise(getterOf(name, value), d.get), set: d.set, enumerable: d.enumerable,
                                   configurable: true });
  };
  fix(describe(window, 'devicePixelRatio') ? window : Window.prototype, 'devicePixelRatio', device.scale);
  fix(Navigator.prototype, 'maxTouchPoints', device.touchPoints);
  if (device.platform !== null) fix(Navigator.prototype, 'platform', device.platform);
  if (device.screen) {
    fix(Screen.prototype, 'width', device.screen[0]);
    fix(Screen.prototype, 'height', device.screen[1]);
    fix(Screen.prototype, 'availWidth', device.screen[0]);
    fix(Screen.prototype, 'availHeight', device.screen[1]);
  }
  if (device.touchPoints <= 0) return;

  // `'ontouchstart' in window` (and in an element, or the document): handler properties that
  // hold a function and listen with it, as the engine's do.
  const addTo = EventTarget.prototype.addEventListener, removeFrom = EventTarget.prototype.removeEventListener;
  const names = ['ontouchstart', 'ontouchmove', 'ontouchend', 'ontouchcancel'];
  const handlers = new NativeWeakMap(); // target -> Map(name -> function)
  const handlerProperty = (target, name) => {
    if (!target || describe(target, name)) return;
    const type = apply(String.prototype.slice, name, [2]);
    defineProperty(target, name, {
      get: describe({ get [name]() {
        const own = apply(weakGet, handlers, [this]);
        const value = own ? apply(mapGet, own, [name]) : undefined;
        return value === undefined ? null : value;
      } }, name).get,
      set: describe({ set [name](value) {
        let own = apply(weakGet, handlers, [this]);
        if (!own) { own = new NativeMap(); apply(weakSet, handlers, [this, own]); }
        const before = apply(mapGet, own, [name]);
        if (typeof before === 'function') apply(removeFrom, this, [type, before]);
        if (typeof value === 'function') {
          apply(mapSet, own, [name, value]);
          apply(addTo, this, [type, value]);
        } else {
          apply(mapDelete, own, [name]);
        }
      } }, name).set,
      enumerable: true, configurable: true,
    });
  };
  for (let i = 0; i < names.length; i++) {
    handlerProperty(window, names[i]);
    handlerProperty(window.Document && Document.prototype, names[i]);
    handlerProperty(window.HTMLElement && HTMLElement.prototype, names[i]);
  }

  // matchMedia and style sheets: each hover or pointer feature of a query becomes a condition
  // that always or never holds, as a touch device answers it (`touchMedia`).
  const touchMedia = touchMediaRewriter();
  installTouchStyles(touchMedia);
  const nativeMatchMedia = window.matchMedia;
  if (typeof nativeMatchMedia !== 'function') return;
  const matchMediaReplacement = { matchMedia(query) {
    if (arguments.length === 0) return apply(nativeMatchMedia, window, []); // the engine's TypeError
    const text = nativeString(query);
    const rewritten = touchMedia(text);
    const list = apply(nativeMatchMedia, window, [rewritten]);
    if (rewritten !== text) defineProperty(list, 'media', { get: getterOf('media', text), configurable: true });
    return list;
  } }.matchMedia;
  replace(window, 'matchMedia', disguise(matchMediaReplacement, nativeMatchMedia));
}

// --- touch in style sheets ---------------------------------------------------------------
// A function from a media query's text to the same query as a touch device answers it: each
// `hover`, `pointer`, `any-hover` and `any-pointer` feature becomes a condition that always holds
// (`(hover: none)`, `(pointer: coarse)`, `(pointer)`) or never does (`(hover: hover)`, `(hover)`,
// `(pointer: fine)`, `(pointer: none)`). The two stand-ins are width conditions every viewport
// answers the same way (no view is ten million px wide), so `not`, `and` and `or` around them
// keep their sense.
function touchMediaRewriter() {
  const feature = /\(\s*(any-)?(hover|pointer)\s*(?::\s*([a-z]+)\s*)?\)/gi;
  defineProperty(feature, 'exec', { value: RegExp.prototype.exec });
  const regexpReplace = RegExp.prototype[Symbol.replace];
  const regexpTest = RegExp.prototype.test;
  const lower = String.prototype.toLowerCase;
  const always = '(min-width: 0px)', never = '(min-width: 10000000px)';
  const touchAnswer = (match, any, name, value) => {
    const v = value === undefined ? undefined : apply(lower, value, []);
    if (apply(lower, name, []) === 'hover') return v === 'none' ? always : never;
    return v === undefined || v === 'coarse' ? always : never;
  };
  return (text) => {
    feature.lastIndex = 0;
    if (!apply(regexpTest, feature, [text])) return text;
    feature.lastIndex = 0;
    return apply(regexpReplace, feature, [text, touchAnswer]);
  };
}

// The page's style sheets answer hover and pointer queries as a touch device: the media of every
// sheet (`<link media>`, `<style media>`), of its `@media` and `@import` rules, nested ones and
// imported sheets' included, is rewritten by `touchMedia` as the sheet arrives: sheets in the
// document (a mutation observer sees `<style>` and `<link>` elements added or changed, a link's
// `load` brings its rules and imports), rules a script inserts, sheets it constructs, replaces or
// adopts, media text it sets, and shadow roots' sheets. Every frame's hooks do their own frame's.
// The page reads its own text back: `mediaText`, `conditionText` and a media list's string give
// what the page wrote. Left as the desktop answers them: a cross-origin sheet the page cannot read
// either (`cssRules` throws), and the `cssText` of a rule or sheet, which shows the rewritten text.
function installTouchStyles(touchMedia) {
  const mediaTextProperty = window.MediaList && describe(MediaList.prototype, 'mediaText');
  if (!mediaTextProperty || !mediaTextProperty.get || !mediaTextProperty.set) return;
  const sheets = touchSheetRewriter(touchMedia, mediaTextProperty);
  answerWithThePagesMediaText(sheets, mediaTextProperty);
  rewriteScriptMadeSheets(sheets);
  rewriteDocumentSheetsAsTheyCome(sheets);
}
// What rewrites a media list, a rule, a sheet, a `<style>` or `<link>` element, and a document's
// sheets (`touchMedia`), with the engine's getters it reads them through and the texts the page gave.
function touchSheetRewriter(touchMedia, mediaTextProperty) {
  const original = new NativeWeakMap(); // a MediaList -> the text the page gave it
  const weakDelete = WeakMap.prototype.delete;
  const getMediaText = mediaTextProperty.get, setMediaText = mediaTextProperty.set;
  const getRules = getter(window.CSSStyleSheet && CSSStyleSheet.prototype, 'cssRules');
  const getSheetMedia = getter(window.StyleSheet && StyleSheet.prototype, 'media');
  const getGroupRules = getter(window.CSSGroupingRule && CSSGroupingRule.prototype, 'cssRules');
  const getRuleMedia = getter(window.CSSMediaRule && CSSMediaRule.prototype, 'media');
  const getImportMedia = getter(window.CSSImportRule && CSSImportRule.prototype, 'media');
  const getImportSheet = getter(window.CSSImportRule && CSSImportRule.prototype, 'styleSheet');
  const getSheet = getter(window.HTMLStyleElement && HTMLStyleElement.prototype, 'sheet');
  const getLinkSheet = getter(window.HTMLLinkElement && HTMLLinkElement.prototype, 'sheet');
  const getLength = getter(window.CSSRuleList && CSSRuleList.prototype, 'length');
  const getSheets = getter(Document.prototype, 'styleSheets');
  const getSheetListLength = getter(window.StyleSheetList && StyleSheetList.prototype, 'length');
  const NativeMediaRule = window.CSSMediaRule, NativeImportRule = window.CSSImportRule;
  const NativeGroupingRule = window.CSSGroupingRule;
  const isA = (x, type) => !!type && x instanceof type;

  function rewriteList(list) {
    if (!list) return;
    let text;
    try { text = apply(getMediaText, list, []); } catch (e) { return; }
    const rewritten = touchMedia(text);
    if (rewritten === text) return;
    if (!apply(weakHas, original, [list])) apply(weakSet, original, [list, text]);
    try { apply(setMediaText, list, [rewritten]); } catch (e) {}
  }
  function rewriteRules(rules) {
    if (!rules) return;
    const length = read(getLength, rules, 'length');
    for (let i = 0; i < length; i++) rewriteRule(rules[i]);
  }
  function rewriteRule(rule) {
    if (isA(rule, NativeMediaRule)) rewriteList(read(getRuleMedia, rule, 'media'));
    if (isA(rule, NativeImportRule)) {
      rewriteList(read(getImportMedia, rule, 'media'));
      rewriteSheet(read(getImportSheet, rule, 'styleSheet'));
    }
    if (isA(rule, NativeGroupingRule)) {
      let rules = null;
      try { rules = read(getGroupRules, rule, 'cssRules'); } catch (e) {}
      rewriteRules(rules);
    }
  }
  function rewriteSheet(sheet) {
    if (!sheet) return;
    try { rewriteList(read(getSheetMedia, sheet, 'media')); } catch (e) {}
    let rules = null;
    try { rules = read(getRules, sheet, 'cssRules'); } catch (e) { return; } // another origin's
    rewriteRules(rules);
  }
  function rewriteDocumentSheets(root) {
    let sheets;
    try { sheets = read(getSheets, root, 'styleSheets'); } catch (e) { return; }
    if (!sheets) return;
    const count = read(getSheetListLength, sheets, 'length');
    for (let i = 0; i < count; i++) rewriteSheet(sheets[i]);
    try {
      const adopted = root.adoptedStyleSheets;
      if (adopted) for (let i = 0; i < adopted.length; i++) rewriteSheet(adopted[i]);
    } catch (e) {}
  }
  function rewriteElement(node) {
    try {
      if (isA(node, window.HTMLStyleElement)) return rewriteSheet(read(getSheet, node, 'sheet'));
      if (isA(node, window.HTMLLinkElement)) return rewriteSheet(read(getLinkSheet, node, 'sheet'));
    } catch (e) {}
  }
  return { touchMedia, original, weakDelete, getMediaText, setMediaText, getRules, getGroupRules, getRuleMedia,
           NativeMediaRule, NativeGroupingRule, isA, rewriteList, rewriteRule, rewriteSheet, rewriteDocumentSheets,
           rewriteElement };
}
// The page reads back what it wrote: `mediaText`, a media list's string, a media rule's `conditionText`.
function answerWithThePagesMediaText(sheets, mediaTextProperty) {
  const { touchMedia, original, weakDelete, getMediaText, setMediaText, getRuleMedia, NativeMediaRule, isA } = sheets;
  const mediaTextGetter = { get mediaText() {
    return apply(weakHas, original, [this]) ? apply(weakGet, original, [this]) : apply(getMediaText, this, []);
  } };
  const mediaTextSetter = { set mediaText(value) {
    apply(setMediaText, this, [value]);
    apply(weakSet, original, [this, apply(getMediaText, this, [])]);
    const text = apply(getMediaText, this, []);
    const rewritten = touchMedia(text);
    if (rewritten !== text) apply(setMediaText, this, [rewritten]); else apply(weakDelete, original, [this]);
  } };
  defineProperty(MediaList.prototype, 'mediaText', {
    get: disguise(describe(mediaTextGetter, 'mediaText').get, getMediaText),
    set: disguise(describe(mediaTextSetter, 'mediaText').set, setMediaText),
    enumerable: mediaTextProperty.enumerable, configurable: true,
  });
  const nativeListToString = MediaList.prototype.toString;
  if (typeof nativeListToString === 'function') {
    replace(MediaList.prototype, 'toString', disguise({ toString() {
      return apply(weakHas, original, [this]) ? apply(weakGet, original, [this]) : apply(nativeListToString, this, []);
    } }.toString, nativeListToString));
  }
  const conditionProperty = window.CSSConditionRule && describe(CSSConditionRule.prototype, 'conditionText');
  if (conditionProperty && conditionProperty.get && NativeMediaRule) {
    const getCondition = conditionProperty.get;
    defineProperty(CSSConditionRule.prototype, 'conditionText', {
      get: disguise(describe({ get conditionText() {
        if (isA(this, NativeMediaRule)) {
          const list = read(getRuleMedia, this, 'media');
          if (apply(weakHas, original, [list])) return apply(weakGet, original, [list]);
        }
        return apply(getCondition, this, []);
      } }, 'conditionText').get, getCondition),
      set: conditionProperty.set, enumerable: conditionProperty.enumerable, configurable: true,
    });
  }
}
// Rules and sheets that scripts make, insert, replace, extend or adopt.
function rewriteScriptMadeSheets(sheets) {
  const { original, weakDelete, getRules, getGroupRules, NativeGroupingRule, rewriteList, rewriteRule, rewriteSheet } = sheets;
  const afterCall = (proto, name, then) => {
    const native = proto && proto[name];
    if (typeof native !== 'function') return;
    const replacement = { [name]() {
      const result = apply(native, this, arrayOf(arguments, 0));
      try { then(this, result); } catch (e) {}
      return result;
    } }[name];
    replace(proto, name, disguise(replacement, native));
  };
  if (window.CSSStyleSheet) {
    const proto = CSSStyleSheet.prototype;
    afterCall(proto, 'insertRule', (sheet, index) => { rewriteRule(read(getRules, sheet, 'cssRules')[index]); });
    afterCall(proto, 'addRule', (sheet) => { rewriteSheet(sheet); });
    afterCall(proto, 'replaceSync', (sheet) => { rewriteSheet(sheet); });
    const nativeReplace = proto.replace;
    if (typeof nativeReplace === 'function') {
      const then = Promise.prototype.then;
      replace(proto, 'replace', disguise({ replace() {
        const promise = apply(nativeReplace, this, arrayOf(arguments, 0));
        const sheet = this;
        try { apply(then, promise, [() => rewriteSheet(sheet), () => {}]); } catch (e) {}
        return promise;
      } }.replace, nativeReplace));
    }
  }
  if (NativeGroupingRule) {
    afterCall(NativeGroupingRule.prototype, 'insertRule', (group, index) => { rewriteRule(read(getGroupRules, group, 'cssRules')[index]); });
  }
  if (window.MediaList) afterCall(MediaList.prototype, 'appendMedium', (list) => {
    apply(weakDelete, original, [list]);
    rewriteList(list);
  });
  const adoptedOn = (proto) => {
    const d = proto && describe(proto, 'adoptedStyleSheets');
    if (!d || !d.set) return;
    defineProperty(proto, 'adoptedStyleSheets', {
      get: d.get,
      set: disguise(describe({ set adoptedStyleSheets(value) {
        apply(d.set, this, [value]);
        try { for (let i = 0; i < value.length; i++) rewriteSheet(value[i]); } catch (e) {}
      } }, 'adoptedStyleSheets').set, d.set),
      enumerable: d.enumerable, configurable: true,
    });
  };
  adoptedOn(Document.prototype);
  adoptedOn(window.ShadowRoot && ShadowRoot.prototype);
}
// Sheets in the document and in shadow roots: `<style>` and `<link>` elements as they are added
// or changed, a link's sheet when it (and its imports) loaded, a style's after its imports.
function rewriteDocumentSheetsAsTheyCome(sheets) {
  const { rewriteElement, rewriteDocumentSheets } = sheets;
  const NativeObserver = window.MutationObserver;
  const observe = NativeObserver && NativeObserver.prototype.observe;
  let observer = null;
  const watch = (root) => {
    if (!observer) return;
    try { apply(observe, observer, [root, { childList: true, subtree: true, characterData: true, attributes: true,
                                          attributeFilter: ['media', 'rel', 'href'] }]); } catch (e) {}
    listen(root, 'load', (event) => { rewriteElement(event.target); }, true);
  };
  if (NativeObserver) {
    observer = new NativeObserver((records) => {
      for (let i = 0; i < records.length; i++) {
        const record = records[i];
        const target = record.target;
        if (record.type === 'childList') {
          const added = record.addedNodes;
          for (let j = 0; j < added.length; j++) {
            const node = added[j];
            rewriteElement(node);
            if (node && node.querySelectorAll) {
              const inside = node.querySelectorAll('style, link');
              for (let k = 0; k < inside.length; k++) rewriteElement(inside[k]);
            }
          }
          rewriteElement(target);
        } else {
          rewriteElement(record.type === 'characterData' ? target.parentNode : target);
        }
      }
    });
  }
  watch(document);
  const nativeAttachShadow = window.Element && Element.prototype.attachShadow;
  if (typeof nativeAttachShadow === 'function') {
    replace(Element.prototype, 'attachShadow', disguise({ attachShadow() {
      const root = apply(nativeAttachShadow, this, arrayOf(arguments, 0));
      try { watch(root); } catch (e) {}
      return root;
    } }.attachShadow, nativeAttachShadow));
  }
  // What the parser made before the observer could see it, and sheets the observer missed.
  const sweep = () => rewriteDocumentSheets(document);
  listen(document, 'DOMContentLoaded', sweep, true);
  listen(window, 'load', sweep, true);
}
