#!/usr/bin/python3
"""Peer (a): Selenium driving WebKitGTK through WebKitWebDriver (MiniBrowser), one session reused.

The window is resized until window.innerWidth == --width and innerHeight == --height (the
MiniBrowser window has chrome around the view). MiniBrowser's toolbar makes the window at least
447 px wide under Xvfb (no window manager), so the view could not be 390 CSS px: a user GTK
stylesheet (XDG_CONFIG_HOME in a temporary folder) shrinks the toolbar's widgets; it styles GTK
widgets only, not web content. MiniBrowser gets the settings a user would
pass so results are comparable: --default-charset=UTF-8, --enable-page-cache=false.
Loads are `driver.get(file://...)` (page load strategy normal: readyState complete).

    peers/selenium_webkit_peer.py --rule quick --width 390 --out a.jsonl PAGE...
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import selenium_common  # noqa: E402

common.isolate()

WEBDRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"


TOOLBAR_CSS = ("toolbar, toolbar *, entry, button, headerbar, headerbar * { min-width: 0; min-height: 0;"
               " padding: 0; margin: 0; font-size: 1px; border-width: 0; }\n")


def shrink_toolbar(folder):
    os.makedirs(os.path.join(folder, "gtk-3.0"), exist_ok=True)
    with open(os.path.join(folder, "gtk-3.0", "gtk.css"), "w") as f:
        f.write(TOOLBAR_CSS)
    os.environ["XDG_CONFIG_HOME"] = folder


def make_driver(arguments):
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    options = Options()
    options.binary_location = MINIBROWSER
    for argument in ("--automation", "--default-charset=UTF-8", "--enable-page-cache=false"):
        options.add_argument(argument)
    return webdriver.WebKitGTK(options=options, service=Service(executable_path=WEBDRIVER))


def main():
    arguments = common.parse_arguments(__doc__.splitlines()[1])
    xvfb = common.start_xvfb() if not os.environ.get("DISPLAY") else None
    try:
        with tempfile.TemporaryDirectory(prefix="peer-a-") as folder:
            shrink_toolbar(folder)
            selenium_common.run(arguments, lambda: make_driver(arguments))
    finally:
        common.stop(xvfb)


if __name__ == "__main__":
    sys.exit(main())
