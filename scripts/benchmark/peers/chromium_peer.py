#!/usr/bin/python3
"""Peer (c): headless Chromium through Selenium (chromedriver), one session reused.

Headless needs no display, so this peer starts no Xvfb. Flags: --headless=new, --no-sandbox
(we run as root), --hide-scrollbars (so the layout width is the full 390 CSS px, as with
WebKitGTK's overlay scrollbars), --force-device-scale-factor=1, --disable-gpu. The window is
resized until window.innerWidth == --width and innerHeight == --height. Chromium's default
charset for pages without one stays its own (it guesses; WebKit peers use UTF-8).

    peers/chromium_peer.py --rule quick --width 390 --out c.jsonl PAGE...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import selenium_common  # noqa: E402

common.isolate()

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"


def make_driver(arguments):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     "--force-device-scale-factor=1", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking", "--disable-sync",
                     f"--window-size={arguments.width},{arguments.height}"):
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def main():
    arguments = common.parse_arguments(__doc__.splitlines()[1])
    selenium_common.run(arguments, lambda: make_driver(arguments))


if __name__ == "__main__":
    sys.exit(main())
