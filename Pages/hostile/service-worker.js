// service-worker.js - the worker of service-worker.html: takes over at once and answers every
// request in its scope with a 9999 px page.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  event.respondWith(new Response(
    '<!DOCTYPE html><html><body style="margin:0"><div style="height:9999px"></div></body></html>',
    { headers: { "Content-Type": "text/html" } }));
});
