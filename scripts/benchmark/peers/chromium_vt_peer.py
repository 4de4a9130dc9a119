#!/usr/bin/python3
"""Peer (d): headless Chromium on its own virtual time, over the DevTools protocol (issue 48).

One Chromium (--headless=new) kept for every page, driven over --remote-debugging-pipe: it reads
commands on its fd 3 and writes answers and events on its fd 4, each a JSON message ended by a
NUL byte. No Selenium, no chromedriver, no websocket: the standard library only.

One tab, reused from page to page: virtual time paused, Page.navigate, then virtual time let run
whenever no network fetch is pending, for a budget of the reader app's whole schedule
(BUDGET_MS of page time); at Emulation.virtualTimeBudgetExpired, one Runtime.evaluate gives the
height (document.body.scrollHeight) and the facts of common.MEASURE_JS. --rule is ignored.

Viewport: Emulation.setDeviceMetricsOverride --width x --height, device scale 1, not mobile;
--hide-scrollbars, so the layout width is the whole width, as with WebKitGTK's overlay
scrollbars. Offline: common.isolate()'s network namespace, and --proxy-server=127.0.0.1:9
(nothing listens there) besides. A page whose budget has not expired within --timeout seconds
of wall-clock time, or whose renderer crashed, is recorded with an error (after a timeout, with
the height the page shows then, if it answers); its tab is closed and the next page gets a new
one (a new Chromium if the old one is gone). A page that navigates itself for ever (a script
that sets location to its own URL, which on file: never ends) holds virtual time at each load:
its budget never expires, and only the timeout ends it.

    peers/chromium_vt_peer.py --width 390 --out d.jsonl PAGE...
"""
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.isolate()

CHROMIUM = os.environ.get("PAGEHEIGHT_BENCH_CHROMIUM", "/usr/bin/chromium")
BUDGET_MS = 5400  # page time: the reader app's whole schedule (common.SCHEDULE) and 0.1 s more, issue 48's figure
FLAGS = ("--headless=new", "--no-sandbox", "--remote-debugging-pipe", "--proxy-server=127.0.0.1:9",
         "--hide-scrollbars", "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-sync",
         "--disable-background-networking", "--disable-dev-shm-usage", "--mute-audio")
MEASURE = f"(function () {{{common.MEASURE_JS}}})()"


class Crashed(RuntimeError):
    """The tab's renderer went away (Inspector.targetCrashed)."""


