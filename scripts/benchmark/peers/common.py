"""Shared parts of the batch benchmark's peers: command line, stopping rules, output, isolation.

Every peer loads its pages in order in ONE reused browser or view and writes one JSON line per
page: {"page", "height", "seconds", "error"} plus a few facts used to explain disagreements
(`innerWidth`, `compatMode`, `charset`, `images`, `incompleteImages`, `lazyImages`, `jumps`).

Isolation: `isolate()` re-executes the peer inside a new network namespace with only loopback
up (`unshare --net`), so nothing it loads can reach the network; the pid stays the same (exec
all the way down), so the caller's process tree is the peer's whole tree. `start_xvfb()` starts
the peer's own Xvfb as its child (only the WebKit peers need a display), so Xvfb is in that tree.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

SCHEDULE = (0.1, 0.2, 0.5, 1.0, 1.5, 2.0)  # the reader app's sleeps: 5.3 s in all
THRESHOLD = 5  # px: a value is adopted only when it moved more than this
PAGE_TIMEOUT = 30.0  # s per page, then an error is recorded and the next page loads
IMAGE_POLL = 0.05  # s between `every image complete` checks (quick rule)
IMAGE_WAIT = 5.0  # s at most waiting for images (quick rule)
INITIAL_HEIGHT = 844

# One evaluation gives the measurement and the facts used to explain disagreements.
MEASURE_JS = """
var b = document.body, imgs = Array.prototype.slice.call(document.images || []);
return JSON.stringify({
  height: b ? b.scrollHeight : null,
  innerWidth: window.innerWidth, innerHeight: window.innerHeight,
  clientWidth: document.documentElement ? document.documentElement.clientWidth : null,
  contentType: document.contentType, compatMode: document.compatMode, charset: document.characterSet, url: location.href,
  images: imgs.length,
  incompleteImages: imgs.filter(function (i) { return !i.complete; }).length,
  lazyImages: imgs.filter(function (i) { return i.loading === 'lazy'; }).length
});
"""
# document.fonts.ready, but never waiting on a promise that does not settle: WebKitGTK 2.50 leaves
# it pending on some pages whose fonts are all loaded (readability/quanta-1/source.html: status
# "loaded", ready never resolves). So: ready resolves, or status reads "loaded" (50 ms polls), or
# 5 s pass, whichever comes first. Called with one argument: the function to call when done.
FONTS_WAIT_FN = """function (done) {
  var start = Date.now(), finished = false;
  function finish() { if (!finished) { finished = true; done(document.fonts ? document.fonts.status : 'none'); } }
  if (!document.fonts) { finish(); return; }
  document.fonts.ready.then(finish, finish);
  (function poll() {
    if (finished) return;
    if (document.fonts.status === 'loaded' || Date.now() - start > 5000) finish(); else setTimeout(poll, 50);
  })();
}"""
IMAGES_DONE_JS = ("return Array.prototype.every.call(document.images || [], "
                  "function (i) { return i.complete; });")


def parse_arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rule", choices=("quick", "schedule"), default="quick",
                        help="quick: load, fonts, images, one measurement; schedule: the 5.3 s reader schedule")
    parser.add_argument("--width", type=int, default=390, help="viewport width in CSS px")
    parser.add_argument("--height", type=int, default=INITIAL_HEIGHT, help="viewport height in CSS px")
    parser.add_argument("--out", help="JSON Lines output file (also printed to stdout)")
    parser.add_argument("--list", help="file with one page path per line")
    parser.add_argument("--timeout", type=float, default=PAGE_TIMEOUT, help="seconds per page")
    parser.add_argument("--no-isolate", action="store_true",
                        help="do not re-execute inside a network namespace (already isolated)")
    parser.add_argument("pages", nargs="*")
    arguments = parser.parse_args()
    pages = list(arguments.pages)
    if arguments.list:
        with open(arguments.list) as f:
            pages += [line.strip() for line in f if line.strip()]
    if not pages:
        parser.error("no pages")
    arguments.pages = pages
    return arguments


def isolate():
    """Re-executes this peer in a network namespace with only loopback up (same pid)."""
    if os.environ.get("PEER_NETNS") == "1" or "--no-isolate" in sys.argv:
        return
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or "/usr/sbin/ip"
    if not unshare or not os.path.exists(ip):
        sys.exit("peer: unshare and ip are needed for offline runs (apt-get install util-linux iproute2)")
    os.environ["PEER_NETNS"] = "1"
    command = " ".join(_quote(a) for a in [sys.executable] + sys.argv)
    os.execv(unshare, [unshare, "--net", "sh", "-c", f"{ip} link set lo up && exec {command}"])


def _quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def start_xvfb():
    """Starts Xvfb as this process's child on a free display; sets DISPLAY; returns the process."""
    read, write = os.pipe()
    process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                                "-nolisten", "tcp", "-noreset"],
                               pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = b""
    with os.fdopen(read, "rb") as f:
        while not number.endswith(b"\n"):
            chunk = f.read(1)
            if not chunk:
                break
            number += chunk
    if not number.strip():
        process.kill()
        sys.exit("peer: Xvfb did not start")
    os.environ["DISPLAY"] = ":" + number.decode().strip()
    return process


def stop(process):
    if process and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()


class Deadline(Exception):
    pass


def schedule_rule(measure, sleep, deadline):
    """Measurement at load finished, then after each sleep; returns (height, facts, jumps)."""
    facts = measure()
    adopted = facts.get("height") if (facts.get("height") or 0) > 0 else None
    jumps = [[0.0, adopted]]
    elapsed = 0.0
    for seconds in SCHEDULE:
        if time.monotonic() + seconds > deadline:
            raise Deadline("timeout during the schedule")
        sleep(seconds)
        elapsed += seconds
        facts = measure()
        value = facts.get("height")
        if value and value > 0 and (adopted is None or abs(value - adopted) > THRESHOLD):
            adopted = value
            jumps.append([round(elapsed, 3), value])
    return adopted, facts, jumps


def quick_rule(fonts_ready, images_done, measure, sleep, deadline):
    """Fonts ready (see FONTS_WAIT_FN), every image complete (50 ms polls, 5 s at most), one measurement."""
    fonts_ready()
    waited = 0.0
    while not images_done() and waited < IMAGE_WAIT:
        if time.monotonic() > deadline:
            raise Deadline("timeout waiting for images")
        sleep(IMAGE_POLL)
        waited += IMAGE_POLL
    facts = measure()
    return facts.get("height"), facts, None


class Output:
    def __init__(self, path):
        self.file = open(path, "w") if path else None

    def write(self, page, height, seconds, error, facts=None, jumps=None):
        if height is None and error is None and facts is not None:
            error = f"no height: document.body is missing (document is {facts.get('contentType')})"
        record = {"page": page, "height": height, "seconds": round(seconds, 4), "error": error}
        for key, value in (facts or {}).items():
            if key != "height":
                record[key] = value
        if jumps is not None:
            record["jumps"] = jumps
        line = json.dumps(record)
        print(line, flush=True)
        if self.file:
            self.file.write(line + "\n")
            self.file.flush()

    def close(self):
        if self.file:
            self.file.close()


def file_url(page):
    if "://" in page or page.startswith(("data:", "about:")):
        return page
    from urllib.parse import quote
    return "file://" + quote(os.path.abspath(page))
