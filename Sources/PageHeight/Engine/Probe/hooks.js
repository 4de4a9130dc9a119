// The hooks (see ProbeScript.swift): run at document start in the page's own world, as the body
// of a function whose prologue defines STATE_EVENT.
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
