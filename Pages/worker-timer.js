// worker-timer.js - worker.html's worker: posts once after 1.5 s of the worker's own (real) clock.
setTimeout(function () { postMessage('done'); }, 1500);
