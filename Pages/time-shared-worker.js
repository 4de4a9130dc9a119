// time-shared-worker.js - the shared worker of time-shared-worker.html: three entries, 1 s apart.
onconnect = (event) => {
  const port = event.ports[0];
  let sent = 0;
  const timer = setInterval(() => {
    port.postMessage({ entry: ++sent });
    if (sent === 3) clearInterval(timer);
  }, 1000);
};