class Browser:
    """One Chromium process and the pipe to it. Single-threaded: a call reads until its answer,
    noting the events that arrive meanwhile (`seen`: (sessionId, method) pairs)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="chromium-vt-peer-")
        theirs_in, self.commands = os.pipe()
        self.answers, theirs_out = os.pipe()
        # Chromium's ends above fd 4 in the parent, so that moving them to 3 and 4 clobbers neither.
        high_in, high_out = fcntl.fcntl(theirs_in, fcntl.F_DUPFD, 5), fcntl.fcntl(theirs_out, fcntl.F_DUPFD, 5)
        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: (os.dup2(high_in, 3), os.dup2(high_out, 4)), pass_fds=(3, 4))
        for fd in (theirs_in, theirs_out, high_in, high_out):
            os.close(fd)
        self.buffer, self.last_id, self.seen = b"", 0, set()

    def call(self, method, params=None, session=None, deadline=None):
        """Sends one command; returns its result, or raises Deadline, Crashed, RuntimeError."""
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.commands, data):]
        except OSError as exception:
            raise RuntimeError(f"Chromium's pipe: {exception}") from None
        while True:
            answer = self.receive(deadline, f"no answer to {method}")
            self.check(session)
            if answer.get("id") == self.last_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})

    def wait_for(self, event, session, deadline):
        while (session, event) not in self.seen:
            self.receive(deadline, f"no {event}")
            self.check(session)

    def check(self, session):
        if session and (session, "Inspector.targetCrashed") in self.seen:
            raise Crashed("renderer crashed")

    def receive(self, deadline, waiting_for):
        """The next message; an event is noted in `seen`."""
        while b"\0" not in self.buffer:
            remaining = (deadline or time.monotonic() + 60) - time.monotonic()
            if remaining <= 0 or not select.select([self.answers], [], [], remaining)[0]:
                raise common.Deadline(f"timeout: {waiting_for}")
            chunk = os.read(self.answers, 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium closed the pipe (exit status {self.process.poll()})")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        message = json.loads(text)
        if "method" in message:
            self.seen.add((message.get("sessionId"), message["method"]))
        return message

    def alive(self):
        return self.process.poll() is None

    def close(self):
        try:
            if self.alive():
                self.call("Browser.close", deadline=time.monotonic() + 5)
        except (common.Deadline, RuntimeError):
            pass
        try:  # a Chromium ended by a signal leaves its singleton socket's directory in /tmp
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            pass
        common.stop(self.process)
        os.close(self.commands)
        os.close(self.answers)
        shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """A page target attached in flat mode (commands carry its sessionId), viewport set."""

    def __init__(self, browser, width, height, deadline):
        self.browser = browser
        self.target = browser.call("Target.createTarget", {"url": "about:blank"}, deadline=deadline)["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": self.target, "flatten": True},
                                    deadline=deadline)["sessionId"]
        self.send("Inspector.enable", deadline=deadline)  # for Inspector.targetCrashed
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, deadline)

    def send(self, method, params=None, deadline=None):
        return self.browser.call(method, params, self.session, deadline)

    def measure(self, url, deadline):
        """Loads url on virtual time, runs BUDGET_MS of page time; returns (height, facts)."""
        self.browser.seen.discard((self.session, "Emulation.virtualTimeBudgetExpired"))
        self.send("Emulation.setVirtualTimePolicy", {"policy": "pause"}, deadline)
        navigation = self.send("Page.navigate", {"url": url}, deadline)
        if navigation.get("errorText"):
            raise RuntimeError(f"load failed: {navigation['errorText']}")
        self.send("Emulation.setVirtualTimePolicy", {"policy": "pauseIfNetworkFetchesPending", "budget": BUDGET_MS},
                  deadline)
        self.browser.wait_for("Emulation.virtualTimeBudgetExpired", self.session, deadline)
        return self.read(deadline)

    def read(self, deadline):
        """One Runtime.evaluate of common.MEASURE_JS; returns (height, facts)."""
        result = self.send("Runtime.evaluate", {"expression": MEASURE, "returnByValue": True}, deadline)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script error: {result['exceptionDetails'].get('text')}")
        facts = json.loads(result["result"]["value"])
        return facts.get("height"), facts

    def close(self):
        try:
            self.browser.call("Target.closeTarget", {"targetId": self.target}, deadline=time.monotonic() + 5)
        except (common.Deadline, RuntimeError):
            pass


def main():
    arguments = common.parse_arguments(__doc__.splitlines()[1])
    output = common.Output(arguments.out)
    browser, tab = None, None
    try:
        for page in arguments.pages:
            # A Chromium and a tab (the first, or new ones after a failure) are set up outside the
            # page's own time.
            try:
                if browser is None or not browser.alive():
                    if browser:
                        browser.close()
                    browser, tab = Browser(), None
                if tab is None:
                    tab = Tab(browser, arguments.width, arguments.height, time.monotonic() + arguments.timeout)
            except (common.Deadline, RuntimeError) as exception:
                output.write(page, None, 0.0, f"no tab: {exception}")
                browser.close()
                browser = None
                continue
            start = time.monotonic()
            height, facts, error = None, None, None
            try:
                height, facts = tab.measure(common.file_url(page), start + arguments.timeout)
                seconds = time.monotonic() - start
            except (common.Deadline, RuntimeError) as exception:
                seconds, error = time.monotonic() - start, str(exception)
                if isinstance(exception, common.Deadline):
                    try:  # what the page shows at the deadline, for the record; it still counts as an error
                        height, facts = tab.read(time.monotonic() + 1)
                    except (common.Deadline, RuntimeError):
                        pass
                tab.close()
                tab = None
            output.write(page, height, seconds, error, facts)
    finally:
        output.close()
        if browser:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
