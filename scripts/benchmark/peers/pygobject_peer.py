#!/usr/bin/python3
"""Peer (b): the "I'll just script it" alternative, PyGObject + WebKit2 4.1 (GTK3).

One WebKitWebView (ephemeral context) in a shown GtkOffscreenWindow, sized 390x844, reused for
every page. Settings a scripter would set so results are comparable: default charset UTF-8,
default font size 16, page cache off. Everything else stays at WebKitGTK's defaults.

Run with Debian's python3 (PyGObject lives there), e.g. the bench venv's python3:
    peers/pygobject_peer.py --rule quick --width 390 --out b.jsonl PAGE...
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.isolate()
# GTK initializes when imported: the display must exist first (the peer's own Xvfb, its child).
XVFB = common.start_xvfb() if not os.environ.get("DISPLAY") else None

import gi  # noqa: E402
gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, Gtk, WebKit2  # noqa: E402


class View:
    def __init__(self, width, height):
        self.context = WebKit2.WebContext.new_ephemeral()
        self.view = WebKit2.WebView.new_with_context(self.context)
        settings = self.view.get_settings()
        settings.set_property("default-charset", "UTF-8")
        settings.set_property("default-font-size", 16)
        settings.set_property("enable-page-cache", False)
        settings.set_property("enable-javascript", True)
        self.view.set_size_request(width, height)
        self.window = Gtk.OffscreenWindow()
        self.window.set_default_size(width, height)
        self.window.add(self.view)
        self.window.show_all()
        self.finished = False
        self.failure = None
        self.navigations = 0  # load starts; a start after finished is the page navigating itself
        self.view.connect("load-changed", self._load_changed)
        self.view.connect("load-failed", self._load_failed)
        self.view.connect("web-process-terminated", self._terminated)

    def _load_changed(self, view, event):
        if event == WebKit2.LoadEvent.STARTED:
            self.navigations += 1
            self.finished = False
        elif event == WebKit2.LoadEvent.FINISHED:
            self.finished = True

    def _load_failed(self, view, event, uri, error):
        # A load replaced by another (cancelled) is not a failure: the other one finishes.
        if not error.matches(WebKit2.network_error_quark(), WebKit2.NetworkError.CANCELLED):
            self.failure = f"load failed: {error.message}"
        return False  # WebKit shows its error page, then load-changed FINISHED

    def _terminated(self, view, reason):
        self.failure = f"web process terminated ({reason.value_nick})"

    def spin(self, condition, deadline):
        """Runs the main loop until condition() or the deadline; True when the condition held."""
        context = GLib.MainContext.default()
        ticker = GLib.timeout_add(10, lambda: True)  # wakes the blocking iteration to check the deadline
        try:
            while not condition():
                if time.monotonic() > deadline:
                    return False
                context.iteration(True)
            return True
        finally:
            GLib.source_remove(ticker)

    def sleep(self, seconds):
        end = time.monotonic() + seconds
        self.spin(lambda: time.monotonic() >= end, end + 1)

    def load(self, url, deadline):
        if self.view.is_loading():  # the previous page is still navigating: end that first
            self.view.stop_loading()
            self.spin(lambda: not self.view.is_loading(), min(deadline, time.monotonic() + 2))
        self.finished, self.failure = False, None
        self.view.load_uri(url)
        self.spin(lambda: self.finished or self.failure, deadline)
        if self.failure:
            raise RuntimeError(self.failure)
        if not self.finished:
            self.view.stop_loading()
            raise common.Deadline("timeout: load did not finish")

    def call(self, body, deadline, retries=3):
        """Runs an async JS function body (may await); returns its value as a Python object.

        When the page navigates itself meanwhile (the call's document is gone and it would never
        answer), waits for the new load to finish and runs the call again there."""
        box = {}
        navigations = self.navigations

        def done(view, result, _data):
            try:
                value = view.call_async_javascript_function_finish(result)
                box["value"] = json.loads(value.to_json(0) or "null")
            except GLib.Error as error:
                box["error"] = error.message

        self.view.call_async_javascript_function(body, -1, None, None, None, None, done, None)
        self.spin(lambda: box or self.navigations != navigations, deadline)
        if not box and self.navigations != navigations and retries > 0:
            if not self.spin(lambda: self.finished, deadline):
                raise common.Deadline("timeout: the page navigated itself and that load did not finish")
            return self.call(body, deadline, retries - 1)
        if not box:
            raise common.Deadline("timeout: script did not answer")
        if "error" in box:
            raise RuntimeError("script error: " + box["error"])
        return box["value"]


def main():
    arguments = common.parse_arguments(__doc__.splitlines()[1])
    output = common.Output(arguments.out)
    try:
        view = View(arguments.width, arguments.height)
        for page in arguments.pages:
            start = time.monotonic()
            deadline = start + arguments.timeout
            height, facts, jumps, error = None, None, None, None
            try:
                view.load(common.file_url(page), deadline)

                def measure():
                    return json.loads(view.call(common.MEASURE_JS, deadline))

                if arguments.rule == "schedule":
                    height, facts, jumps = common.schedule_rule(measure, view.sleep, deadline)
                else:
                    height, facts, jumps = common.quick_rule(
                        lambda: view.call(f"return await new Promise({common.FONTS_WAIT_FN});", deadline),
                        lambda: view.call(common.IMAGES_DONE_JS, deadline),
                        measure, view.sleep, deadline)
            except (common.Deadline, RuntimeError) as exception:
                error = str(exception)
            output.write(page, height, time.monotonic() - start, error, facts, jumps)
    finally:
        output.close()
        common.stop(XVFB)


if __name__ == "__main__":
    sys.exit(main())
